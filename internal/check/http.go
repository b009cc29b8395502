package check

import (
	"time"
)

// Bounds are the run's limits on what one request, one check and one
// response body may take; the runner sets them (its flags and
// environment), checks read them from the target.
type Bounds struct {
	// Request bounds each attempt of a request (send, answer, body).
	Request time.Duration
	// Check bounds one check, SlowCheck one labelled slow; a check past
	// its deadline ends without a verdict.
	Check, SlowCheck time.Duration
	// MaxBody bounds every response body the harness reads, in bytes.
	MaxBody int64
}

// DefaultBounds are the bounds of a run that sets none.
func DefaultBounds() Bounds {
	return Bounds{Request: 30 * time.Second, Check: 3 * time.Minute, SlowCheck: 15 * time.Minute, MaxBody: 16 << 20}
}
