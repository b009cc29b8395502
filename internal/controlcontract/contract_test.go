package controlcontract

import "testing"

// TestOperationOf: a concrete call or a template finds its operation; of
// two templates that match, the one with more literal segments wins.
func TestOperationOf(t *testing.T) {
	for _, c := range []struct{ method, path, want string }{
		{"GET", "/clock", "readClock"},
		{"POST", "/clock/advance", "advanceClock"},
		{"POST", "/withdrawals/funds/3f1c", "withdrawalFunds"},
		{"POST", "/withdrawals/3f1c/outcome", "withdrawalOutcome"},
		{"POST", "/withdrawals/{id}/outcome", "withdrawalOutcome"},
		{"POST", "/fiat/deposits", "fiatDeposit"},
		{"POST", "/fiat/deposits/d1/return", "fiatDepositReturn"},
		{"POST", "/crypto-funds/c1", "cryptoFunds"},
		{"POST", "/crypto/deposits/c1?x=1", "cryptoDeposit"},
		{"POST", "/payout-batches/b1/erase-customer", "payoutBatchEraseCustomer"},
		{"GET", "/customers/c1/verification", "GET /customers/c1/verification"},
		{"POST", "/nothing", "POST /nothing"},
	} {
		if got := OperationID(c.method, c.path); got != c.want {
			t.Errorf("%s %s: %s, want %s", c.method, c.path, got, c.want)
		}
	}
	all := All()
	if all.Contract != Name || all.Version == "" || len(all.Operations) != len(Operations()) {
		t.Errorf("All: %+v", all)
	}
}
