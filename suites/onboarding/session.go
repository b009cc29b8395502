package onboarding

import (
	"fmt"
	"net/http"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// aSession asserts that an answer's data is a verification session at all
// (rule: the route's sentence), before its fields are judged (ONB-012).
func aSession(t *check.T, rule string, s map[string]any) {
	for _, k := range []string{"verification_link", "token", "applicant_id", "onboarding_case_id", "status"} {
		if _, ok := s[k]; ok {
			return
		}
	}
	t.Fatalf(rule, "the answer's data is not a verification session (none of its members): %v", s)
}

// session asserts the verification session fields (document 1, Resources /
// Verification session) and returns them.
func session(t *check.T, rule string, s map[string]any) (token, link any, status string) {
	for _, k := range []string{"verification_link", "token"} {
		v, ok := s[k]
		if !ok {
			t.Fatalf(rule, "verification session has no %s (string or null)", k)
		}
		if _, isStr := v.(string); v != nil && !isStr {
			t.Fatalf(rule, "verification session %s is %v, want a string or null", k, v)
		}
	}
	if _, ok := s["applicant_id"].(string); !ok {
		t.Fatalf(rule, "verification session applicant_id is %v, want a string", s["applicant_id"])
	}
	if id, _ := s["onboarding_case_id"].(string); !shape.UUIDRe.MatchString(id) {
		t.Fatalf(rule, "verification session onboarding_case_id is %v, want a UUID", s["onboarding_case_id"])
	}
	status, _ = s["status"].(string)
	if status != "pending" && status != "approved" {
		t.Fatalf("ONB-014", "verification session status is %v, want pending or approved", s["status"])
	}
	return s["token"], s["verification_link"], status
}

// message asserts the initiate success message.
func message(t *check.T, rule string, r *client.Response, kind string) {
	m, _ := r.JSON()
	want := map[string]string{"kyc": "KYC verification session created", "kyb": "KYB verification session created"}[kind]
	if m["message"] != want {
		t.Fatalf(rule, "initiate message is %q, want %q", m["message"], want)
	}
}

func nonEmpty(v any) bool { s, ok := v.(string); return ok && s != "" }

// draftBusiness creates a customer and has it recorded as a Business
// through the control API (the record's type is set in the dashboard or by
// an account manager; POST P/customers takes none), still Draft.
func draftBusiness(t *check.T) string {
	id, _ := fresh.Customer(t)
	if err := t.Control().Call(t.Context(), http.MethodPost, "/onboarding/user-type/"+id, map[string]any{"user_type": "Business"}, nil); err != nil {
		t.NoVerdict(err)
	}
	if ut := fresh.Read(t, "ONB-028", id)["user_type"]; ut != "Business" {
		t.NoVerdict(fmt.Errorf("the control API recorded customer %s as a Business, yet it reads user_type %v", id, ut))
	}
	return id
}

// sessionChecks are the checks of session.go.
func sessionChecks() []check.Check {
	return []check.Check{
		{
			ID:     "onboarding/initiate-first-call",
			Title:  "The first initiate returns a real token and link in a verification session with the documented message",
			Rules:  []string{"ONB-015", "ONB-028", "ONB-012", "ONB-014", "ONB-040", "CUST-022"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant"},
			Run: func(t *check.T) {
				id, _ := fresh.Customer(t)
				kind := fresh.Kind(t, "ONB-028", fresh.Read(t, "ONB-028", id))
				r := fresh.Initiate(t, id, kind)
				s := fresh.Success(t, "ONB-028", r)
				message(t, "ONB-040", r, kind)
				aSession(t, "ONB-028", s)
				token, link, status := session(t, "ONB-012", s)
				if !nonEmpty(token) || !nonEmpty(link) {
					t.Fatalf("ONB-015", "first initiate: token %v, verification_link %v; want both real", token, link)
				}
				if status != "pending" {
					t.Fatalf("ONB-014", "first initiate of a Draft customer: status %s, want pending", status)
				}
			},
		},
		{
			ID:         "onboarding/initiate-first-call-business",
			Title:      "For a Draft business, kyc/initiate is 422 invalid_onboarding_type and leaves it Draft; the first kyb/initiate returns a real token and link in a pending verification session with the KYB message; a repeat re-mints a token for the same case; kyb/token then returns fresh tokens",
			Rules:      []string{"ONB-028", "ONB-015", "ONB-012", "ONB-014", "ONB-041", "ONB-042", "ONB-016", "ONB-029", "CUST-022"},
			Labels:     []string{check.Mutating, check.NeedsControl},
			ControlWhy: "a fresh Draft business: a customer record's type is set in the dashboard or by an account manager, and POST /customers creates a person",
			Needs:      []string{"keys.tenant"},
			Run: func(t *check.T) {
				id := draftBusiness(t)
				shape.EnvelopeAnswer(t, fresh.Initiate(t, id, "kyc"), shape.Want{Rule: "ONB-042", Status: http.StatusUnprocessableEntity, Code: "invalid_onboarding_type"})
				if got := fresh.Status(t, "ONB-042", id); got != "Draft" {
					t.Fatalf("ONB-042", "a refused kyc initiate moved the business to %s, want Draft", got)
				}
				r := fresh.Initiate(t, id, "kyb")
				s := fresh.Success(t, "ONB-028", r)
				aSession(t, "ONB-028", s)
				message(t, "ONB-041", r, "kyb")
				token, link, status := session(t, "ONB-012", s)
				if !nonEmpty(token) || !nonEmpty(link) {
					t.Fatalf("ONB-015", "first kyb initiate: token %v, verification_link %v; want both real", token, link)
				}
				if status != "pending" {
					t.Fatalf("ONB-014", "first kyb initiate of a Draft business: status %s, want pending", status)
				}
				seen := map[any]bool{token: true}
				// A repeat kyb initiate: the same case, a re-minted token.
				rs := fresh.Success(t, "ONB-016", fresh.Initiate(t, id, "kyb"))
				again, _, _ := session(t, "ONB-012", rs)
				if rs["onboarding_case_id"] != s["onboarding_case_id"] {
					t.Fatalf("ONB-016", "a repeat kyb initiate opened case %v, want the same case %v", rs["onboarding_case_id"], s["onboarding_case_id"])
				}
				if !nonEmpty(again) || seen[again] {
					t.Fatalf("ONB-016", "a repeat kyb initiate returned token %v, want a re-minted token", again)
				}
				seen[again] = true
				for i := 0; i < 2; i++ {
					ts := fresh.Success(t, "ONB-029", fresh.Token(t, id, "kyb"))
					aSession(t, "ONB-029", ts)
					tok, _, _ := session(t, "ONB-012", ts)
					if !nonEmpty(tok) || seen[tok] {
						t.Fatalf("ONB-029", "kyb/token returned token %v, want a fresh one (not one handed out before)", tok)
					}
					seen[tok] = true
				}
			},
		},
		{
			ID:     "onboarding/initiate-replay-same-case",
			Title:  "A repeat initiate re-mints a token for the same onboarding case; a same-key retry replays byte for byte",
			Rules:  []string{"ONB-016", "ONB-017", "CUST-022"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant"},
			Run: func(t *check.T) {
				id, _ := fresh.Customer(t)
				kind := fresh.Kind(t, "ONB-016", fresh.Read(t, "ONB-016", id))
				key := t.NewKey()
				// An empty JSON object: a body-less POST is not replay-protected
				// (IDEM-018), a JSON one is.
				req := client.Request{Method: http.MethodPost, Path: api.P + "/customers/" + id + "/onboarding/" + kind + "/initiate", IdempotencyKey: key, JSON: map[string]any{}}
				first := t.Do(t.Client("tenant"), req)
				s1 := fresh.Success(t, "ONB-016", first)
				token1, _, _ := session(t, "ONB-012", s1)
				again := t.Do(t.Client("tenant"), req)
				shape.SameResponse(t, "ONB-017", first, again, "initiate retried with the same Idempotency-Key")
				r2 := fresh.Initiate(t, id, kind)
				s2 := fresh.Success(t, "ONB-016", r2)
				message(t, "ONB-040", r2, kind)
				token, _, _ := session(t, "ONB-012", s2)
				if s2["onboarding_case_id"] != s1["onboarding_case_id"] {
					t.Fatalf("ONB-016", "repeat initiate opened case %v, want the same case %v", s2["onboarding_case_id"], s1["onboarding_case_id"])
				}
				if !nonEmpty(token) {
					t.Fatalf("ONB-016", "repeat initiate returned token %v, want a re-minted token", token)
				}
				// Re-minted: a new token, not the first one handed out again.
				if token == token1 {
					t.Fatalf("ONB-016", "repeat initiate (a new Idempotency-Key) returned the token the first initiate minted; the replay shape is a re-minted token for the same case")
				}
			},
		},
		{
			ID:     "onboarding/initiate-already-verified",
			Title:  "Initiate for an already verified customer returns token and link null with status approved",
			Rules:  []string{"ONB-018", "ONB-040", "ONB-041", "CUST-022"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.tenant", "customers.active_business"},
			Run: func(t *check.T) {
				id, kind := fresh.Started(t, "ONB-018")
				fresh.Decide(t, id, "approved")
				r := fresh.Initiate(t, id, kind)
				s := fresh.Success(t, "ONB-018", r)
				message(t, "ONB-040", r, kind)
				token, link, status := session(t, "ONB-012", s)
				if token != nil || link != nil || status != "approved" {
					t.Fatalf("ONB-018", "initiate after approval: token %v, link %v, status %s; want null, null, approved", token, link, status)
				}
				// The verified business fixture, on the business route.
				r = fresh.Initiate(t, t.Customer("active_business"), "kyb")
				s = fresh.Success(t, "ONB-018", r)
				message(t, "ONB-041", r, "kyb")
				token, link, status = session(t, "ONB-012", s)
				if token != nil || link != nil || status != "approved" {
					t.Fatalf("ONB-018", "kyb initiate for the Active business: token %v, link %v, status %s; want null, null, approved", token, link, status)
				}
			},
		},
		{
			ID:     "onboarding/initiate-held-for-review",
			Title:  "Initiate for a customer held for manual review returns token and link null with status pending",
			Rules:  []string{"ONB-019", "ONB-020", "CUST-022"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.tenant"},
			Run: func(t *check.T) {
				id, _ := fresh.Customer(t)
				kind := fresh.Kind(t, "ONB-019", fresh.Read(t, "ONB-019", id))
				fresh.Hold(t, id, true)
				r := fresh.Initiate(t, id, kind)
				s := fresh.Success(t, "ONB-019", r)
				token, link, status := session(t, "ONB-012", s)
				if token != nil || link != nil {
					t.Fatalf("ONB-019", "initiate while held for manual review: token %v, link %v; want both null (the SDK must never launch)", token, link)
				}
				if status != "pending" {
					t.Fatalf("ONB-020", "initiate while held for manual review: status %s, want pending", status)
				}
			},
		},
		{
			ID:     "onboarding/token-fresh",
			Title:  "POST onboarding/{kind}/token returns a verification session with a fresh token",
			Rules:  []string{"ONB-029", "ONB-012", "ONB-021", "CUST-022"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant"},
			Run: func(t *check.T) {
				id, kind := fresh.Started(t, "ONB-029")
				seen := map[any]bool{}
				for i := 0; i < 2; i++ {
					s := fresh.Success(t, "ONB-029", fresh.Token(t, id, kind))
					aSession(t, "ONB-029", s)
					token, _, _ := session(t, "ONB-012", s)
					if !nonEmpty(token) {
						t.Fatalf("ONB-029", "token route returned token %v, want a fresh token", token)
					}
					seen[token] = true
				}
				// Initiate again yields a fresh token (the recovery for an expired
				// one): none handed out before.
				s := fresh.Success(t, "ONB-021", fresh.Initiate(t, id, kind))
				if token, _, _ := session(t, "ONB-012", s); !nonEmpty(token) || seen[token] {
					t.Fatalf("ONB-021", "initiate again returned token %v, want a fresh token (not one handed out before)", token)
				}
			},
		},
		{
			ID:     "onboarding/wrong-kind-refused",
			Title:  "KYC initiate/token for a business and KYB initiate/token for a person are 422 invalid_onboarding_type",
			Rules:  []string{"ONB-042", "ERR-048"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant", "customers.active_personal", "customers.active_business"},
			Run: func(t *check.T) {
				for _, f := range fixtures {
					id, kind := t.Customer(f.name), other(f.kind)
					shape.EnvelopeAnswer(t, fresh.Initiate(t, id, kind), shape.Want{Rule: "ONB-042", Status: http.StatusUnprocessableEntity, Code: "invalid_onboarding_type"})
					shape.EnvelopeAnswer(t, fresh.Token(t, id, kind), shape.Want{Rule: "ONB-042", Status: http.StatusUnprocessableEntity, Code: "invalid_onboarding_type"})
				}
				// A fresh Draft person too: the kind is decided by user_type, not state.
				id, _ := fresh.Customer(t)
				if k := fresh.Kind(t, "ONB-042", fresh.Read(t, "ONB-042", id)); k == "kyc" {
					shape.EnvelopeAnswer(t, fresh.Initiate(t, id, "kyb"), shape.Want{Rule: "ONB-042", Status: http.StatusUnprocessableEntity, Code: "invalid_onboarding_type"})
					if got := fresh.Status(t, "ONB-042", id); got != "Draft" {
						t.Fatalf("ONB-042", "a refused kyb initiate moved the customer to %s, want Draft", got)
					}
				}
			},
		},
	}
}
