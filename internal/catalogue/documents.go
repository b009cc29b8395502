package catalogue

import (
	"crypto/sha256"
	"encoding/hex"
)

// Document is one of the two specification documents the rules come from.
// The documents carry no version of their own: a run names them by title
// and file, and names the catalogue built from them by its digest.
type Document struct {
	Doc   int    `json:"doc"`
	Title string `json:"title"`
	File  string `json:"file"`
}

// Documents are the contract's two documents.
var Documents = []Document{
	{1, "Partner Money-Movement API v1: Overview, Resources, States, Endpoints", "partner-api-1-overview-resources-states-v1-endpoints.md"},
	{2, "Partner API: v2 Endpoints, Authentication, Events, Errors, Limits, Versioning", "partner-api-2-v2-auth-events-errors-limits.md"},
}

// Digest is the SHA-256 of the embedded catalogue (rules.json): which
// reading of the documents a run was judged by.
func Digest() string {
	sum := sha256.Sum256(embedded)
	return hex.EncodeToString(sum[:])
}
