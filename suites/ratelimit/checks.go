package ratelimit

import (
	"slices"

	"github.com/touchstone-harness/touchstone/internal/check"
)

// Checks returns the ratelimit area's checks, which check the per-route and
// tenant budgets, fixed windows on clock minutes and the 429 shape (document
// 2, Limits). Each file declares its own in an unexported function:
//
//   - budget.go: budgetChecks
//   - interplay.go: interplayChecks
//   - payoutbatches.go: payoutbatchesChecks
//   - reopens.go: reopensChecks
//
// The runner (cmd/touchstone/allchecks) registers them; a check's Ginkgo spec
// carries the location of its Run function.
func Checks() []check.Check {
	return check.AloneEach(
		slices.Concat(
			budgetChecks(),
			interplayChecks(),
			payoutbatchesChecks(),
			reopensChecks(),
		),
	)
}
