package customers

import (
	"fmt"
	"net/http"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// openAccount asks for a GBP fiat account for the customer (a money-moving
// route: it begins with the shared precondition).
func openAccount(t *check.T, id string) *client.Response {
	return t.Do(t.Client("tenant"), client.Request{Method: http.MethodPost, Path: api.Customer(id) + "/banking/accounts",
		JSON: map[string]any{"currency": "GBP"}, IdempotencyKey: t.NewKey()})
}

func get(t *check.T, path string) *client.Response {
	return t.Do(t.Client("tenant"), client.Request{Method: http.MethodGet, Path: api.P + path})
}

// lifecycleChecks are the checks of lifecycle.go.
func lifecycleChecks() []check.Check {
	return []check.Check{
		{
			ID:     "customers/lifecycle-initiate-opens-onboarding",
			Title:  "Verification initiate moves a Draft customer to Onboarding and returns the session",
			Rules:  []string{"LIFE-010", "LIFE-002", "LIFE-003", "LIFE-025", "CUST-022"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant"},
			Run: func(t *check.T) {
				id, _ := fresh.Customer(t)
				c := fresh.Read(t, "LIFE-002", id)
				if c["status"] != "Draft" {
					t.Fatalf("LIFE-002", "a new customer reads %v, want Draft", c["status"])
				}
				kind := fresh.Kind(t, "LIFE-010", c)
				s := fresh.Success(t, "LIFE-010", fresh.Initiate(t, id, kind))
				if _, ok := s["onboarding_case_id"].(string); !ok {
					t.Fatalf("LIFE-010", "initiate did not return a session (onboarding_case_id %v)", s["onboarding_case_id"])
				}
				if got := fresh.Status(t, "LIFE-010", id); got != "Onboarding" {
					t.Fatalf("LIFE-010", "after initiate the customer reads %s, want Onboarding", got)
				}
				if got := fresh.ListStatus(t, "LIFE-010", id); got != "Onboarding" {
					t.Fatalf("LIFE-010", "after initiate the customer is listed %s, want Onboarding", got)
				}
				// Onboarding blocks money movement: opening a fiat account is
				// refused by the shared precondition.
				r := openAccount(t, id)
				if r.Status/100 == 2 {
					t.FatalAt(r, "LIFE-003", "an Onboarding customer opened a fiat account (%d): money movement is blocked", r.Status)
				}
				shape.EnvelopeAnswer(t, r, shape.Want{Rule: "LIFE-025", Status: http.StatusConflict, Code: "kyc_or_kyb_not_approved"})
			},
		},
		{
			ID:     "customers/lifecycle-refreshing-reads-activate",
			Title:  "Each refreshing read (customer, onboarding status, single-kind status, initiate, token) activates a customer whose case the provider approved, a PendingCompliance one too",
			Rules:  []string{"LIFE-011", "CUST-010", "ONB-030", "LIFE-005", "CUST-022"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.tenant"},
			Run: func(t *check.T) {
				type trigger struct {
					name string
					call func(id, kind string) // sends the trigger and asserts what its own response says
				}
				triggers := []trigger{
					// A route whose own sentence says it refreshes fails
					// under that sentence; the others under LIFE-011, which
					// names them.
					{"GET customers/{id}", func(id, _ string) {
						if got := fresh.Status(t, "CUST-010", id); got != "Active" {
							t.Fatalf("CUST-010", "GET customers/{id} after approval answered %s, want Active: the read refreshes the verification state", got)
						}
					}},
					{"GET onboarding/status", func(id, _ string) {
						r := get(t, "/customers/"+id+"/onboarding/status")
						d := shape.EnvelopeAnswer(t, r, shape.Want{Rule: "ONB-030", Status: http.StatusOK})
						if d["customer_status"] != "Active" {
							t.FatalAt(r, "ONB-030", "onboarding/status did not refresh the verification state: customer_status %v after the provider approved, want Active", d["customer_status"])
						}
					}},
					{"GET onboarding/{kind}/status", func(id, kind string) {
						d := shape.EnvelopeAnswer(t, get(t, "/customers/"+id+"/onboarding/"+kind+"/status"), shape.Want{Rule: "LIFE-011", Status: http.StatusOK})
						if d["customer_status"] != "Active" {
							t.Fatalf("LIFE-011", "onboarding/%s/status after approval answered customer_status %v, want Active", kind, d["customer_status"])
						}
					}},
					{"POST onboarding/{kind}/initiate", func(id, kind string) {
						fresh.Success(t, "LIFE-011", fresh.Initiate(t, id, kind))
					}},
					{"POST onboarding/{kind}/token", func(id, kind string) {
						fresh.Success(t, "LIFE-011", fresh.Token(t, id, kind))
					}},
				}
				for _, tr := range triggers {
					id, kind := fresh.Started(t, "LIFE-011")
					fresh.Decide(t, id, "approved")
					tr.call(id, kind)
					// The list does not refresh: it shows what the trigger stored.
					if got := fresh.ListStatus(t, "LIFE-011", id); got != "Active" {
						t.Fatalf("LIFE-011", "after %s on an approved case the stored status is %s, want Active", tr.name, got)
					}
				}
				// Any state but the four that stay: a case held for review
				// (PendingCompliance) and then approved activates too.
				id, _ := fresh.Started(t, "LIFE-011")
				fresh.Decide(t, id, "pending_review")
				if got := fresh.Status(t, "CUST-010", id); got != "PendingCompliance" {
					t.NoVerdict(fmt.Errorf("the provider's pending_review left the customer %s, not PendingCompliance: the case cannot be held for review", got))
				}
				fresh.Decide(t, id, "approved")
				if got := fresh.Status(t, "CUST-010", id); got != "Active" {
					t.Fatalf("LIFE-011", "a PendingCompliance customer whose case the provider then approved reads %s on GET customers/{id}, want Active", got)
				}
				// Active allows money movement: the shared precondition lets
				// the customer through (whatever else the opening decides).
				r := openAccount(t, id)
				if m, err := r.JSON(); err == nil && r.Status == http.StatusConflict {
					if d, _ := m["data"].(map[string]any); d != nil && d["code"] == "kyc_or_kyb_not_approved" {
						t.FatalAt(r, "LIFE-005", "an Active customer's fiat account opening was refused 409 kyc_or_kyb_not_approved: Active is the status that passes the precondition")
					}
				}
			},
		},
		{
			ID:     "customers/lifecycle-terminal-never-reactivated",
			Title:  "A Suspended, Blocked, Closed or Rejected customer is never re-activated by a refreshing read",
			Rules:  []string{"LIFE-016", "LIFE-013", "LIFE-006", "LIFE-025", "CUST-022"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.tenant"},
			Run: func(t *check.T) {
				for _, st := range []string{"Suspended", "Blocked", "Closed", "Rejected"} {
					id, kind := fresh.Started(t, "LIFE-016")
					if st == "Rejected" {
						fresh.Decide(t, id, "rejected")
						if got := fresh.Status(t, "LIFE-006", id); got != "Rejected" {
							t.Fatalf("LIFE-006", "after the provider rejected the case the customer reads %s, want Rejected", got)
						}
						// Rejected blocks money movement: opening a fiat account
						// is refused by the shared precondition.
						r := t.Do(t.Client("tenant"), client.Request{Method: http.MethodPost, Path: api.Customer(id) + "/banking/accounts",
							JSON: map[string]any{"currency": "GBP"}, IdempotencyKey: t.NewKey()})
						if r.Status/100 == 2 {
							t.FatalAt(r, "LIFE-006", "a Rejected customer opened a fiat account (%d): money movement is blocked", r.Status)
						}
						shape.EnvelopeAnswer(t, r, shape.Want{Rule: "LIFE-025", Status: http.StatusConflict, Code: "kyc_or_kyb_not_approved"})
					} else {
						fresh.SetStatus(t, "LIFE-013", id, st)
					}
					fresh.Decide(t, id, "approved")
					if got := fresh.Status(t, "LIFE-016", id); got != st {
						t.Fatalf("LIFE-016", "%s customer with an approved case: GET customers/{id} answered %s", st, got)
					}
					d := shape.EnvelopeAnswer(t, get(t, "/customers/"+id+"/onboarding/status"), shape.Want{Rule: "LIFE-016", Status: http.StatusOK})
					if d["customer_status"] != st {
						t.Fatalf("LIFE-016", "%s customer with an approved case: onboarding/status answered customer_status %v", st, d["customer_status"])
					}
					d = shape.EnvelopeAnswer(t, get(t, "/customers/"+id+"/onboarding/"+kind+"/status"), shape.Want{Rule: "LIFE-016", Status: http.StatusOK})
					if d["customer_status"] != st {
						t.Fatalf("LIFE-016", "%s customer with an approved case: onboarding/%s/status answered customer_status %v", st, kind, d["customer_status"])
					}
					if got := fresh.ListStatus(t, "LIFE-016", id); got != st {
						t.Fatalf("LIFE-016", "%s customer with an approved case is stored as %s after the reads", st, got)
					}
				}
			},
		},
	}
}
