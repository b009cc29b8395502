package otherpaths

import (
	"net/http"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// Reconciliation (document 1, What the service does / Typical flow, step
// 6): the paged lists of deposits, withdrawals and conversion requests and,
// for fiat, each account's transactions list; there is no customer-level or
// unified feed and no crypto ledger feed.

// pagedLists are the customer's paged lists reconciliation reads, after
// P/customers/{id}.
var pagedLists = []string{"/banking/deposits", "/crypto/deposits", "/banking/withdrawals", "/crypto/withdrawals", "/banking/conversion-requests"}

// noFeeds are paths a customer-level, unified or crypto ledger feed would
// take: none is a route.
var noFeeds = []string{"/transactions", "/feed", "/ledger", "/crypto/transactions", "/crypto/ledger"}

// reconciliationChecks are the checks of reconciliation.go.
func reconciliationChecks() []check.Check {
	return []check.Check{
		{
			ID:    "otherpaths/reconciliation-lists-no-feed",
			Title: "Reconciliation reads the paged deposits, withdrawals and conversion-request lists and each fiat account's transactions; no customer-level, unified or crypto ledger feed answers (404)",
			Rules: []string{"SVC-006"},
			Needs: []string{"keys.tenant", "customers.active_personal"},
			Run: func(t *check.T) {
				c := t.Client("tenant")
				base := api.Customer(t.Customer("active_personal"))
				for _, p := range pagedLists {
					r := t.Do(c, client.Request{Method: http.MethodGet, Path: base + p})
					d := shape.EnvelopeAnswer(t, r, shape.Want{Rule: "SVC-006", Status: http.StatusOK, What: "GET " + p + " (a list reconciliation reads)"})
					if _, ok := d["pagination"].(map[string]any); !ok {
						t.ErrorAt(r, "SVC-006", "GET %s: data.pagination is %v, want the paged list's pagination object", p, d["pagination"])
					}
				}
				// For fiat, each account's transactions list.
				r := t.Do(c, client.Request{Method: http.MethodGet, Path: base + "/banking/accounts"})
				accounts := shape.Array(t, "SVC-006", shape.EnvelopeAnswer(t, r, shape.Want{Rule: "SVC-006", Status: http.StatusOK}), "accounts")
				judged := false
				for _, a := range accounts {
					id, _ := shape.Get(a, "id")
					s, _ := id.(string)
					if s == "" {
						continue
					}
					tr := t.Do(c, client.Request{Method: http.MethodGet, Path: base + "/banking/accounts/" + s + "/transactions"})
					shape.Array(t, "SVC-006", shape.EnvelopeAnswer(t, tr, shape.Want{Rule: "SVC-006", Status: http.StatusOK}), "transactions")
					judged = true
					break
				}
				if !judged {
					t.Logf("customers.active_personal holds no fiat account: its transactions list was not read")
				}
				// No other feed: a customer-level or unified one, or a crypto
				// ledger.
				for _, p := range noFeeds {
					r := t.Do(c, client.Request{Method: http.MethodGet, Path: base + p})
					shape.StatusAnswer(t, r, shape.Want{Rule: "SVC-006", Status: http.StatusNotFound, Continue: true,
						What: "GET P/customers/{id}" + p + " (no customer-level or unified feed and no crypto ledger feed: no such route)"})
				}
				for _, p := range []string{"/transactions", "/feed"} {
					r := t.Do(c, client.Request{Method: http.MethodGet, Path: api.P + p})
					shape.StatusAnswer(t, r, shape.Want{Rule: "SVC-006", Status: http.StatusNotFound, Continue: true,
						What: "GET P" + p + " (no unified feed: no such route)"})
				}
			},
		},
	}
}
