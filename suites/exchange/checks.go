package exchange

import (
	"slices"

	"github.com/touchstone-harness/touchstone/internal/check"
)

// Checks returns the exchange area's checks, which check currency conversion
// (document 1, What the service does / Exchange; Resources / Conversion
// request; States / Conversion request; Endpoints / Exchange; document 2,
// Operation codes / Exchange and the platform-wide pause). Each file declares
// its own in an unexported function:
//
//   - conversions.go: conversionsChecks
//   - price.go: priceChecks
//
// The runner (cmd/touchstone/allchecks) registers them; a check's Ginkgo spec
// carries the location of its Run function.
func Checks() []check.Check {
	return check.InGroup("conversions",
		slices.Concat(
			conversionsChecks(),
			priceChecks(),
		),
	)
}
