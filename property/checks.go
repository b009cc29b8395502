package property

import (
	"slices"

	"github.com/touchstone-harness/touchstone/internal/check"
)

// Checks returns the properties: each file declares its own check in an
// unexported function:
//
//   - amounts.go: amountsChecks
//   - beneficiaries.go: beneficiariesChecks
//   - deliveries.go: deliveriesChecks
//   - idempotency.go: idempotencyChecks
//   - keys.go: keysChecks
//   - lifecycle.go: lifecycleChecks
//   - pagination.go: paginationChecks
//   - payoutbatches.go: payoutbatchesChecks
//   - ratewindows.go: ratewindowsChecks
//   - references.go: referencesChecks
//   - signatures.go: signaturesChecks
//   - transfers.go: transfersChecks
//   - webhooksubs.go: webhooksubsChecks
//
// The runner (cmd/touchstone/allchecks) registers them; a check's Ginkgo spec
// carries the location of its Run function.
func Checks() []check.Check {
	cs := slices.Concat(
		amountsChecks(),
		beneficiariesChecks(),
		deliveriesChecks(),
		idempotencyChecks(),
		keysChecks(),
		lifecycleChecks(),
		paginationChecks(),
		payoutbatchesChecks(),
		ratewindowsChecks(),
		referencesChecks(),
		signaturesChecks(),
		transfersChecks(),
		webhooksubsChecks(),
	)
	for i := range cs {
		cs[i].RealClockShare = float64(realClockChecks) / float64(DefaultChecks*max(1, caseBoost[cs[i].ID]))
	}
	return cs
}
