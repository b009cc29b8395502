package auth

// Document 2, Authentication 2 and 9: a well-formed key that is not
// accepted (unknown, wrong secret, minted for another environment) is 401
// with exactly the generic detail; a key with no environment recorded works
// everywhere.

import (
	"hash/fnv"
	"net/http"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// refusedKey is one well-formed key the target must refuse generically.
type refusedKey struct {
	slug, title string
	rules       []string
	needs       []string
	key         func(t *check.T) (name, key string)
}

var refusedKeys = []refusedKey{
	{"unknown-key", "an unknown well-formed key is 401 with detail exactly 'API key authentication failed.'",
		[]string{"AUTH-019", "AUTH-015", "AUTH-016", "AUTH-017", "AUTH-018", "ERR-139"}, []string{"keys.tenant"},
		func(t *check.T) (string, string) { return "unknown", unknownKey(t) }},
	{"wrong-secret", "a known public prefix with a wrong secret is 401 with detail exactly 'API key authentication failed.'",
		[]string{"AUTH-020", "AUTH-015", "AUTH-016", "AUTH-017", "AUTH-018", "ERR-139"}, []string{"keys.tenant"},
		func(t *check.T) (string, string) { return "tenant", wrongSecretKey(t) }},
	{"other-environment-key", "a key minted for another environment is a plain 401 with detail exactly 'API key authentication failed.'",
		[]string{"AUTH-013", "AUTH-015", "AUTH-016", "AUTH-017", "AUTH-018", "ERR-139"}, []string{"keys.other_environment"},
		func(t *check.T) (string, string) { return "other_environment", t.Profile().Key("other_environment") }},
}

// onePath picks the one read a refusal check sends its key to, spread over
// paths by the check's slug: every refusal is a failed authentication
// against the source's budget (20 a minute), one proves the check's rule,
// and the checks together still reach each of the paths.
func onePath(slug string, paths ...string) string {
	h := fnv.New32a()
	h.Write([]byte(slug))
	return paths[h.Sum32()%uint32(len(paths))]
}

// refusedChecks are the refused-key checks of a table: each key is 401
// with the generic detail on one read (a v1 read, a v1 list or the v2
// customers list, by onePath).
func refusedChecks(keys []refusedKey) []check.Check {
	var cs []check.Check
	for _, rk := range keys {
		cs = append(cs, refusedCheck(rk))
	}
	return cs
}

func refusedCheck(rk refusedKey) check.Check {
	return check.Check{
		ID:    "auth/" + rk.slug,
		Title: rk.title,
		Rules: rk.rules,
		Needs: rk.needs,
		Run: func(t *check.T) {
			name, key := rk.key(t)
			c := withKey(t, name, key)
			path := onePath(rk.slug, api.P+"/me", api.P+"/customers", api.V2+"/customers")
			r := t.Do(c, client.Request{Method: http.MethodGet, Path: path})
			expect401(t, rk.rules[0], r, false, rk.slug+" on GET "+path)
		},
	}
}

// genericChecks are the checks of generic.go.
func genericChecks() []check.Check {
	return append(refusedChecks(refusedKeys), check.Check{
		ID:    "auth/no-environment-key-works",
		Title: "a key with no environment recorded authenticates",
		Rules: []string{"AUTH-014"},
		Needs: []string{"keys.no_environment"},
		Run: func(t *check.T) {
			c := t.Client("no_environment")
			r := t.Do(c, client.Request{Method: http.MethodGet, Path: api.P + "/me"})
			shape.EnvelopeAnswer(t, r, shape.Want{Rule: "AUTH-014", Status: http.StatusOK, What: "GET /me with keys.no_environment"})
		},
	})
}
