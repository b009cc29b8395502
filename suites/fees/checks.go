package fees

import (
	"slices"

	"github.com/touchstone-harness/touchstone/internal/check"
)

// Checks returns the fees area's checks, which check the fee reads (document
// 1, Endpoints / Fees): the tenant's commercial configuration and a customer's
// effective fees. Each file declares its own in an unexported function:
//
//   - fees.go: feesChecks
//
// The runner (cmd/touchstone/allchecks) registers them; a check's Ginkgo spec
// carries the location of its Run function.
func Checks() []check.Check {
	return slices.Concat(
		feesChecks(),
	)
}
