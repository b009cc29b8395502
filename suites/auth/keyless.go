package auth

// Document 1, Endpoints / Common rules ("Every route under P requires
// API-key authentication") and document 2, Authentication 1 ("Every route
// under /api/v1/partner, /api/v2/public requires an API key"): each
// documented route template of the two prefixes, sent without any key, is
// refused at the key step: 401 problem+json api_key_authentication_failed
// with a specific detail (no key is a request-shape mistake, Authentication
// 9) and WWW-Authenticate: Bearer.
//
// One check per endpoint table of scopes_routes.go (the same rows, the
// paths outside the two prefixes left to otherpaths/need-a-key), one
// request per method and route template. Every request is a failed
// authentication against the source's budget (20 per 60 s, document 2,
// Limits), which the traffic plan paces on a real clock (it sorts a
// request without a key as one when it is sent). A route refused without
// a key changes nothing; the writes carry the table's unbindable body and
// an Idempotency-Key all the same, so that nothing but the missing key
// can refuse them.

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// keylessOnly are the documented routes a table of scopes_routes.go does
// not hold, for they require no scope, by the table they go with: GET
// P/me needs any valid key (document 1, Identity and customers).
var keylessOnly = map[string][]routeRow{
	"identity-customers": {{method: http.MethodGet, path: api.P + "/me"}},
}

// keylessRows are a table's rows under P or V2 (and its keylessOnly
// routes), one per method and route template.
func keylessRows(tb routeTable, f fixtures) []routeRow {
	var out []routeRow
	seen := map[string]bool{}
	for _, r := range append(slices.Clone(keylessOnly[tb.slug]), tb.rows(f)...) {
		if prefixRule(r.path) == "" || seen[r.String()] {
			continue
		}
		seen[r.String()] = true
		out = append(out, r)
	}
	return out
}

// prefixRule is the rule saying a route under path's prefix requires a
// key: AUTH-001 (document 1) under P, AUTH-002 (document 2) under V2; ""
// for a path under neither.
func prefixRule(path string) string {
	switch {
	case strings.HasPrefix(path, api.P+"/"):
		return "AUTH-001"
	case strings.HasPrefix(path, api.V2+"/"):
		return "AUTH-002"
	}
	return ""
}

// judgeKeyless judges one keyless answer: refused with 401 (under the
// prefix's rule), problem+json api_key_authentication_failed (AUTH-017),
// WWW-Authenticate: Bearer (AUTH-015, AUTH-016) and a specific detail
// (AUTH-002). A route that is not refused is judged under its prefix's
// rule only: the shape of an answer that should not exist says nothing
// more.
func judgeKeyless(t *check.T, row routeRow, r *client.Response) {
	what := fmt.Sprintf("%s without a key", row)
	if !shape.StatusAnswer(t, r, shape.Want{Rule: prefixRule(row.path), Status: http.StatusUnauthorized, What: what, Why: "every route under the prefix requires an API key", Continue: true}) {
		return
	}
	// Refused: the body is the documented problem+json (type, title,
	// status, detail, the code).
	m := shape.ProblemAnswer(t, r, shape.Want{Rule: prefixRule(row.path), Status: http.StatusUnauthorized, Code: "api_key_authentication_failed", ShapeRule: "AUTH-017", What: what})
	wwwAuthenticate(t, r, what)
	if detail, _ := m["detail"].(string); strings.TrimSpace(detail) == "" || detail == genericDetail {
		t.ErrorAt(r, "AUTH-002", "%s: 401 detail is %q; a request without a key gets a specific detail", what, detail)
	}
}

// keylessChecks are the checks of keyless.go.
func keylessChecks() []check.Check {
	var cs []check.Check
	for _, tb := range routeTables {
		tb := tb
		rows := keylessRows(tb, fixtures{})
		if len(rows) == 0 {
			continue
		}
		var rules []string
		if slices.ContainsFunc(rows, func(r routeRow) bool { return prefixRule(r.path) == "AUTH-001" }) {
			rules = append(rules, "AUTH-001")
		}
		rules = append(rules, "AUTH-002", "AUTH-015", "AUTH-016", "AUTH-017")
		cs = append(cs, check.Check{
			ID:    "auth/keyless-refused-" + tb.slug,
			Title: "each route of the " + tb.title + " table refuses a request without a key: 401 problem+json api_key_authentication_failed, a specific detail, WWW-Authenticate: Bearer",
			Rules: rules,
			Run: func(t *check.T) {
				rows := keylessRows(tb, scopeFixtures(t))
				// A target whose keys are live gets no keyless write without
				// --allow-live either: a server that failed to require the
				// key would carry it out on a live system.
				if role := t.Profile().LiveRole(); role != "" && !t.Target().AllowLive {
					reads := slices.DeleteFunc(slices.Clone(rows), func(r routeRow) bool { return r.method != http.MethodGet })
					if len(reads) < len(rows) {
						t.Logf("the target's keys are live (keys.%s) and --allow-live is not given: %d write routes sent no keyless request", role, len(rows)-len(reads))
					}
					if rows = reads; len(rows) == 0 {
						t.Skipf("the target's keys are live (keys.%s): a keyless write is sent only with --allow-live", role)
					}
				}
				for _, row := range rows {
					req := client.Request{Method: row.method, Path: row.path, Query: row.query, JSON: row.body, KeyRefusal: true}
					if row.method != http.MethodGet {
						req.IdempotencyKey = t.NewKey()
					}
					judgeKeyless(t, row, t.Do(t.Anonymous(), req))
				}
			},
		})
	}
	return cs
}
