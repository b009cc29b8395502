// Package idempotency checks Idempotency-Key validation, replay, conflicts,
// in-progress answers, the 1 MiB boundary and 24-hour retention (document 1,
// Common rules; document 2, Limits).
package idempotency
