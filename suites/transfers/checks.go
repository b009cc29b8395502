package transfers

import (
	"slices"

	"github.com/touchstone-harness/touchstone/internal/check"
)

// Checks returns the transfers area's checks, which check internal transfers
// between a parent and its direct child (document 1, Resources / Internal
// transfer (parent and child); States / Internal transfer; Endpoints /
// Sub-customers). Each file declares its own in an unexported function:
//
//   - transfers.go: transfersChecks
//
// The runner (cmd/touchstone/allchecks) registers them; a check's Ginkgo spec
// carries the location of its Run function.
func Checks() []check.Check {
	return check.InGroup("fiat balances",
		slices.Concat(
			transfersChecks(),
		),
	)
}
