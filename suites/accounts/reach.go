package accounts

import (
	"net/http"
	"slices"

	"github.com/google/uuid"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// reachChecks are the checks of reach.go.
func reachChecks() []check.Check {
	return slices.Concat(
		notMine404AndV2BindingChecks(),
		openReplaysOnceChecks(),
		notActiveStatesBlockedChecks(),
		parentIdReadsParentOwnChecks(),
	)
}

// notMine404AndV2BindingChecks returns check
// accounts/not-mine-404-and-v2-binding (one of reachChecks).
func notMine404AndV2BindingChecks() []check.Check {
	return []check.Check{
		{
			ID:    "accounts/not-mine-404-and-v2-binding",
			Title: "A subject key's fiat account, balance and deposit reads of a customer it cannot act for are 404, byte-identical to a nonexistent customer; V2/fiat/accounts lists only the subject's and its children's accounts",
			Rules: []string{"BIND-001", "BIND-005", "V2-004"},
			Needs: []string{"keys.subject", "keys.tenant", "customers.active_personal", "customers.parent"},
			Run: func(t *check.T) {
				mine, other := t.Customer("active_personal"), uuid.NewString()
				for _, suffix := range []string{"/banking/accounts", "/banking/balance", "/banking/deposits", "/banking/accounts/form-schema"} {
					a := get(t, "subject", api.Customer(mine)+suffix)
					b := get(t, "subject", api.Customer(other)+suffix)
					shape.FlatAnswer(t, a, shape.Want{Rule: "BIND-001", Status: http.StatusNotFound})
					shape.SameResponse(t, "BIND-001", a, b, "not-mine and nonexistent "+suffix)
				}
				accts := accountsOf(t, "FIAT-018", "tenant", accountsPath(mine))
				r := get(t, "subject", "/api/v2/public/fiat/accounts?limit=500")
				shape.StatusAnswer(t, r, shape.Want{Rule: "BIND-005", Status: http.StatusOK})
				m := shape.Object(t, "BIND-005", r)
				items, _ := m["items"].([]any)
				for _, x := range items {
					it, _ := x.(map[string]any)
					for _, a := range accts {
						if it["id"] == a["id"] {
							t.FatalAt(r, "BIND-005", "keys.subject lists account %v of customers.active_personal, which it cannot act for", a["id"])
						}
					}
				}
				if len(accts) > 0 {
					id, _ := accts[0]["id"].(string)
					shape.FlatAnswer(t, get(t, "subject", "/api/v2/public/fiat/accounts/"+id), shape.Want{Rule: "V2-004", Status: http.StatusNotFound})
				}
			},
		},
	}
}

// openReplaysOnceChecks returns check accounts/open-replays-once (one of
// reachChecks).
func openReplaysOnceChecks() []check.Check {
	return []check.Check{
		{
			ID:     "accounts/open-replays-once",
			Title:  "A retry of POST banking/accounts with the same Idempotency-Key and body replays the first answer byte for byte and opens one account",
			Rules:  []string{"IDEM-008", "FIAT-022", "CUST-022"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.tenant"},
			Run: func(t *check.T) {
				cust := fresh.Activated(t, "FIAT-022")
				req := client.Request{Method: http.MethodPost, Path: accountsPath(cust), JSON: map[string]any{"currency": "EUR"}, IdempotencyKey: t.NewKey()}
				first := t.Do(t.Client("tenant"), req)
				opened(t, "FIAT-022", first)
				again := t.Do(t.Client("tenant"), req)
				shape.SameResponse(t, "IDEM-008", first, again, "the account opening and its retry")
				n := 0
				for _, a := range accountsOf(t, "FIAT-018", "tenant", accountsPath(cust)) {
					if a["currency"] == "EUR" || a["currency"] == nil {
						n++
					}
				}
				if n != 1 {
					t.Fatalf("IDEM-008", "the customer holds %d EUR accounts after one opening and its retry, want 1", n)
				}
			},
		},
	}
}

// notActiveStatesBlockedChecks returns check
// accounts/not-active-states-blocked (one of reachChecks).
func notActiveStatesBlockedChecks() []check.Check {
	return []check.Check{
		{
			ID:     "accounts/not-active-states-blocked",
			Title:  "A customer in PendingCompliance, Onboarding or Suspended cannot open a fiat account (409 kyc_or_kyb_not_approved); once Active it can",
			Rules:  []string{"LIFE-001", "LIFE-003", "LIFE-004", "LIFE-007", "LIFE-025", "CUST-022"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.tenant"},
			Run: func(t *check.T) {
				cust, _ := fresh.Customer(t)
				// The lifecycle sentence of each state blocking money movement.
				blockedIn := map[string]string{"PendingCompliance": "LIFE-004", "Onboarding": "LIFE-003", "Suspended": "LIFE-007"}
				for _, st := range []string{"PendingCompliance", "Onboarding", "Suspended"} {
					fresh.Staff(t, cust, st)
					r := open(t, cust, map[string]any{"currency": "GBP"})
					if r.Status/100 == 2 {
						// The state's own sentence is the decision that went
						// wrong; what the refusal should have said is moot.
						t.FatalAt(r, blockedIn[st], "a %s customer opened a fiat account (%d): money movement is blocked in %s (it needs the customer Active)", st, r.Status, st)
					}
					shape.EnvelopeAnswer(t, r, shape.Want{Rule: "LIFE-025", Status: http.StatusConflict, Code: "kyc_or_kyb_not_approved"})
				}
				fresh.Staff(t, cust, "Active")
				opened(t, "LIFE-001", open(t, cust, map[string]any{"currency": "GBP"}))
			},
		},
	}
}

// parentIdReadsParentOwnChecks returns check
// accounts/parent-id-reads-parent-own (one of reachChecks).
func parentIdReadsParentOwnChecks() []check.Check {
	return []check.Check{
		{
			ID:    "accounts/parent-id-reads-parent-own",
			Title: "GET .../banking/accounts with the parent's id lists the parent's own accounts, never its child's nested accounts",
			Rules: []string{"BIND-004", "SUB-027"},
			Needs: []string{"keys.tenant", "customers.parent", "customers.child"},
			Run: func(t *check.T) {
				parent, child := t.Customer("parent"), t.Customer("child")
				kids := accountsOf(t, "SUB-027", "tenant", nestedPath(parent, child)+"/accounts")
				if len(kids) == 0 {
					t.Skipf("customers.child holds no account to tell apart")
				}
				for _, a := range accountsOf(t, "BIND-004", "tenant", accountsPath(parent)) {
					for _, k := range kids {
						if a["id"] == k["id"] {
							t.Fatalf("BIND-004", "the parent's banking/accounts lists the child's account %v", k["id"])
						}
					}
				}
			},
		},
	}
}
