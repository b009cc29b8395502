package checkorder

// Document 2, Errors / Status meaning and Three body shapes: which body
// shape and content type each error status uses. problem+json
// (application/problem+json: type, title, status, detail, code) for 400,
// 401, 403 on scope and 429; the flat error (application/json: title,
// detail, status, code null) for every 404; the envelope (success false,
// status_code, message, data.code and data.detail) for operation 422s.

import (
	"net/http"
	"net/url"
	"time"

	"github.com/google/uuid"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/suites/api"
	"github.com/touchstone-harness/touchstone/suites/shape"
)

func init() {
	check.Register(
		check.Check{
			ID:     "checkorder/shape-400-problem-json",
			Title:  "a 400 (Idempotency-Key missing) is application/problem+json with type, title, status, detail and its code",
			Rules:  []string{"ERR-001", "ERR-014", "ERR-016"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant"},
			Run: func(t *check.T) {
				r := t.Do(t.Client("tenant"), client.Request{Method: http.MethodPost, Path: api.P + "/customers", JSON: newCustomerBody()})
				if r.Status != http.StatusBadRequest {
					t.Fatalf("ERR-001", "POST /customers without Idempotency-Key: status %d, want 400; body: %s", r.Status, shape.Clip(r.Body))
				}
				shape.ContentType(t, "ERR-014", r, shape.Problem)
				shape.ProblemJSON(t, "ERR-001", r, http.StatusBadRequest, "idempotency_key_invalid")
			},
		},
		check.Check{
			ID:    "checkorder/shape-401-problem-json",
			Title: "a 401 is application/problem+json with code api_key_authentication_failed",
			Rules: []string{"ERR-002", "ERR-014", "ERR-016"},
			Run: func(t *check.T) {
				t.SpendAuthFailures(1)
				r := t.Do(t.Anonymous(), client.Request{Method: http.MethodGet, Path: api.P + "/me"})
				if r.Status != http.StatusUnauthorized {
					t.Fatalf("ERR-002", "GET /me without a key: status %d, want 401; body: %s", r.Status, shape.Clip(r.Body))
				}
				shape.ContentType(t, "ERR-014", r, shape.Problem)
				shape.ProblemJSON(t, "ERR-002", r, http.StatusUnauthorized, "api_key_authentication_failed")
			},
		},
		check.Check{
			ID:    "checkorder/shape-403-scope-problem-json",
			Title: "a 403 for a missing scope is application/problem+json with code api_key_not_authorized",
			Rules: []string{"ERR-003", "ERR-014", "ERR-016"},
			Needs: []string{"keys.read_only"},
			Run: func(t *check.T) {
				t.SpendAuthFailures(1)
				r := t.Do(t.Client("read_only"), client.Request{Method: http.MethodPatch, Path: api.P + "/customers/" + uuid.NewString(), JSON: map[string]any{}, IdempotencyKey: t.NewKey()})
				if r.Status != http.StatusForbidden {
					t.Fatalf("ERR-003", "PATCH /customers/{id} with keys.read_only: status %d, want 403; body: %s", r.Status, shape.Clip(r.Body))
				}
				shape.ContentType(t, "ERR-014", r, shape.Problem)
				shape.ProblemJSON(t, "ERR-003", r, http.StatusForbidden, "api_key_not_authorized")
			},
		},
		check.Check{
			ID:     "checkorder/shape-429-problem-json",
			Title:  "a 429 is application/problem+json with code rate_limited and Retry-After",
			Rules:  []string{"ERR-009", "ERR-014", "ERR-026"},
			Labels: []string{check.NeedsControl},
			Run: func(t *check.T) {
				// The cheapest 429: the source IP's failed-auth budget (20 per
				// clock minute), from the start of a fresh window.
				t.NeedVirtualClock()
				if _, err := t.Control().NextMinute(t.Context(), time.Second); err != nil {
					t.NoVerdict(err)
				}
				var r *client.Response
				for i := 0; i < 21; i++ {
					r = t.Do(t.Anonymous(), client.Request{Method: http.MethodGet, Path: api.P + "/me"})
				}
				if r.Status != http.StatusTooManyRequests {
					t.Fatalf("RATE-012", "21st failed authentication in a window: status %d, want 429; body: %s", r.Status, shape.Clip(r.Body))
				}
				shape.ContentType(t, "ERR-014", r, shape.Problem)
				shape.ProblemJSON(t, "ERR-009", r, http.StatusTooManyRequests, "rate_limited")
				if r.Header.Get("Retry-After") == "" {
					t.Errorf("ERR-009", "429 without Retry-After")
				}
			},
		},
		check.Check{
			ID:    "checkorder/shape-404-flat",
			Title: "a 404 is the flat application/json error with code null",
			Rules: []string{"ERR-004", "ERR-013", "ERR-037", "ERR-016"},
			Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				r := t.Do(t.Client("tenant"), client.Request{Method: http.MethodGet, Path: api.P + "/customers/" + uuid.NewString()})
				if r.Status != http.StatusNotFound {
					t.Fatalf("ERR-004", "GET /customers/{nonexistent}: status %d, want 404; body: %s", r.Status, shape.Clip(r.Body))
				}
				shape.NotFound(t, "ERR-004", r)
			},
		},
		check.Check{
			ID:    "checkorder/shape-422-envelope",
			Title: "a 422 is the envelope: success false, status_code 422, message, data.code and data.detail",
			Rules: []string{"ERR-006", "ERR-012", "ERR-016", "ERR-007"},
			Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				r := t.Do(t.Client("tenant"), client.Request{Method: http.MethodGet, Path: api.P + "/onboarding/requirements",
					Query: url.Values{"level": {"ts-no-such-level"}}})
				if r.Status != http.StatusUnprocessableEntity {
					t.Fatalf("ERR-006", "GET /onboarding/requirements?level=ts-no-such-level: status %d, want 422 unknown_level; body: %s", r.Status, shape.Clip(r.Body))
				}
				shape.Refusal(t, "ERR-006", r, http.StatusUnprocessableEntity, "unknown_level")
			},
		},
	)
}
