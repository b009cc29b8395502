package headers

// Document 2, Authentication 6 (headers table) and Errors / problem+json
// codes: X-Tenant-Id is refused with 400 (problem+json, title "Invalid
// tenant header.", no code) if present at all, even empty, even with a
// valid key, and before the key is checked.

import (
	"net/http"

	"github.com/google/uuid"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

const tenantTitle = "Invalid tenant header."

func tenantRefused(t *check.T, rule string, r *client.Response, what string) {
	if m, err := r.JSON(); err == nil && r.Status == http.StatusBadRequest && m["code"] != nil && t.Declares("ERR-018") {
		t.FatalAt(r, "ERR-018", "%s: the X-Tenant-Id refusal carries code %v; it has none", what, m["code"])
	}
	m := shape.ProblemAnswer(t, r, shape.Want{Rule: rule, Status: http.StatusBadRequest, ShapeRule: "TEN-005", What: what, Why: "X-Tenant-Id is refused whenever present"})
	if m["title"] != tenantTitle {
		t.Errorf("TEN-004", "%s: title %v, want %q", what, m["title"], tenantTitle)
	}
}

func tenantHeader(v string) http.Header { return http.Header{"X-Tenant-Id": {v}} }

// tenantheaderChecks are the checks of tenantheader.go.
func tenantheaderChecks() []check.Check {
	return []check.Check{
		{
			ID:    "headers/tenant-header-refused",
			Title: "X-Tenant-Id with a valid key is 400 problem+json, title 'Invalid tenant header.', no code",
			Rules: []string{"TEN-001", "TEN-004", "TEN-005", "ERR-018"},
			Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				c := t.Client("tenant")
				// A plausible tenant id and an arbitrary word: the value never matters.
				for _, v := range []string{uuid.NewString(), "ts-tenant"} {
					r := t.Do(c, client.Request{Method: http.MethodGet, Path: api.P + "/me", Header: tenantHeader(v)})
					tenantRefused(t, "TEN-001", r, "GET /me with a valid key and X-Tenant-Id")
				}
			},
		},
		{
			ID:    "headers/tenant-header-empty-refused",
			Title: "an empty X-Tenant-Id is refused like any other value",
			Rules: []string{"TEN-001", "TEN-004", "ERR-018"},
			Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				r := t.Do(t.Client("tenant"), client.Request{Method: http.MethodGet, Path: api.P + "/me", Header: tenantHeader("")})
				tenantRefused(t, "TEN-001", r, "GET /me with an empty X-Tenant-Id")
			},
		},
		{
			ID:    "headers/tenant-header-before-key",
			Title: "X-Tenant-Id is refused before the key is checked: 400 without a key, and with a key lacking the route's scope",
			Rules: []string{"TEN-002", "ORDER-005"},
			Needs: []string{"keys.read_only"},
			Run: func(t *check.T) {
				// Without a key: the check order's own sentence for this
				// case (ORDER-005: 400, not 401).
				r := t.Do(t.Anonymous(), client.Request{Method: http.MethodGet, Path: api.P + "/me", Header: tenantHeader(uuid.NewString())})
				if r.Status == http.StatusUnauthorized {
					t.Fatalf("ORDER-005", "GET /me without a key and with X-Tenant-Id: 401; the X-Tenant-Id refusal comes before the key check")
				}
				tenantRefused(t, "ORDER-005", r, "GET /me without a key and with X-Tenant-Id")
				// The key check includes its scopes (step 3 answers 401 or
				// 403): a read-only key on a write is refused for the header.
				r = t.Do(t.Client("read_only"), client.Request{Method: http.MethodPatch, Path: api.P + "/customers/" + uuid.NewString(), JSON: map[string]any{}, IdempotencyKey: t.NewKey(), Header: tenantHeader(uuid.NewString())})
				if r.Status == http.StatusForbidden {
					t.Fatalf("TEN-002", "PATCH /customers/{id} with keys.read_only and X-Tenant-Id: 403; the X-Tenant-Id refusal comes before the key (and its scopes) is checked")
				}
				tenantRefused(t, "TEN-002", r, "PATCH /customers/{id} with keys.read_only and X-Tenant-Id")
			},
		},
		{
			ID:     "headers/tenant-header-every-route",
			Title:  "X-Tenant-Id is refused on writes and on the v2 prefix too",
			Rules:  []string{"TEN-003", "TEN-001", "ERR-018"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant"},
			Run: func(t *check.T) {
				c := t.Client("tenant")
				h := tenantHeader(uuid.NewString())
				// The refusal at all (TEN-001) on the plainest route first: a
				// target that never refuses stops here, not at the routes.
				me := t.Do(c, client.Request{Method: http.MethodGet, Path: api.P + "/me", Header: h})
				tenantRefused(t, "TEN-001", me, "GET /me with X-Tenant-Id")
				post := t.Do(c, client.Request{Method: http.MethodPost, Path: api.P + "/customers", IdempotencyKey: t.NewKey(), Header: h,
					JSON: map[string]any{"email": "ts-" + uuid.NewString() + "@example.com", "jurisdiction": "GB"}})
				tenantRefused(t, "TEN-003", post, "POST /customers with X-Tenant-Id")
				patch := t.Do(c, client.Request{Method: http.MethodPatch, Path: api.P + "/customers/" + uuid.NewString(), IdempotencyKey: t.NewKey(), Header: h, JSON: map[string]any{}})
				tenantRefused(t, "TEN-003", patch, "PATCH /customers/{id} with X-Tenant-Id")
				v2 := t.Do(c, client.Request{Method: http.MethodGet, Path: api.V2 + "/customers", Header: h})
				tenantRefused(t, "TEN-003", v2, "GET /api/v2/public/customers with X-Tenant-Id")
			},
		},
	}
}
