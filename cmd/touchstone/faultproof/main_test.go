package faultproof_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/touchstone-harness/touchstone/property"
)

// TestMain: the proof wants verdicts, not shrunk cases (Prove asks too,
// but only the first property run of a process decides).
func TestMain(m *testing.M) {
	if !property.NoShrinking() {
		fmt.Fprintln(os.Stderr, "property shrinking could not be turned off")
		os.Exit(2)
	}
	os.Exit(m.Run())
}
