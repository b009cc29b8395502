package auth

// Document 2, Authentication 9 and 10, and Limits (key rotation overlap):
// rotation mints a new key (new public prefix, new secret), keeps the old
// key valid for an overlap window (default 24 hours, at most 720 hours) and
// preserves scopes and allowlist; a key rotated past its overlap is a plain
// 401 with the generic detail.
//
// The profile names the two keys of one rotation: keys.rotated_old (still
// within its overlap) and keys.rotated_new (its successor); they are never
// used up. Time uses them up, though: the overlap is at most 720 hours, and
// a virtual clock moves days in every run, so against a target with the
// control API (the dashboard's part) the checks make a pair of their own
// like the profile's, with the longest overlap, and one long-lived sandbox
// serves any number of runs. The end of the window is observed on a
// rotation of the check's own with a virtual clock. Secrets are never
// printed: keys are compared through their public prefixes (GET /me
// api_key_prefix) and through answers.

import (
	"fmt"
	"net/http"
	"time"

	"github.com/google/uuid"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// defaultOverlap is the rotation overlap window when none is chosen, and
// maxOverlap the longest one (Limits).
const (
	defaultOverlap = 24 * time.Hour
	maxOverlap     = 720 * time.Hour
)

// rotatedPair returns clients for the two keys of a rotation still within
// its overlap, and the two keys: the profile's keys.rotated_old and
// keys.rotated_new, or with the control API a pair made now like them.
func rotatedPair(t *check.T) (old, succ *client.Client, oldKey, newKey string) {
	if t.ServesControl() {
		oldKey, newKey, err := t.Control().RotationPair(t.Context(), publicPrefix(t.Profile().Key("rotated_old")), maxOverlap)
		if err != nil {
			t.NoVerdict(err)
		}
		return withKey(t, "control_rotated_old", oldKey), withKey(t, "control_rotated_new", newKey), oldKey, newKey
	}
	return t.Client("rotated_old"), t.Client("rotated_new"), t.Profile().Key("rotated_old"), t.Profile().Key("rotated_new")
}

// meOK reads GET /me with a key that must authenticate and returns data.
func meOK(t *check.T, rule string, c *client.Client, what string) map[string]any {
	r := t.Do(c, client.Request{Method: http.MethodGet, Path: api.P + "/me"})
	return shape.EnvelopeAnswer(t, r, shape.Want{Rule: rule, Status: http.StatusOK, What: fmt.Sprintf("GET /me with keys.%s (%s)", c.KeyName, what)})
}

// prefixOf reads api_key_prefix from /me data.
func prefixOf(t *check.T, data map[string]any, keyName string) string {
	p, ok := data["api_key_prefix"].(string)
	if !ok || p == "" {
		t.Fatalf("ME-002", "GET /me with keys.%s: api_key_prefix is %v, want a string", keyName, masked(data["api_key_prefix"]))
	}
	return p
}

// probe is one request whose answer shows whether a key holds a scope.
type probe struct {
	what string
	req  func(t *check.T) client.Request
}

// send sends p with c's key; refused marks it sent to be refused at the
// key step (client.Request.KeyRefusal).
func (p probe) send(t *check.T, c *client.Client, refused bool) *client.Response {
	r := p.req(t)
	r.KeyRefusal = refused
	return t.Do(c, r)
}

// reachProbes span several scopes; nothing they send changes state (writes
// target nonexistent ids or carry an unbindable body). Against the sandbox's
// rotated pair (onboarding:*, end-customers:read) one probe is refused for
// scope, the last of the slice but one (end-customers:write): one refusal
// per key, each a failed authentication against the source's budget, shows
// that the successor gained no scope. That probe is sent marked as a
// refusal at the key step (scopeRefused).
func reachProbes(parent string) []probe {
	return []probe{
		{"GET /customers (onboarding:read)", func(*check.T) client.Request {
			return client.Request{Method: http.MethodGet, Path: api.P + "/customers"}
		}},
		{"PATCH /customers/{nonexistent} (onboarding:write)", func(t *check.T) client.Request {
			return client.Request{Method: http.MethodPatch, Path: api.P + "/customers/" + uuid.NewString(), JSON: map[string]any{}, IdempotencyKey: t.NewKey()}
		}},
		{"GET /customers/{parent}/end-customers (end-customers:read)", func(*check.T) client.Request {
			return client.Request{Method: http.MethodGet, Path: api.P + "/customers/" + parent + "/end-customers"}
		}},
		{"POST /customers/{nonexistent}/end-customers (end-customers:write)", func(t *check.T) client.Request {
			return client.Request{Method: http.MethodPost, Path: api.P + "/customers/" + uuid.NewString() + "/end-customers", JSON: []any{}, IdempotencyKey: t.NewKey()}
		}},
		{"GET V2/customers (onboarding:read)", func(*check.T) client.Request {
			return client.Request{Method: http.MethodGet, Path: api.V2 + "/customers"}
		}},
	}
}

// scopeRefused tells whether the profile's rotated pair, as the sandbox
// issues it (onboarding:*, end-customers:read), lacks the scope of probe
// i of reachProbes: end-customers:write. A target whose pair holds it lets
// the request through all the same; the mark only sorts it.
func scopeRefused(i int) bool { return i == 3 }

// refusedByScope tells whether a response is the key-step 403.
func refusedByScope(r *client.Response) bool {
	if r.Status != http.StatusForbidden || r.ContentType() != shape.Problem {
		return false
	}
	m, err := r.JSON()
	return err == nil && m["code"] == "api_key_not_authorized"
}

// rotationChecks are the checks of rotation.go.
func rotationChecks() []check.Check {
	return []check.Check{
		{
			ID:    "auth/rotation-overlap-both-keys-work",
			Title: "within the overlap window both keys of a rotation authenticate; the new key has a new public prefix and a new secret",
			Rules: []string{"AUTH-032", "ME-004", "AUTH-020", "ME-002", "AUTH-015", "AUTH-016", "AUTH-017"},
			Needs: []string{"keys.rotated_old", "keys.rotated_new"},
			Run: func(t *check.T) {
				old, succ, oldKey, newKey := rotatedPair(t)
				oldPrefix := prefixOf(t, meOK(t, "AUTH-032", old, "the old key of a rotation, within its overlap"), old.KeyName)
				newPrefix := prefixOf(t, meOK(t, "AUTH-032", succ, "the key the rotation minted"), succ.KeyName)
				// Each /me first reports its own key's prefix: the comparison
				// of the two rests on it.
				for _, x := range []struct{ name, key, got string }{{old.KeyName, oldKey, oldPrefix}, {succ.KeyName, newKey, newPrefix}} {
					if want := publicPrefix(x.key); x.got != want {
						t.Fatalf("ME-004", "GET /me with keys.%s: api_key_prefix is %q, want the key's public prefix %q", x.name, x.got, want)
					}
				}
				if oldPrefix == newPrefix {
					t.Errorf("AUTH-032", "keys.%s and keys.%s report the same api_key_prefix %q; rotation mints a new prefix", old.KeyName, succ.KeyName, oldPrefix)
				}
				// A new secret: each prefix with the other key's secret is a
				// wrong secret (it would authenticate were the secrets equal).
				po, okO := splitKey(oldKey)
				pn, okN := splitKey(newKey)
				if !okO || !okN {
					t.Skipf("keys.rotated_old or keys.rotated_new does not follow <marker>_<environment>_<16 hex>.<secret>")
				}
				if po.secret == pn.secret {
					t.Fatalf("AUTH-032", "keys.%s and keys.%s carry the same secret: the rotation did not mint a new secret", old.KeyName, succ.KeyName)
				}
				crossed := []struct{ name, key, what string }{
					{old.KeyName, po.prefix() + "." + pn.secret, "the old prefix with the new key's secret"},
					{succ.KeyName, pn.prefix() + "." + po.secret, "the new prefix with the old key's secret"},
				}
				for _, x := range crossed {
					r := t.Do(withKey(t, x.name, x.key), client.Request{Method: http.MethodGet, Path: api.P + "/me"})
					if r.Status == http.StatusOK {
						// The two secrets differ (above): the prefix was let in
						// with a secret that is not its own.
						t.FatalAt(r, "AUTH-020", "GET /me with %s authenticates: a known prefix with a wrong secret is 401 api_key_authentication_failed", x.what)
					}
					expect401(t, "AUTH-020", r, false, "GET /me with "+x.what)
				}
			},
		},
		{
			ID:     "auth/rotation-keeps-scopes-and-allowlist",
			Title:  "the key a rotation minted has the old key's binding, scopes and allowlist: the same answers on routes of several scopes",
			Rules:  []string{"AUTH-033", "ME-002"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.rotated_old", "keys.rotated_new", "customers.parent"},
			Run: func(t *check.T) {
				old, succ, _, _ := rotatedPair(t)
				parent := t.Customer("parent")
				// Allowlist: both keys authenticate from this address (the old
				// one within its overlap), and they act for the same subject.
				mo := meOK(t, "AUTH-033", old, "within its overlap")
				mn := meOK(t, "AUTH-033", succ, "the successor")
				for _, f := range []string{"subject_binding", "customer_id"} {
					if mo[f] != mn[f] {
						t.Errorf("AUTH-033", "GET /me: %s is %v for keys.rotated_old and %v for keys.rotated_new; rotation preserves the key", f, mo[f], mn[f])
					}
				}
				do, dn := delegated(t, "ME-002", mo), delegated(t, "ME-002", mn)
				if !sameSet(do, dn) {
					t.Errorf("AUTH-033", "GET /me: delegated_customer_ids is %v for keys.rotated_old and %v for keys.rotated_new", do, dn)
				}
				// Scopes: the same answers, probe by probe.
				probes := reachProbes(parent)
				refused, passed := 0, 0
				for i, p := range probes {
					ro := p.send(t, old, scopeRefused(i))
					rn := p.send(t, succ, scopeRefused(i))
					switch {
					case ro.Status == http.StatusUnauthorized || rn.Status == http.StatusUnauthorized:
						t.Fatalf("AUTH-033", "%s: keys.rotated_old answered %d and keys.rotated_new %d; both must authenticate within the overlap", p.what, ro.Status, rn.Status)
					case refusedByScope(ro) != refusedByScope(rn):
						t.Errorf("AUTH-033", "%s: keys.rotated_old answered %d and keys.rotated_new %d; a rotated key keeps the old key's scopes (both refused with 403 api_key_not_authorized or both allowed)", p.what, ro.Status, rn.Status)
					case ro.Status != rn.Status:
						t.Errorf("AUTH-033", "%s: keys.rotated_old answered %d and keys.rotated_new %d; a rotated key reaches what the old one reaches", p.what, ro.Status, rn.Status)
					case refusedByScope(ro):
						refused++
					default:
						passed++
					}
				}
				t.Logf("the rotated keys agree on %d probes: %d allowed, %d refused for scope", len(probes), passed, refused)
			},
		},
		{
			ID:     "auth/rotation-past-overlap-old-refused",
			Alone:  check.WithControl,
			Title:  "a rotation with the default overlap keeps the old key valid for 24 hours and refuses it with a plain 401 after; the successor keeps working (control API, virtual clock)",
			Rules:  []string{"AUTH-024", "AUTH-032", "AUTH-015", "AUTH-016", "ERR-139", "ME-002", "AUTH-017"},
			Labels: []string{check.NeedsControl},
			Needs:  []string{"keys.tenant"},
			Run: func(t *check.T) {
				t.NeedVirtualClock()
				ctl := t.Control()
				// A rotation of its own (the dashboard's part, played by the
				// control API), so that the profile's pair is never used up.
				oldKey, newKey, err := ctl.RotationPair(t.Context(), publicPrefix(t.Profile().Key("tenant")), 0)
				if err != nil {
					t.NoVerdict(err)
				}
				old, succ := withKey(t, "control_rotated_old", oldKey), withKey(t, "control_rotated_new", newKey)
				op := prefixOf(t, meOK(t, "AUTH-032", old, "the old key right after rotation"), "control_rotated_old")
				np := prefixOf(t, meOK(t, "AUTH-032", succ, "the key the rotation minted"), "control_rotated_new")
				if op == np {
					t.Errorf("AUTH-032", "the two keys of a rotation report the same api_key_prefix %q; rotation mints a new prefix", op)
				}
				advance := func(d time.Duration) {
					if _, err := ctl.Advance(t.Context(), d); err != nil {
						t.NoVerdict(err)
					}
				}
				// One second before the default overlap ends: still valid.
				advance(defaultOverlap - time.Second)
				meOK(t, "AUTH-032", old, "23h59m59s after a rotation with the default overlap of 24 hours")
				// One second after it ends: a plain 401 on every route.
				advance(2 * time.Second)
				for _, path := range []string{api.P + "/me", api.P + "/customers"} {
					r := t.Do(old, client.Request{Method: http.MethodGet, Path: path})
					if r.Status == http.StatusOK {
						t.Fatalf("AUTH-024", "GET %s with the old key 24h0m1s after a rotation with the default overlap: 200, want 401 (the overlap is 24 hours)", path)
					}
					expect401(t, "AUTH-024", r, false, "GET "+path+" with the old key past its overlap")
				}
				meOK(t, "AUTH-032", succ, "the successor, after the old key's overlap ended")
				n := t.Do(succ, client.Request{Method: http.MethodGet, Path: api.P + "/customers"})
				shape.StatusAnswer(t, n, shape.Want{Rule: "AUTH-032", Status: http.StatusOK, What: "GET /customers with the successor after the old key's overlap ended", Continue: true})
			},
		},
	}
}

// sameSet tells whether two string lists hold the same elements.
func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	m := map[string]int{}
	for _, x := range a {
		m[x]++
	}
	for _, x := range b {
		m[x]--
		if m[x] < 0 {
			return false
		}
	}
	return true
}
