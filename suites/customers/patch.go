package customers

import (
	"net/http"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// patchChecks are the checks of patch.go.
func patchChecks() []check.Check {
	return []check.Check{
		{
			ID:     "customers/patch-jurisdiction-invalid",
			Title:  "PATCH customers/{id} refuses an unrecognised jurisdiction with 422 jurisdiction_invalid and never coerces it",
			Rules:  []string{"CUST-013", "ERR-045", "CUST-005", "CUST-011", "CUST-022"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant"},
			Run: func(t *check.T) {
				id, _ := fresh.Customer(t)
				// XX: not an assigned code; GBR: alpha-3 (coercing it to GB is
				// forbidden); UK: exceptionally reserved, not assigned (GB is
				// the United Kingdom's alpha-2 code); gb, " GB": not the code's
				// form, and upper-casing or trimming them would be coercion.
				for _, bad := range []string{"XX", "GBR", "gbr", "UK", "uk", "gb", " GB"} {
					r := fresh.Patch(t, id, map[string]any{"jurisdiction": bad})
					shape.EnvelopeAnswer(t, r, shape.Want{Rule: "CUST-013", Status: http.StatusUnprocessableEntity, Code: "jurisdiction_invalid"})
					got := fresh.Read(t, "CUST-013", id)["jurisdiction"]
					if s, _ := got.(string); !shape.Alpha2Re.MatchString(s) {
						t.Fatalf("CUST-005", "the customer's jurisdiction reads %v, not an ISO 3166-1 alpha-2 code", got)
					}
					if got != "GB" {
						t.Fatalf("CUST-013", "after the refused jurisdiction %q the customer's jurisdiction is %v, want GB unchanged", bad, got)
					}
				}
				r := fresh.Patch(t, id, map[string]any{"jurisdiction": "DE"})
				c := shape.EnvelopeAnswer(t, r, shape.Want{Rule: "CUST-011", Status: http.StatusOK})
				if c["jurisdiction"] != "DE" {
					t.Fatalf("CUST-011", "PATCH jurisdiction DE answered jurisdiction %v", c["jurisdiction"])
				}
			},
		},
		{
			ID:     "customers/patch-invalid-email",
			Title:  "PATCH customers/{id} refuses an invalid email with 422 invalid_email",
			Rules:  []string{"CUST-015", "ERR-043", "CUST-022"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant"},
			Run: func(t *check.T) {
				id, email := fresh.Customer(t)
				r := fresh.Patch(t, id, map[string]any{"email": "not-an-email"})
				shape.EnvelopeAnswer(t, r, shape.Want{Rule: "CUST-015", Status: http.StatusUnprocessableEntity, Code: "invalid_email"})
				if got := fresh.Read(t, "CUST-015", id)["external_reference"]; got != email {
					t.Fatalf("CUST-015", "after the refused email the external_reference is %v, want %s unchanged", got, email)
				}
			},
		},
		{
			ID:     "customers/patch-unsupported-status",
			Title:  "PATCH customers/{id} refuses a status other than Suspended, Blocked, Closed with 422 unsupported_status",
			Rules:  []string{"CUST-016", "ERR-044", "LIFE-014", "CUST-022"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant"},
			Run: func(t *check.T) {
				id, _ := fresh.Customer(t)
				for _, bad := range []string{"Active", "Onboarding", "PendingCompliance", "Rejected", "Frozen"} {
					r := fresh.Patch(t, id, map[string]any{"status": bad})
					shape.EnvelopeAnswer(t, r, shape.Want{Rule: "CUST-016", Status: http.StatusUnprocessableEntity, Code: "unsupported_status"})
					if got := fresh.Status(t, "LIFE-014", id); got != "Draft" {
						t.Fatalf("LIFE-014", "after the refused status %q the customer is %s, want Draft unchanged", bad, got)
					}
				}
			},
		},
		{
			ID:     "customers/patch-status-accepted",
			Title:  "PATCH customers/{id} with status Suspended, Blocked or Closed moves the customer there, where money movement is blocked (opening a fiat account is 409 kyc_or_kyb_not_approved)",
			Rules:  []string{"LIFE-013", "LIFE-007", "LIFE-008", "LIFE-009", "LIFE-025", "CUST-022"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant"},
			Run: func(t *check.T) {
				// The sentence of each state PATCH sets: PATCH sets it, and
				// money movement is blocked there.
				blockedIn := map[string]string{"Suspended": "LIFE-007", "Blocked": "LIFE-008", "Closed": "LIFE-009"}
				for _, st := range []string{"Suspended", "Blocked", "Closed"} {
					id, _ := fresh.Customer(t)
					fresh.SetStatus(t, "LIFE-013", id, st)
					if got := fresh.Status(t, "LIFE-013", id); got != st {
						// The state's own rule says PATCH sets it, too.
						t.Errorf(blockedIn[st], "after PATCH status %s the customer reads %s", st, got)
						t.Fatalf("LIFE-013", "after PATCH status %s the customer reads %s", st, got)
					}
					r := t.Do(t.Client("tenant"), client.Request{Method: http.MethodPost, Path: api.Customer(id) + "/banking/accounts",
						JSON: map[string]any{"currency": "GBP"}, IdempotencyKey: t.NewKey()})
					if r.Status/100 == 2 {
						t.FatalAt(r, blockedIn[st], "a %s customer opened a fiat account (%d): money movement is blocked", st, r.Status)
					}
					shape.EnvelopeAnswer(t, r, shape.Want{Rule: "LIFE-025", Status: http.StatusConflict, Code: "kyc_or_kyb_not_approved"})
				}
				// From another state too: Suspended → Closed ("any" state).
				id, _ := fresh.Customer(t)
				fresh.SetStatus(t, "LIFE-013", id, "Suspended")
				fresh.SetStatus(t, "LIFE-013", id, "Closed")
			},
		},
		{
			ID:     "customers/patch-external-reference-in-use",
			Title:  "PATCH customers/{id} to another customer's external_reference is 409 external_reference_in_use",
			Rules:  []string{"CUST-017", "ERR-046", "CUST-022"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant"},
			Run: func(t *check.T) {
				_, taken := fresh.Customer(t)
				id, own := fresh.Customer(t)
				for _, field := range []string{"external_reference", "email"} {
					r := fresh.Patch(t, id, map[string]any{field: taken})
					shape.EnvelopeAnswer(t, r, shape.Want{Rule: "CUST-017", Status: http.StatusConflict, Code: "external_reference_in_use"})
					if got := fresh.Read(t, "CUST-017", id)["external_reference"]; got != own {
						t.Fatalf("CUST-017", "after the refused %s the external_reference is %v, want %s unchanged", field, got, own)
					}
				}
			},
		},
		{
			ID:     "customers/patch-email-and-external-reference",
			Title:  "PATCH customers/{id}: email and external_reference set one field, and external_reference wins when both are sent",
			Rules:  []string{"CUST-014", "CUST-022"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant"},
			Run: func(t *check.T) {
				id, _ := fresh.Customer(t)
				viaEmail := fresh.Email()
				c := shape.EnvelopeAnswer(t, fresh.Patch(t, id, map[string]any{"email": viaEmail}), shape.Want{Rule: "CUST-014", Status: http.StatusOK})
				if c["external_reference"] != viaEmail {
					t.Fatalf("CUST-014", "PATCH email set external_reference to %v, want %s", c["external_reference"], viaEmail)
				}
				loser, winner := fresh.Email(), fresh.Email()
				c = shape.EnvelopeAnswer(t, fresh.Patch(t, id, map[string]any{"email": loser, "external_reference": winner}), shape.Want{Rule: "CUST-014", Status: http.StatusOK})
				if c["external_reference"] != winner {
					t.Fatalf("CUST-014", "PATCH with email %s and external_reference %s answered external_reference %v; external_reference wins", loser, winner, c["external_reference"])
				}
				if got := fresh.Read(t, "CUST-014", id)["external_reference"]; got != winner {
					t.Fatalf("CUST-014", "after PATCH with both fields the stored external_reference is %v, want %s", got, winner)
				}
			},
		},
		{
			ID:     "customers/patch-omitted-unchanged",
			Title:  "PATCH customers/{id} changes only the fields sent",
			Rules:  []string{"CUST-011", "CUST-012", "CUST-022"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant"},
			Run: func(t *check.T) {
				id, email := fresh.Customer(t)
				before := fresh.Read(t, "CUST-011", id)
				c := shape.EnvelopeAnswer(t, fresh.Patch(t, id, map[string]any{"display_name": "Touchstone Renamed"}), shape.Want{Rule: "CUST-011", Status: http.StatusOK})
				if c["display_name"] != "Touchstone Renamed" {
					t.Fatalf("CUST-012", "PATCH display_name answered display_name %v", c["display_name"])
				}
				shape.Customer(t, c)
				after := fresh.Read(t, "CUST-011", id)
				for _, k := range []string{"id", "external_reference", "jurisdiction", "status", "user_type", "record_type", "created_at"} {
					if after[k] != before[k] {
						t.Errorf("CUST-011", "PATCH of display_name only changed %s from %v to %v", k, before[k], after[k])
					}
				}
				c = shape.EnvelopeAnswer(t, fresh.Patch(t, id, map[string]any{"jurisdiction": "IE"}), shape.Want{Rule: "CUST-011", Status: http.StatusOK})
				if c["display_name"] != "Touchstone Renamed" || c["external_reference"] != email || c["jurisdiction"] != "IE" {
					t.Fatalf("CUST-011", "PATCH of jurisdiction only answered display_name %v, external_reference %v, jurisdiction %v", c["display_name"], c["external_reference"], c["jurisdiction"])
				}
			},
		},
	}
}
