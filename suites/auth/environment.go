package auth

// Document 2, Authentication 2: the environment segment of a key is one of
// live, sandbox, test, dev, key. A well-formed unknown key with any of the
// five is not a format error (plain 401, generic detail); another segment is
// (see auth/format-unknown-environment). Every key the target issued and
// accepts reports a public prefix whose segment is one of the five.

import (
	"net/http"
	"sort"
	"strings"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
)

// environments are the documented environment segments.
var environments = []string{"live", "sandbox", "test", "dev", "key"}

func isEnvironment(s string) bool {
	for _, e := range environments {
		if s == e {
			return true
		}
	}
	return false
}

// environmentChecks are the checks of environment.go.
func environmentChecks() []check.Check {
	return []check.Check{
		{
			ID:    "auth/format-known-environments",
			Title: "a well-formed unknown key with each documented environment segment (live, sandbox, test, dev, key) is a plain 401, not a format error",
			Rules: []string{"AUTH-012", "AUTH-019", "AUTH-015", "AUTH-016", "AUTH-017", "ERR-139"},
			Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				for _, env := range environments {
					p := tenantParts(t)
					p.env, p.hex, p.secret = env, randomHex(16), randomSecret()
					r := t.Do(withKey(t, "unknown", p.String()), client.Request{Method: http.MethodGet, Path: api.P + "/me"})
					// A format error is a 401 with a specific detail: a
					// refusal that is no 401 at all is the unknown key's
					// answer (AUTH-019), not a format error.
					rule := "AUTH-012"
					if r.Status != http.StatusUnauthorized {
						rule = "AUTH-019"
					}
					expect401(t, rule, r, false, "unknown well-formed key with environment segment "+env)
				}
			},
		},
		{
			ID:    "auth/issued-key-environment-segment",
			Title: "every accepted profile key reports an api_key_prefix whose environment segment is live, sandbox, test, dev or key",
			Rules: []string{"AUTH-012", "ME-002"},
			Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				var names []string
				for _, name := range []string{"tenant", "subject", "read_only", "unbound", "umbrella", "pascal_scopes", "unused_scopes", "no_environment", "other_tenant", "child"} {
					if t.Profile().Key(name) != "" {
						names = append(names, name)
					}
				}
				sort.Strings(names)
				for _, name := range names {
					data := me(t, "ME-002", t.Client(name))
					prefix := prefixOf(t, data, name)
					segs := strings.Split(prefix, "_")
					if len(segs) < 3 || !isEnvironment(segs[len(segs)-2]) {
						t.Errorf("AUTH-012", "GET /me with keys.%s: api_key_prefix %q has no environment segment among %v", name, prefix, environments)
					}
				}
			},
		},
	}
}
