package checkorder

// Document 2, Errors / problem+json codes: each row that a caller can
// trigger, with its status and code (or its documented absence of one).

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// problemcodesChecks are the checks of problemcodes.go.
func problemcodesChecks() []check.Check {
	return []check.Check{
		{
			ID:    "checkorder/code-correlation-id-invalid",
			Title: "problem+json row correlation_id_invalid: 400 for a duplicated or over-long X-Correlation-Id",
			Rules: []string{"ERR-017", "ERR-014"},
			Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				variants := map[string][]string{
					"two X-Correlation-Id lines":       {"ts-corr-1", "ts-corr-2"},
					"a 129-character X-Correlation-Id": {tooLongCorrelation},
				}
				for _, what := range slices.Sorted(maps.Keys(variants)) {
					v := variants[what]
					r := t.Do(t.Client("tenant"), client.Request{Method: http.MethodGet, Path: api.P + "/me", Header: http.Header{"X-Correlation-Id": v}})
					shape.ProblemAnswer(t, r, shape.Want{Rule: "ERR-017", MediaRule: "ERR-014", Status: http.StatusBadRequest, Code: "correlation_id_invalid", What: fmt.Sprintf("GET /me with %s", what)})
				}
			},
		},
		{
			ID:    "checkorder/code-tenant-header",
			Title: "problem+json row X-Tenant-Id: 400, title 'Invalid tenant header.', no code",
			Rules: []string{"ERR-018", "TEN-004"},
			Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				r := t.Do(t.Client("tenant"), client.Request{Method: http.MethodGet, Path: api.P + "/customers", Header: http.Header{"X-Tenant-Id": {uuid.NewString()}}})
				// Status, media type, members and no code: ERR-018; the title
				// is TEN-004's own sentence too, judged under it.
				m := shape.ProblemAnswer(t, r, shape.Want{Rule: "ERR-018", Status: http.StatusBadRequest, What: "GET /customers with X-Tenant-Id"})
				if m["title"] != "Invalid tenant header." {
					t.Fatalf("TEN-004", "GET /customers with X-Tenant-Id: title %v, want %q", m["title"], "Invalid tenant header.")
				}
			},
		},
		{
			ID:    "checkorder/code-idempotency-key-invalid",
			Title: "problem+json row idempotency_key_invalid: 400 for a duplicated, short or space-holding Idempotency-Key",
			Rules: []string{"ERR-019", "ERR-014"},
			Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				variants := map[string][]string{
					"two Idempotency-Key lines":          {t.NewKey(), t.NewKey()},
					"a 257-character Idempotency-Key":    {"ts-" + strings.Repeat("k", 254)},
					"an Idempotency-Key holding a space": {"ts-key with-space"},
				}
				for _, what := range slices.Sorted(maps.Keys(variants)) {
					v := variants[what]
					r := t.Do(t.Client("tenant"), client.Request{Method: http.MethodPatch, Path: api.P + "/customers/" + uuid.NewString(), JSON: map[string]any{},
						Header: http.Header{"Idempotency-Key": v}})
					shape.ProblemAnswer(t, r, shape.Want{Rule: "ERR-019", MediaRule: "ERR-014", Status: http.StatusBadRequest, Code: "idempotency_key_invalid", What: fmt.Sprintf("PATCH /customers/{id} with %s", what)})
				}
			},
		},
		{
			ID:    "checkorder/code-api-key-authentication-failed",
			Title: "problem+json row api_key_authentication_failed: 401 for a key not accepted",
			Rules: []string{"ERR-022", "ERR-014"},
			Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				r := t.Do(t.Anonymous().With("tenant", wrongSecretKey(t)), client.Request{Method: http.MethodGet, Path: api.P + "/customers"})
				shape.ProblemAnswer(t, r, shape.Want{Rule: "ERR-022", MediaRule: "ERR-014", Status: http.StatusUnauthorized, Code: "api_key_authentication_failed", What: "GET /customers with a wrong key secret"})
			},
		},
		{
			ID:    "checkorder/code-api-key-not-authorized",
			Title: "problem+json row api_key_not_authorized: 403 for an IP outside the key's allowlist",
			Rules: []string{"ERR-023", "ERR-014"},
			Needs: []string{"keys.ip_restricted"},
			Run: func(t *check.T) {
				r := t.Do(t.Client("ip_restricted"), client.Request{Method: http.MethodGet, Path: api.P + "/customers"})
				shape.ProblemAnswer(t, r, shape.Want{Rule: "ERR-023", MediaRule: "ERR-014", Status: http.StatusForbidden, Code: "api_key_not_authorized", What: "GET /customers with keys.ip_restricted"})
			},
		},
		{
			ID:     "checkorder/code-idempotency-key-reused",
			Title:  "problem+json row idempotency_key_reused: 409 for the same key on another method and path",
			Rules:  []string{"ERR-024", "ERR-014"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant"},
			Run: func(t *check.T) {
				key := t.NewKey()
				createCustomer(t, newCustomerBody(), key)
				r := t.Do(t.Client("tenant"), client.Request{Method: http.MethodPatch, Path: api.P + "/customers/" + uuid.NewString(), JSON: map[string]any{}, IdempotencyKey: key})
				shape.ProblemAnswer(t, r, shape.Want{Rule: "ERR-024", MediaRule: "ERR-014", Status: http.StatusConflict, Code: "idempotency_key_reused", What: "PATCH reusing the key of an earlier POST /customers"})
			},
		},
	}
}
