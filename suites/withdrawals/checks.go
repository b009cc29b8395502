package withdrawals

import (
	"slices"

	"github.com/touchstone-harness/touchstone/internal/check"
)

// Checks returns the withdrawals area's checks, which check fiat withdrawals
// (document 1, Resources / Fiat withdrawal; States / Fiat withdrawal;
// Endpoints / Deposits and withdrawals; document 2, Operation codes / Fiat
// withdrawals). Each file declares its own in an unexported function:
//
//   - fiat.go: fiatChecks
//   - gates.go: gatesChecks
//   - lifecycle.go: lifecycleChecks
//
// The runner (cmd/touchstone/allchecks) registers them; a check's Ginkgo spec
// carries the location of its Run function.
func Checks() []check.Check {
	return check.InGroup("fiat balances",
		slices.Concat(
			fiatChecks(),
			gatesChecks(),
			lifecycleChecks(),
		),
	)
}
