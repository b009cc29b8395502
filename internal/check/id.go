package check

import (
	"crypto/rand"
	"encoding/hex"
)

func shortID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
