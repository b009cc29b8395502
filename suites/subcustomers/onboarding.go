package subcustomers

import (
	"net/http"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

func businessProfile() map[string]any {
	return map[string]any{
		"company_name":        "Touchstone Child Ltd",
		"registration_number": "12345678",
		"country_code":        "GB",
		"registered_address": map[string]any{
			"line1": "1 Test Street", "city": "London", "post_code": "SW1A 1AA", "country_code": "GB",
		},
		"associated_parties": []any{map[string]any{
			"first_name": "Ada", "last_name": "Lovelace", "email": fresh.Email(), "role": "DIRECTOR",
			"date_of_birth": "1990-01-31", "country_code": "GB",
		}},
	}
}

func onboard(t *check.T, parent, child string, body map[string]any) *client.Response {
	return t.Do(t.Client("tenant"), client.Request{Method: http.MethodPost, Path: base(parent) + "/" + child + "/onboarding", JSON: body, IdempotencyKey: t.NewKey()})
}

// childSession asserts an end-customer verification session.
func childSession(t *check.T, rule string, s map[string]any) {
	for _, k := range []string{"verification_link", "token"} {
		v, ok := s[k]
		if _, isStr := v.(string); !ok || (v != nil && !isStr) {
			t.Fatalf(rule, "verification session %s is %v (present %v), want a string or null", k, v, ok)
		}
	}
	shape.String(t, rule, s, "applicant_id")
	if id, _ := s["onboarding_case_id"].(string); !shape.UUIDRe.MatchString(id) {
		t.Fatalf(rule, "onboarding_case_id is %v, want a UUID", s["onboarding_case_id"])
	}
	if st := s["status"]; st != "verified" && st != "pending" {
		t.Fatalf("ONB-014", "end-customer session status is %v, want verified or pending", st)
	}
}

// refused asserts a refusal whose status and code are not documented: an
// acceptance fails under rule, the refusal's form under SUB-013 (the
// reading: 400 body binding or a 422 envelope, and no session).
func refused(t *check.T, rule string, r *client.Response, what string) {
	switch r.Status {
	case http.StatusBadRequest:
		shape.ProblemAnswer(t, r, shape.Want{Rule: rule, Status: http.StatusBadRequest})
	case http.StatusUnprocessableEntity:
		d := shape.EnvelopeAnswer(t, r, shape.Want{Rule: rule, Status: http.StatusUnprocessableEntity})
		if _, ok := d["code"].(string); !ok {
			t.Fatalf(rule, "%s: 422 without data.code", what)
		}
		if _, ok := d["onboarding_case_id"]; ok {
			t.FatalAt(r, "SUB-013", "%s: the refusal carries a verification session", what)
		}
	default:
		if r.Status/100 == 2 {
			t.FatalAt(r, rule, "%s: accepted (%d), want it refused; body: %s", what, r.Status, shape.Clip(r.Body))
		}
		t.FatalAt(r, "SUB-013", "%s: refused with status %d, want 400 or 422 (the status is not stated; a malformed request is read as 400 or 422); body: %s", what, r.Status, shape.Clip(r.Body))
	}
}

// onboardingChecks are the checks of onboarding.go.
func onboardingChecks() []check.Check {
	return []check.Check{
		{
			ID:     "subcustomers/onboarding-personal",
			Title:  "End-customer onboarding of a person needs contact_email, refuses business_profile and returns a verification session",
			Rules:  []string{"SUB-025", "SUB-010", "SUB-012", "SUB-013", "ONB-014", "SUB-005"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant", "customers.parent"},
			Run: func(t *check.T) {
				parent := t.Customer("parent")
				child := createChild(t, "tenant", parent, "Personal")
				refused(t, "SUB-010", onboard(t, parent, child, map[string]any{"return_url": "https://example.com/done"}), "no contact_email")
				refused(t, "SUB-012", onboard(t, parent, child, map[string]any{"contact_email": fresh.Email(), "business_profile": businessProfile()}), "business_profile on a personal child")
				s := fresh.Success(t, "SUB-025", onboard(t, parent, child, map[string]any{"contact_email": fresh.Email()}))
				childSession(t, "SUB-025", s)
				// return_url is optional and accepted.
				other := createChild(t, "tenant", parent, "Personal")
				s = fresh.Success(t, "SUB-010", onboard(t, parent, other, map[string]any{"contact_email": fresh.Email(), "return_url": "https://example.com/done"}))
				childSession(t, "SUB-025", s)
			},
		},
		{
			ID:     "subcustomers/onboarding-business",
			Title:  "End-customer onboarding of a business needs business_profile with its named fields and an associated party",
			Rules:  []string{"SUB-011", "SUB-025", "SUB-013", "ONB-014", "SUB-005"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant", "customers.parent"},
			Run: func(t *check.T) {
				parent := t.Customer("parent")
				child := createChild(t, "tenant", parent, "Business")
				refused(t, "SUB-011", onboard(t, parent, child, map[string]any{"contact_email": fresh.Email()}), "business without business_profile")
				for _, drop := range []string{"company_name", "registration_number", "country_code", "registered_address"} {
					bp := businessProfile()
					delete(bp, drop)
					refused(t, "SUB-011", onboard(t, parent, child, map[string]any{"contact_email": fresh.Email(), "business_profile": bp}), "business_profile without "+drop)
				}
				bp := businessProfile()
				bp["associated_parties"] = []any{}
				refused(t, "SUB-011", onboard(t, parent, child, map[string]any{"contact_email": fresh.Email(), "business_profile": bp}), "business_profile with no associated_parties")
				refused(t, "SUB-010", onboard(t, parent, child, map[string]any{"business_profile": businessProfile()}), "business without contact_email")
				s := fresh.Success(t, "SUB-025", onboard(t, parent, child, map[string]any{"contact_email": fresh.Email(), "business_profile": businessProfile()}))
				childSession(t, "SUB-025", s)
			},
		},
	}
}
