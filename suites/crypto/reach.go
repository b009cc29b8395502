package crypto

import (
	"net/http"

	"github.com/google/uuid"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// reachChecks are the checks of reach.go.
func reachChecks() []check.Check {
	return []check.Check{
		{
			ID:    "crypto/not-mine-404",
			Title: "Every crypto read and write for a customer the parent-bound key cannot act for is a flat 404 byte-identical to one for a nonexistent customer",
			Rules: []string{"BIND-001"},
			Needs: []string{"keys.subject", "crypto.customer"},
			Run: func(t *check.T) {
				mine, none := t.Crypto("customer"), uuid.NewString()
				for _, rt := range []struct{ method, rest string }{
					{http.MethodGet, "/wallets"}, {http.MethodGet, "/wallets/BTC/balance"}, {http.MethodGet, "/withdrawal-addresses"},
					{http.MethodGet, "/withdrawals"}, {http.MethodGet, "/deposits"}, {http.MethodPost, "/wallets/BTC/address"},
				} {
					do := func(cust string) *client.Response {
						req := client.Request{Method: rt.method, Path: api.Customer(cust) + "/crypto" + rt.rest}
						if rt.method == http.MethodPost {
							req.IdempotencyKey = t.NewKey()
						}
						return t.Do(t.Client("subject"), req)
					}
					a, b := do(mine), do(none)
					shape.FlatAnswer(t, a, shape.Want{Rule: "BIND-001", Status: http.StatusNotFound})
					shape.SameResponse(t, "BIND-001", a, b, rt.method+" .../crypto"+rt.rest+" for a customer out of reach and for a nonexistent one")
				}
			},
		},
		{
			ID:          "cryptowithdrawals/retry-replays",
			SerialGroup: "crypto withdrawals",
			Title:       "A crypto withdrawal retried with the same Idempotency-Key and body replays the first answer byte for byte and creates one row",
			Rules:       []string{"IDEM-008", "CWD-020", "CWD-021"},
			Labels:      []string{check.Mutating},
			Needs:       []string{"keys.tenant", "crypto.customer", "crypto.whitelist_btc"},
			Run: func(t *check.T) {
				cust := t.Crypto("customer")
				mark := withdrawalsMark(t, cust)
				b := wbody("BTC", "", "0.00000001", t.Crypto("whitelist_btc"))
				req := client.Request{Method: http.MethodPost, Path: path(cust, "/withdrawals"), JSON: b, IdempotencyKey: t.NewKey()}
				first := t.Do(t.Client("tenant"), req)
				shape.EnvelopeAnswer(t, first, shape.Want{Rule: "CWD-021", Status: http.StatusOK})
				again := t.Do(t.Client("tenant"), req)
				shape.SameResponse(t, "IDEM-008", first, again, "a crypto withdrawal and its retry")
				if n := withDescription(t, "IDEM-008", cust, mark, b["description"]); n != 1 {
					t.Fatalf("IDEM-008", "%d crypto withdrawals carry the retried request's description %v, want 1", n, b["description"])
				}
			},
		},
	}
}
