package customers

import (
	"net/http"
	"strings"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

func post(t *check.T, c *client.Client, body map[string]any) *client.Response {
	return t.Do(c, client.Request{Method: http.MethodPost, Path: api.P + "/customers", JSON: body, IdempotencyKey: t.NewKey()})
}

// refusedValidation asserts a validation refusal whose code the spec does
// not give: 400 body binding (problem+json, errors, no code) or a 422
// envelope with a data.code.
func refusedValidation(t *check.T, rule string, r *client.Response, what string) {
	switch r.Status {
	case http.StatusBadRequest:
		m := shape.ProblemAnswer(t, r, shape.Want{Rule: rule, Status: http.StatusBadRequest})
		if _, ok := m["errors"].(map[string]any); !ok {
			t.Fatalf(rule, "%s: 400 without an errors map: %s", what, r.Body)
		}
	case http.StatusUnprocessableEntity:
		data := shape.EnvelopeAnswer(t, r, shape.Want{Rule: rule, Status: http.StatusUnprocessableEntity})
		if _, ok := data["code"].(string); !ok {
			t.Fatalf(rule, "%s: 422 without data.code: %s", what, r.Body)
		}
	default:
		t.Fatalf(rule, "%s: status %d, want 400 (body binding) or 422; body: %s", what, r.Status, r.Body)
	}
}

// createChecks are the checks of create.go.
func createChecks() []check.Check {
	return []check.Check{
		{
			ID:     "customers/create-new-starts-draft",
			Title:  "POST customers with a new email creates a Draft customer whose external_reference is the email as supplied (its case kept)",
			Rules:  []string{"CUST-022", "LIFE-002", "CUST-002", "CUST-018", "SVC-003", "CUST-001", "CUST-003", "CUST-004", "CUST-005", "CUST-006", "CUST-007", "CUST-008"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant"},
			Run: func(t *check.T) {
				// Upper-case letters in the email: external_reference is
				// the email as supplied, not a normalised form of it.
				email := "Ts-" + strings.TrimPrefix(fresh.Email(), "ts-")
				email = strings.Replace(email, "@example.com", "@Example.com", 1)
				r := post(t, t.Client("tenant"), map[string]any{"email": email, "jurisdiction": "FR"})
				if r.Status == http.StatusNotFound || r.Status == http.StatusMethodNotAllowed {
					// The overview's "no general customer-creation call"
					// describes how customers are usually provisioned; the
					// endpoint table documents the route.
					t.FatalAt(r, "SVC-003", "POST customers answered %d, as if there were no such route; the endpoint table documents it (find-or-create by email)", r.Status)
				}
				c := fresh.Success(t, "CUST-022", r)
				shape.Customer(t, c)
				// A status outside the lifecycle, or a jurisdiction not in the
				// code's form, is already wrong under its field's sentence:
				// what it says about Draft or the supplied value is moot.
				if s, _ := c["status"].(string); !shape.IsLifecycle(s) {
					t.Fatalf("CUST-006", "a new customer's status is %v, not a lifecycle status", c["status"])
				}
				if s, _ := c["jurisdiction"].(string); !shape.Alpha2Re.MatchString(s) {
					t.Fatalf("CUST-005", "a new customer's jurisdiction is %v, not an ISO 3166-1 alpha-2 code", c["jurisdiction"])
				}
				if c["status"] != "Draft" {
					t.Errorf("LIFE-002", "a new customer has status %v, want Draft", c["status"])
				}
				if c["external_reference"] != email {
					t.Errorf("CUST-002", "external_reference is %v, want the email supplied (%s)", c["external_reference"], email)
				}
				if c["jurisdiction"] != "FR" {
					t.Errorf("CUST-018", "jurisdiction is %v, want FR as supplied", c["jurisdiction"])
				}
				id := shape.String(t, "CUST-022", c, "id")
				got := fresh.Read(t, "CUST-022", id)
				if got["status"] != "Draft" {
					t.Errorf("LIFE-002", "GET customers/{id} of a new customer: status %v, want Draft", got["status"])
				}
				if got["external_reference"] != email {
					t.Errorf("CUST-002", "GET customers/{id}: external_reference %v, want %s", got["external_reference"], email)
				}
			},
		},
		{
			ID:     "customers/create-finds-existing-email",
			Title:  "POST customers with an existing email returns that customer with the same status and created message",
			Rules:  []string{"CUST-022", "CUST-023", "CUST-024"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant"},
			Run: func(t *check.T) {
				email := fresh.Email()
				body := map[string]any{"email": email, "jurisdiction": "GB"}
				first := post(t, t.Client("tenant"), body)
				d1 := fresh.Success(t, "CUST-024", first)
				id := shape.String(t, "CUST-022", d1, "id")
				second := post(t, t.Client("tenant"), body)
				d2 := fresh.Success(t, "CUST-024", second)
				if d2["id"] != id {
					t.Fatalf("CUST-022", "second POST with the same email returned id %v, want the existing %s", d2["id"], id)
				}
				if d2["created_at"] != d1["created_at"] {
					t.Errorf("CUST-022", "second POST returned created_at %v, the existing customer's is %v", d2["created_at"], d1["created_at"])
				}
				if second.Status != first.Status {
					t.Errorf("CUST-024", "found-existing status %d differs from creation status %d", second.Status, first.Status)
				}
				m1, _ := first.JSON()
				m2, _ := second.JSON()
				if m1["message"] != m2["message"] {
					t.Errorf("CUST-023", "found-existing message %q differs from the creation message %q; the message still says created", m2["message"], m1["message"])
				}
			},
		},
		{
			ID:     "customers/create-password-refused",
			Title:  "POST customers with a password is refused with 422 password_not_supported, for a new email and for an existing customer's",
			Rules:  []string{"CUST-020", "ERR-049"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant"},
			Run: func(t *check.T) {
				r := post(t, t.Client("tenant"), map[string]any{"email": fresh.Email(), "jurisdiction": "GB", "password": "correct horse battery staple"})
				shape.EnvelopeAnswer(t, r, shape.Want{Rule: "CUST-020", Status: http.StatusUnprocessableEntity, Code: "password_not_supported"})
				// Every POST with a password: also one whose email finds an
				// existing customer (find-or-create would return it).
				_, email := fresh.Customer(t)
				r = post(t, t.Client("tenant"), map[string]any{"email": email, "jurisdiction": "GB", "password": "correct horse battery staple"})
				shape.EnvelopeAnswer(t, r, shape.Want{Rule: "CUST-020", Status: http.StatusUnprocessableEntity, Code: "password_not_supported"})
			},
		},
		{
			ID:     "customers/create-ignores-verification-flags",
			Title:  "POST customers accepts email_verified and send_otp and ignores them",
			Rules:  []string{"CUST-021"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant"},
			Run: func(t *check.T) {
				email := fresh.Email()
				c := fresh.Create(t, "CUST-021", t.Client("tenant"), map[string]any{"email": email, "jurisdiction": "GB", "email_verified": true, "send_otp": true})
				if c["status"] != "Draft" || c["external_reference"] != email {
					t.Fatalf("CUST-021", "with email_verified and send_otp the new customer is %v/%v, want Draft/%s", c["status"], c["external_reference"], email)
				}
				shape.Customer(t, c)
			},
		},
		{
			ID:     "customers/create-requires-email-and-jurisdiction",
			Title:  "POST customers without email or without jurisdiction is refused and creates nothing",
			Rules:  []string{"CUST-018", "CUST-019"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant"},
			Run: func(t *check.T) {
				tenant := t.Client("tenant")
				refusedValidation(t, "CUST-018", post(t, tenant, map[string]any{"jurisdiction": "GB"}), "POST customers without email")
				orphan := fresh.Email()
				refusedValidation(t, "CUST-018", post(t, tenant, map[string]any{"email": orphan}), "POST customers without jurisdiction")
				// Had the refused call created a customer, its email would be
				// in use as an external_reference: claim it for another one.
				id, _ := fresh.Customer(t)
				r := fresh.Patch(t, id, map[string]any{"external_reference": orphan})
				if r.Status == http.StatusConflict {
					t.Fatalf("CUST-019", "the email of the refused POST (no jurisdiction) is in use: a customer was created (jurisdiction defaulted)")
				}
				c := shape.EnvelopeAnswer(t, r, shape.Want{Rule: "CUST-014", Status: http.StatusOK})
				if c["external_reference"] != orphan {
					t.Fatalf("CUST-014", "PATCH external_reference answered %v, want %s", c["external_reference"], orphan)
				}
			},
		},
		{
			ID:     "customers/create-gated-for-bound-keys",
			Title:  "POST customers: a tenant-wide key is not gated, keys.subject (customers.parent, which holds the end-customer programme) may create, keys.child (a sub-customer, which never holds it) is 403 sub_customer_onboarding_disabled",
			Rules:  []string{"CUST-025", "ERR-051", "ERR-052"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant", "keys.subject", "customers.parent"},
			Run: func(t *check.T) {
				// What each key's customer holds is the profile's statement
				// (customers.parent has the programme; a sub-customer cannot
				// have sub-customers), never read from the target: a target
				// that gates nothing would otherwise set its own bar.
				if t.Profile().Key("child") == "" {
					t.NotJudged("profile has no keys.child: no key bound to a customer without the end-customer programme, so the gate is never seen; add keys.child (or run with the control API: customers/create-gated-programme-off)", "CUST-025", "ERR-051", "ERR-052")
					return
				}
				fresh.Create(t, "CUST-025", t.Client("tenant"), map[string]any{"email": fresh.Email(), "jurisdiction": "GB"})
				r := post(t, t.Client("subject"), map[string]any{"email": fresh.Email(), "jurisdiction": "GB"})
				if r.Status == http.StatusForbidden {
					t.Fatalf("CUST-025", "keys.subject is bound to customers.parent, which the profile says holds the end-customer programme, yet POST customers is 403: %s", shape.Clip(r.Body))
				}
				fresh.Success(t, "CUST-025", r)
				gated := post(t, t.Client("child"), map[string]any{"email": fresh.Email(), "jurisdiction": "GB"})
				if gated.Status/100 == 2 {
					t.Fatalf("CUST-025", "keys.child (bound to customers.child, a sub-customer, which never holds the end-customer programme) created a customer: POST customers answered %d, want 403 sub_customer_onboarding_disabled", gated.Status)
				}
				fresh.GatedWhere(t, "ERR-051", gated)
			},
		},
		{
			ID:     "customers/create-gated-programme-off",
			Alone:  check.WithControl,
			Title:  "POST customers with a bound key whose customer lacks the end-customer programme is 403 sub_customer_onboarding_disabled; a tenant-wide key is not gated",
			Rules:  []string{"CUST-025", "ERR-051", "ERR-052"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.tenant", "keys.subject", "customers.parent"},
			Run: func(t *check.T) {
				defer fresh.ProgrammeOff(t, t.Customer("parent"))()
				fresh.GatedWhere(t, "CUST-025", post(t, t.Client("subject"), map[string]any{"email": fresh.Email(), "jurisdiction": "GB"}))
				fresh.Create(t, "CUST-025", t.Client("tenant"), map[string]any{"email": fresh.Email(), "jurisdiction": "GB"})
			},
		},
	}
}
