package payoutbatches

import (
	"slices"

	"github.com/touchstone-harness/touchstone/internal/check"
)

// Checks returns the payoutbatches area's checks, which check payout batches
// (document 1, Resources / Payout batch; States / Payout batch; Endpoints /
// Payout batches; document 2, Errors and Limits): intake refusals, item
// validation, rails and references (predicted by internal/rails), idempotency,
// reads and the operator lifecycle through the control API. Each file declares
// its own in an unexported function:
//
//   - execution.go: executionChecks
//   - generated.go: generatedChecks
//   - intake.go: intakeChecks
//   - items.go: itemsChecks
//   - lifecycle.go: lifecycleChecks
//   - rails.go: railsChecks
//   - reads.go: readsChecks
//   - references.go: referencesChecks
//   - replay.go: replayChecks
//
// The runner (cmd/touchstone/allchecks) registers them; a check's Ginkgo spec
// carries the location of its Run function.
func Checks() []check.Check {
	return check.InGroup("fiat balances",
		slices.Concat(
			executionChecks(),
			generatedChecks(),
			intakeChecks(),
			itemsChecks(),
			lifecycleChecks(),
			railsChecks(),
			readsChecks(),
			referencesChecks(),
			replayChecks(),
		),
	)
}
