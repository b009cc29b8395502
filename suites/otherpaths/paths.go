package otherpaths

import (
	"net/http"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// The three other paths (document 1, Other paths). Their bodies are not
// shown: an authorised key gets 200 with a JSON body (OTHER-005).
const (
	testPath = api.P + "/test"
)

func getPath(t *check.T, c *client.Client, path string) *client.Response {
	return t.Do(c, client.Request{Method: http.MethodGet, Path: path})
}

func ok(t *check.T, rule string, r *client.Response, what string) {
	shape.StatusAnswer(t, r, shape.Want{Rule: rule, Status: http.StatusOK, What: what})
	shape.ContentType(t, "OTHER-005", r, shape.JSON)
	if _, err := r.JSON(); err != nil {
		t.Fatalf("OTHER-005", "%s: %v", what, err)
	}
}

// pathsChecks are the checks of paths.go.
func pathsChecks() []check.Check {
	return []check.Check{
		{
			ID:    "otherpaths/read-paths",
			Title: "GET P/test and GET /api/public/partner/config answer a key holding onboarding:read",
			Rules: []string{"OTHER-001", "OTHER-002", "OTHER-005"},
			Needs: []string{"keys.read_only"},
			Run: func(t *check.T) {
				// read_only holds every *:read scope (onboarding:read among
				// them); umbrella holds onboarding:read besides its umbrellas.
				for _, key := range []string{"read_only", "umbrella", "tenant"} {
					if t.Profile().Key(key) == "" {
						continue
					}
					c := t.Client(key)
					ok(t, "OTHER-001", getPath(t, c, testPath), "GET "+testPath+" with keys."+key)
					ok(t, "OTHER-002", getPath(t, c, api.Config), "GET "+api.Config+" with keys."+key)
				}
			},
		},
		{
			ID:    "otherpaths/callback-needs-onboarding-write",
			Title: "GET /api/v1/verification/callback needs onboarding:write: a read-only key is 403 api_key_not_authorized",
			Rules: []string{"OTHER-003", "OTHER-005", "SCOPE-076"},
			Needs: []string{"keys.tenant", "keys.read_only"},
			Run: func(t *check.T) {
				ok(t, "OTHER-003", getPath(t, t.Client("tenant"), api.Callback), "GET "+api.Callback+" with keys.tenant")
				// read_only holds onboarding:read, not onboarding:write: one
				// refusal proves the rule.
				// The status says the route requires onboarding:write; the
				// refusal's body is a missing scope's (SCOPE-076).
				r := t.Do(t.Client("read_only"), client.Request{Method: http.MethodGet, Path: api.Callback, KeyRefusal: true})
				shape.ProblemAnswer(t, r, shape.Want{Rule: "OTHER-003", ShapeRule: "SCOPE-076", Status: http.StatusForbidden, Code: "api_key_not_authorized"})
			},
		},
		{
			ID:    "otherpaths/need-a-key",
			Title: "The config and callback paths outside the prefixes still need an API key: 401 without one",
			Rules: []string{"OTHER-004"},
			Run: func(t *check.T) {
				// The two paths outside the prefixes, one refusal each (P/test
				// lies inside the prefix: the auth checks cover it).
				paths := []string{api.Config, api.Callback}
				for _, p := range paths {
					r := getPath(t, t.Anonymous(), p)
					shape.ProblemAnswer(t, r, shape.Want{Rule: "OTHER-004", Status: http.StatusUnauthorized, Code: "api_key_authentication_failed"})
				}
			},
		},
	}
}
