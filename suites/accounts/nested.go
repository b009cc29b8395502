package accounts

import (
	"net/http"

	"github.com/google/uuid"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// newChild creates a personal end customer of parent with the tenant key
// (setup under SUB-005) and returns its id.
func newChild(t *check.T, parent string) string {
	r := t.Do(t.Client("tenant"), client.Request{Method: http.MethodPost, Path: api.Customer(parent) + "/end-customers", IdempotencyKey: t.NewKey(),
		JSON: map[string]any{"subject_type": "Personal", "external_reference": "ts-ref-" + uuid.NewString(), "display_name": "Touchstone Child", "country_code": "GB"}})
	d := fresh.Setup(t, "SUB-005", r, "create an end customer")
	if p, _ := shape.Get(d, "end_customer.parent_customer_id"); p != parent {
		t.FatalAt(r, "SUB-005", "setup: the new end customer's parent_customer_id is %v, want the route's customer %s", p, parent)
	}
	return shape.String(t, "SUB-005", d, "end_customer.id")
}

func openNested(t *check.T, parent, child, currency string) *client.Response {
	return t.Do(t.Client("tenant"), client.Request{Method: http.MethodPost, Path: nestedPath(parent, child) + "/accounts", JSON: map[string]any{"currency": currency}, IdempotencyKey: t.NewKey()})
}

// nestedChecks are the checks of nested.go.
func nestedChecks() []check.Check {
	return []check.Check{
		{
			ID:     "accounts/nested-issue-and-read",
			Title:  "An approved child of a parent holding completed GBP accounts gets a PROVIDER_B GBP account on the nested route, readable in its list and by id; USD is 422 unsupported_currency",
			Rules:  []string{"FIAT-008", "FIAT-010", "SUB-026", "SUB-027", "FIAT-004"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant", "customers.parent", "customers.child"},
			Run: func(t *check.T) {
				parent, child := t.Customer("parent"), t.Customer("child")
				a := openedNested(t, parent, child, "GBP")
				if a["provider"] != nil && a["provider"] != "PROVIDER_B" {
					t.Errorf("FIAT-008", "the nested GBP account names provider %v, want PROVIDER_B", a["provider"])
				}
				if a["currency"] != nil && a["currency"] != "GBP" {
					t.Errorf("SUB-026", "the nested account reads currency %v, want GBP", a["currency"])
				}
				id := a["id"].(string)
				found := false
				for _, x := range accountsOf(t, "SUB-027", "tenant", nestedPath(parent, child)+"/accounts") {
					found = found || x["id"] == id
				}
				if !found {
					t.Errorf("SUB-027", "the nested account %s is not in the child's accounts list", id)
				}
				one := shape.EnvelopeAnswer(t, get(t, "tenant", nestedPath(parent, child)+"/accounts/"+id), shape.Want{Rule: "SUB-027", Status: http.StatusOK})
				if shape.String(t, "SUB-027", one, "account.id") != id {
					t.Errorf("SUB-027", "GET .../accounts/%s read another account", id)
				}
				r := openNested(t, parent, child, "USD")
				if r.Status/100 == 2 {
					t.FatalAt(r, "FIAT-008", "a USD account was issued on the nested route")
				}
				shape.EnvelopeAnswer(t, r, shape.Want{Rule: "FIAT-010", Status: http.StatusUnprocessableEntity, Code: "unsupported_currency"})
			},
		},
		{
			ID:     "accounts/nested-prerequisites",
			Title:  "Nested issuance needs the child approved (409 kyc_or_kyb_not_approved), the parent's completed account in the currency (refused without it) and the programme (403 sub_customer_onboarding_disabled); a Completed nested account has provider_account_id; EUR is taken too",
			Rules:  []string{"FIAT-009", "FIAT-023", "FIAT-017", "SUB-020", "SUB-026", "SUB-027", "FIAT-004", "SUB-005", "CUST-022"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.tenant"},
			Run: func(t *check.T) {
				parent := fresh.Activated(t, "FIAT-022")
				fresh.Programme(t, parent, true)
				child := newChild(t, parent)
				shape.EnvelopeAnswer(t, openNested(t, parent, child, "GBP"), shape.Want{Rule: "FIAT-009", Status: http.StatusConflict, Code: "kyc_or_kyb_not_approved"})
				fresh.Staff(t, child, "Active")
				r := openNested(t, parent, child, "GBP")
				if r.Status/100 == 2 {
					t.FatalAt(r, "FIAT-009", "a nested GBP account was issued although the parent holds no completed GBP account")
				}
				if r.Status != http.StatusConflict && r.Status != http.StatusUnprocessableEntity {
					t.FatalAt(r, "FIAT-023", "the refusal is %d, want 409 or 422", r.Status)
				}
				shape.String(t, "FIAT-023", shape.EnvelopeAnswer(t, r, shape.Want{Rule: "FIAT-023", Status: r.Status}), "code")
				completedAccount(t, parent, "GBP")
				a := openedNested(t, parent, child, "GBP")
				id := a["id"].(string)
				// The child's list holds its accounts, the one still being
				// provisioned too.
				listed := false
				for _, x := range accountsOf(t, "SUB-027", "tenant", nestedPath(parent, child)+"/accounts") {
					listed = listed || x["id"] == id
				}
				if !listed {
					t.Errorf("SUB-027", "the child's new nested account %s (status %v) is not in its accounts list", id, a["status"])
				}
				outcome(t, id, "Completed")
				one := shape.EnvelopeAnswer(t, get(t, "tenant", nestedPath(parent, child)+"/accounts/"+id), shape.Want{Rule: "SUB-027", Status: http.StatusOK})
				if shape.String(t, "FIAT-017", one, "account.status") != "Completed" {
					t.Fatalf("FIAT-017", "the completed nested account reads %v", one["account"])
				}
				if p, _ := shape.Get(one, "account.provider_account_id"); p == nil || p == "" {
					t.Errorf("FIAT-017", "the Completed nested account has provider_account_id %v, want it populated", p)
				}
				completedAccount(t, parent, "EUR")
				// The route takes EUR as well as GBP.
				if e := openedNested(t, parent, child, "EUR"); e["currency"] != nil && e["currency"] != "EUR" {
					t.Errorf("SUB-026", "the nested EUR account reads currency %v", e["currency"])
				}
				restore := fresh.ProgrammeOff(t, parent)
				defer restore()
				fresh.Gated(t, "SUB-020", openNested(t, parent, child, "EUR"))
			},
		},
		{
			ID:     "accounts/subcustomer-generic-route",
			Title:  "POST .../banking/accounts with a sub-customer's id is 409 sub_customer_dedicated_route_required",
			Rules:  []string{"SUB-015"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant", "customers.child"},
			Run: func(t *check.T) {
				r := open(t, t.Customer("child"), map[string]any{"currency": "GBP"})
				shape.EnvelopeAnswer(t, r, shape.Want{Rule: "SUB-015", Status: http.StatusConflict, Code: "sub_customer_dedicated_route_required"})
			},
		},
		{
			ID:     "accounts/consolidate-insufficient-balance",
			Title:  "Consolidating a new child that holds nothing is 409 consolidation_insufficient_balance",
			Rules:  []string{"SUB-029", "SUB-030", "SUB-005"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant", "customers.parent"},
			Run: func(t *check.T) {
				parent := t.Customer("parent")
				child := newChild(t, parent)
				r := t.Do(t.Client("tenant"), client.Request{Method: http.MethodPost, Path: nestedPath(parent, child) + "/consolidate", JSON: map[string]any{}, IdempotencyKey: t.NewKey()})
				// The body, envelope or flat, is the reading's (SUB-030).
				shape.FlatOrRefusalAnswer(t, r, shape.Want{Rule: "SUB-029", ShapeRule: "SUB-030", Status: http.StatusConflict, Code: "consolidation_insufficient_balance"})
			},
		},
	}
}

// openedNested issues a nested account and asserts the answer: data.account
// is the nested route's member (SUB-026), then the account's shape.
func openedNested(t *check.T, parent, child, currency string) map[string]any {
	r := openNested(t, parent, child, currency)
	if m, err := r.JSON(); err == nil && r.Status/100 == 2 {
		if d, _ := m["data"].(map[string]any); d != nil && d["account"] == nil {
			t.FatalAt(r, "SUB-026", "the nested account issue answered no data.account: %s", shape.Clip(r.Body))
		}
	}
	return opened(t, "SUB-026", r)
}
