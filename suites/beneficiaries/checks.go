package beneficiaries

import (
	"slices"

	"github.com/touchstone-harness/touchstone/internal/check"
)

// Checks returns the beneficiaries area's checks, which check fiat
// beneficiaries (document 1, Resources / Beneficiary (fiat); States /
// Beneficiary approval; Endpoints / Fiat accounts, beneficiaries, balances;
// document 2, Operation codes / Beneficiaries): create one record per selected
// provider, the PROVIDER_B name attributes, approval states and staff
// decisions, bank registration, PATCH replacement, DELETE, and binding reach.
// Each file declares its own in an unexported function:
//
//   - approval.go: approvalChecks
//   - create.go: createChecks
//   - provisioning.go: provisioningChecks
//   - reach.go: reachChecks
//   - replace.go: replaceChecks
//
// The runner (cmd/touchstone/allchecks) registers them; a check's Ginkgo spec
// carries the location of its Run function.
func Checks() []check.Check {
	return slices.Concat(
		approvalChecks(),
		createChecks(),
		provisioningChecks(),
		reachChecks(),
		replaceChecks(),
	)
}
