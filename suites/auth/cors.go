package auth

// Document 2, Authentication 7: server-to-server only; cross-origin
// requests are allowed only from allowlisted origins (the dashboard), and
// other browser origins fail at the CORS preflight with no API error.

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// otherOrigin is an origin no target allowlists.
const otherOrigin = "https://ts-not-allowlisted.example"

func preflight(t *check.T, origin string) *client.Response {
	return t.Do(t.Anonymous(), client.Request{Method: http.MethodOptions, Path: api.P + "/me", NoAuth: true, Header: http.Header{
		"Origin":                         {origin},
		"Access-Control-Request-Method":  {"GET"},
		"Access-Control-Request-Headers": {"x-api-key"},
	}})
}

// allowHeaders lists the Access-Control-Allow-* headers of a response.
func allowHeaders(r *client.Response) []string {
	var out []string
	for k := range r.Header {
		if strings.HasPrefix(strings.ToLower(k), "access-control-allow-") {
			out = append(out, k+": "+strings.Join(r.Header.Values(k), ","))
		}
	}
	return out
}

// corsChecks are the checks of cors.go.
func corsChecks() []check.Check {
	return []check.Check{
		{
			ID:    "auth/cors-allowlisted-origin-preflight",
			Title: "a preflight from the allowlisted origin passes with Access-Control-Allow-Origin equal to it, without a key",
			Rules: []string{"CORS-001", "CORS-003", "CORS-005"},
			Needs: []string{"cors_allowed_origin"},
			Run: func(t *check.T) {
				origin := t.Profile().CORSAllowedOrigin
				r := preflight(t, origin)
				if r.Status == http.StatusUnauthorized {
					t.Errorf("CORS-005", "preflight from allowlisted origin %s: status 401; a preflight is answered without an API key", origin)
				}
				if r.Status/100 != 2 {
					t.Fatalf("CORS-003", "preflight from allowlisted origin %s: status %d, want 2xx; body: %s", origin, r.Status, shape.Clip(r.Body))
				}
				if got := r.Header.Values("Access-Control-Allow-Origin"); len(got) != 1 || got[0] != origin {
					t.Fatalf("CORS-001", "preflight from allowlisted origin %s: Access-Control-Allow-Origin %q, want exactly %q", origin, got, origin)
				}
				if m := r.Header.Get("Access-Control-Allow-Methods"); m != "" && !strings.Contains(strings.ToUpper(m), "GET") && m != "*" {
					t.Errorf("CORS-003", "preflight from allowlisted origin: Access-Control-Allow-Methods %q does not allow the requested GET", m)
				}
			},
		},
		{
			ID:    "auth/cors-other-origin-preflight-fails",
			Title: "a preflight from a non-allowlisted origin fails: no Access-Control-Allow-* headers and no API error body",
			Rules: []string{"CORS-002", "CORS-003", "CORS-005"},
			Run: func(t *check.T) {
				r := preflight(t, otherOrigin)
				if got := r.Header.Values("Access-Control-Allow-Origin"); len(got) > 0 {
					t.Fatalf("CORS-002", "preflight from %s: Access-Control-Allow-Origin %q, want none (the origin is not allowlisted)", otherOrigin, got)
				}
				if ah := allowHeaders(r); len(ah) > 0 {
					t.Errorf("CORS-003", "preflight from %s carries %v, want no Access-Control-Allow-* header", otherOrigin, ah)
				}
				if r.Status == http.StatusUnauthorized || r.Status >= 500 {
					t.Errorf("CORS-005", "preflight from %s: status %d; a preflight never yields 401 or a server error", otherOrigin, r.Status)
				}
				if ct := r.ContentType(); ct == "application/problem+json" || (ct == "application/json" && len(r.Body) > 0) {
					t.Errorf("CORS-002", "preflight from %s answered an API error body (%s): %s", otherOrigin, ct, shape.Clip(r.Body))
				}
			},
		},
		{
			ID:    "auth/cors-other-origin-request-no-allow-origin",
			Title: "a server-to-server request carrying a non-allowlisted Origin is processed but gets no Access-Control-Allow-Origin",
			Rules: []string{"CORS-004", "CORS-001"},
			Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				r := t.Do(t.Client("tenant"), client.Request{Method: http.MethodGet, Path: api.P + "/me", Header: http.Header{"Origin": {otherOrigin}}})
				shape.StatusAnswer(t, r, shape.Want{Rule: "CORS-004", Status: http.StatusOK, What: fmt.Sprintf("GET /me with Origin %s and a valid key", otherOrigin), Why: "processed normally"})
				if got := r.Header.Values("Access-Control-Allow-Origin"); len(got) > 0 {
					t.Errorf("CORS-001", "GET /me with Origin %s: Access-Control-Allow-Origin %q, want none", otherOrigin, got)
				}
			},
		},
	}
}
