package crypto

import (
	"slices"

	"github.com/touchstone-harness/touchstone/internal/check"
)

// Checks returns the crypto area's checks, which check the crypto surface: the
// asset table, deposit addresses (wallets), the per-asset wallet balance,
// whitelisted withdrawal addresses, crypto withdrawals and crypto deposits
// (document 1, Resources / Crypto assets, Crypto wallet, Balances, Crypto
// withdrawal, Whitelisted address, Deposit; States / Crypto withdrawal, Crypto
// wallet request, Whitelisted crypto address; Endpoints / Deposits and
// withdrawals; document 2, Status meaning and Operation codes / Crypto). Each
// file declares its own in an unexported function:
//
//   - deposits.go: depositsChecks
//   - reach.go: reachChecks
//   - wallets.go: walletsChecks
//   - whitelist.go: whitelistChecks
//   - withdrawals.go: withdrawalsChecks
//
// The runner (cmd/touchstone/allchecks) registers them; a check's Ginkgo spec
// carries the location of its Run function.
func Checks() []check.Check {
	return slices.Concat(
		depositsChecks(),
		reachChecks(),
		walletsChecks(),
		whitelistChecks(),
		withdrawalsChecks(),
	)
}
