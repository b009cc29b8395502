package accounts

import (
	"slices"

	"github.com/touchstone-harness/touchstone/internal/check"
)

// Checks returns the accounts area's checks, which check fiat accounts,
// balances and fiat deposits (document 1, What the service does; Two refusals
// to know; Resources / Fiat account, Balances, Deposit; States / Fiat account
// provisioning; Endpoints / Fiat accounts, beneficiaries, balances,
// Sub-customers and Deposits and withdrawals; document 2, Policy-gate codes,
// Operation codes / Fiat accounts, V2/fiat/accounts). Each file declares its
// own in an unexported function:
//
//   - deposits.go: depositsChecks
//   - nested.go: nestedChecks
//   - nested_tenant_programme.go: nestedTenantProgrammeChecks
//   - open.go: openChecks
//   - precondition_first.go: preconditionFirstChecks
//   - reach.go: reachChecks
//
// The runner (cmd/touchstone/allchecks) registers them; a check's Ginkgo spec
// carries the location of its Run function.
func Checks() []check.Check {
	return slices.Concat(
		depositsChecks(),
		nestedChecks(),
		nestedTenantProgrammeChecks(),
		openChecks(),
		preconditionFirstChecks(),
		reachChecks(),
	)
}
