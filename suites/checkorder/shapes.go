package checkorder

// Document 2, Errors / Status meaning and Three body shapes: which body
// shape and content type each error status uses. problem+json
// (application/problem+json: type, title, status, detail, code) for 400,
// 401, 403 on scope and 429; the flat error (application/json: title,
// detail, status, code null) for every 404; the envelope (success false,
// status_code, message, data.code and data.detail) for operation 422s.

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"

	"github.com/google/uuid"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// shapesChecks are the checks of shapes.go.
func shapesChecks() []check.Check {
	return []check.Check{
		{
			ID:     "checkorder/shape-400-problem-json",
			Title:  "a 400 (Idempotency-Key missing) is application/problem+json with type, title, status, detail and its code",
			Rules:  []string{"ERR-001", "ERR-014", "ERR-016"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant"},
			Run: func(t *check.T) {
				r := t.Do(t.Client("tenant"), client.Request{Method: http.MethodPost, Path: api.P + "/customers", JSON: newCustomerBody()})
				statusMemberIsHTTPStatus(t, r, "status")
				shape.ProblemAnswer(t, r, shape.Want{Rule: "ERR-001", Status: http.StatusBadRequest, Code: "idempotency_key_invalid", MediaRule: "ERR-014", What: "POST /customers without Idempotency-Key"})
			},
		},
		{
			ID:    "checkorder/shape-401-problem-json",
			Title: "a 401 is application/problem+json with code api_key_authentication_failed",
			Rules: []string{"ERR-002", "ERR-014", "ERR-016"},
			Run: func(t *check.T) {
				r := t.Do(t.Anonymous(), client.Request{Method: http.MethodGet, Path: api.P + "/me"})
				statusMemberIsHTTPStatus(t, r, "status")
				shape.ProblemAnswer(t, r, shape.Want{Rule: "ERR-002", Status: http.StatusUnauthorized, Code: "api_key_authentication_failed", MediaRule: "ERR-014", What: "GET /me without a key"})
			},
		},
		{
			ID:    "checkorder/shape-403-scope-problem-json",
			Title: "a 403 for a missing scope is application/problem+json with code api_key_not_authorized",
			Rules: []string{"ERR-003", "ERR-016"},
			Needs: []string{"keys.read_only"},
			Run: func(t *check.T) {
				r := t.Do(t.Client("read_only"), client.Request{Method: http.MethodPatch, Path: api.P + "/customers/" + uuid.NewString(), JSON: map[string]any{}, IdempotencyKey: t.NewKey(), KeyRefusal: true})
				statusMemberIsHTTPStatus(t, r, "status")
				// Status, media type and body are ERR-003's own sentence: a scope
				// 403 uses problem+json.
				shape.ProblemAnswer(t, r, shape.Want{Rule: "ERR-003", Status: http.StatusForbidden, Code: "api_key_not_authorized", What: "PATCH /customers/{id} with keys.read_only"})
			},
		},
		{
			ID:     "checkorder/shape-429-problem-json",
			Alone:  check.WithControl,
			Title:  "a 429 is application/problem+json (ERR-009's own sentence for 429) with code rate_limited and Retry-After",
			Rules:  []string{"ERR-009", "ERR-026", "RATE-004"},
			Needs:  []string{"keys.umbrella"},
			Budget: &check.Budget{Routes: []string{"umbrella GET " + api.P + "/customers"}, Tenant: 601},
			Run: func(t *check.T) {
				// A route budget's 429 (one no other check spends): the
				// failed-auth budget's would take the source IP's whole
				// window on a real clock.
				c := t.Client("umbrella")
				list := client.Request{Method: http.MethodGet, Path: api.P + "/customers", Query: url.Values{"limit": {"1"}}}
				r := exhaust(t, func() *client.Response { return t.Do(c, list) })
				shape.ProblemAnswer(t, r, shape.Want{Rule: "RATE-004", Status: http.StatusTooManyRequests, Code: "rate_limited", ShapeRule: "ERR-009", What: "601st GET /customers of one key in a window"})
				if r.Header.Get("Retry-After") == "" {
					t.Errorf("ERR-009", "429 without Retry-After")
				}
			},
		},
		{
			ID:    "checkorder/shape-404-flat",
			Title: "a 404 is the flat application/json error with code null",
			Rules: []string{"ERR-004", "ERR-013", "ERR-037", "ERR-016"},
			Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				r := t.Do(t.Client("tenant"), client.Request{Method: http.MethodGet, Path: api.P + "/customers/" + uuid.NewString()})
				if m, err := r.JSON(); err == nil && r.Status == http.StatusNotFound && m["code"] != nil {
					t.FatalAt(r, "ERR-037", "GET /customers/{nonexistent}: 404 code is %v, want null (an unknown id)", m["code"])
				}
				statusMemberIsHTTPStatus(t, r, "status")
				shape.FlatAnswer(t, r, shape.Want{Rule: "ERR-004", ShapeRule: "ERR-013", MediaRule: "ERR-004", Status: http.StatusNotFound, What: "GET /customers/{nonexistent}"})
			},
		},
		{
			ID:    "checkorder/shape-422-envelope",
			Title: "a 422 is the envelope: success false, status_code 422, message, data.code and data.detail",
			Rules: []string{"ERR-006", "ERR-012", "ERR-016"},
			Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				r := t.Do(t.Client("tenant"), client.Request{Method: http.MethodGet, Path: api.P + "/onboarding/requirements",
					Query: url.Values{"level": {"ts-no-such-level"}}})
				// The 422 uses the envelope at all (ERR-006); its members are ERR-012's.
				if m, err := r.JSON(); err == nil && r.Status == http.StatusUnprocessableEntity && m["success"] == nil {
					t.FatalAt(r, "ERR-006", "GET /onboarding/requirements?level=ts-no-such-level: the 422 is not the envelope (no success member): %s", shape.Clip(r.Body))
				}
				statusMemberIsHTTPStatus(t, r, "status_code")
				shape.EnvelopeAnswer(t, r, shape.Want{Rule: "ERR-006", ShapeRule: "ERR-012", MediaRule: "ERR-006", Status: http.StatusUnprocessableEntity, Code: "unknown_level", What: "GET /onboarding/requirements?level=ts-no-such-level"})
			},
		},
	}
}

// statusMemberIsHTTPStatus judges the reading ERR-016 takes: an error
// body's status member (problem+json and flat status, the envelope's
// status_code) equals the HTTP status. A member absent or not a number is
// the body shape's own rule, judged by the shape helper after this.
func statusMemberIsHTTPStatus(t *check.T, r *client.Response, member string) {
	m, err := r.JSON()
	if err != nil {
		return
	}
	n, ok := m[member].(json.Number)
	if ok && n.String() != strconv.Itoa(r.Status) {
		t.FatalAt(r, "ERR-016", "the error body's %s member is %s, the HTTP status %d: they must be equal", member, n, r.Status)
	}
}
