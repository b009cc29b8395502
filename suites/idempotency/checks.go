package idempotency

import (
	"slices"

	"github.com/touchstone-harness/touchstone/internal/check"
)

// Checks returns the idempotency area's checks, which check Idempotency-Key
// validation, replay, conflicts, in-progress answers, the 1 MiB boundary and
// 24-hour retention (document 1, Common rules; document 2, Limits). Each file
// declares its own in an unexported function:
//
//   - boundary.go: boundaryChecks
//   - caller.go: callerChecks
//   - concurrency.go: concurrencyChecks
//   - conflicts.go: conflictsChecks
//   - expiry.go: expiryChecks
//   - failure.go: failureChecks
//   - keys.go: keysChecks
//   - replay.go: replayChecks
//   - servererror.go: servererrorChecks
//
// The runner (cmd/touchstone/allchecks) registers them; a check's Ginkgo spec
// carries the location of its Run function.
func Checks() []check.Check {
	return slices.Concat(
		boundaryChecks(),
		callerChecks(),
		concurrencyChecks(),
		conflictsChecks(),
		expiryChecks(),
		failureChecks(),
		keysChecks(),
		replayChecks(),
		servererrorChecks(),
	)
}
