package auth

import (
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"regexp"
	"strings"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/profile"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// P is the v1 partner prefix (document 1, Endpoints / Common rules).

// genericDetail is the one detail every non-shape key failure carries
// (document 2, Authentication 9).
const genericDetail = "API key authentication failed."

// keyParts is a key split along the documented format
// <product_marker>_<environment>_<16 lowercase hex>.<secret> (Authentication 2).
type keyParts struct{ marker, env, hex, secret string }

// splitKey splits a profile key; ok is false when it does not follow the format.
func splitKey(k string) (keyParts, bool) {
	prefix, secret, ok := strings.Cut(k, ".")
	if !ok {
		return keyParts{}, false
	}
	segs := strings.Split(prefix, "_")
	if len(segs) < 3 {
		return keyParts{}, false
	}
	n := len(segs)
	return keyParts{marker: strings.Join(segs[:n-2], "_"), env: segs[n-2], hex: segs[n-1], secret: secret}, true
}

func (k keyParts) prefix() string { return k.marker + "_" + k.env + "_" + k.hex }
func (k keyParts) String() string { return k.prefix() + "." + k.secret }

// tenantParts splits the profile's tenant key (or subject key) or skips.
func tenantParts(t *check.T) keyParts {
	for _, name := range []string{"tenant", "subject"} {
		if k := t.Profile().Key(name); k != "" {
			if p, ok := splitKey(k); ok {
				return p
			}
			t.Skipf("keys.%s does not follow <marker>_<environment>_<16 hex>.<secret>; cannot derive malformed keys", name)
		}
	}
	t.Skipf("profile has neither keys.tenant nor keys.subject")
	return keyParts{}
}

func randomHex(n int) string {
	b := make([]byte, (n+1)/2)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)[:n]
}

// randomSecret is a well-formed secret no key has.
func randomSecret() string { return "tsWrong" + randomHex(32) }

// unknownKey is a well-formed key with the tenant key's marker and
// environment that no one was issued.
func unknownKey(t *check.T) string {
	p := tenantParts(t)
	p.hex, p.secret = randomHex(16), randomSecret()
	return p.String()
}

// wrongSecretKey is the tenant key's public prefix with another secret.
func wrongSecretKey(t *check.T) string {
	p := tenantParts(t)
	p.secret = randomSecret()
	return p.String()
}

// withKey is a client sending key (given in full) as X-Api-Key.
func withKey(t *check.T, name, key string) *client.Client {
	return t.Anonymous().With(name, key)
}

// masked renders a value that may be a key without its secret.
func masked(v any) any {
	if s, ok := v.(string); ok {
		if p, _, found := strings.Cut(s, "."); found {
			return p + ".***"
		}
	}
	return v
}

// expect401 asserts the documented authentication failure: 401
// problem+json api_key_authentication_failed, WWW-Authenticate: Bearer, and
// the detail generic (specific false) or a specific one (specific true).
func expect401(t *check.T, rule string, r *client.Response, specific bool, what string) {
	if code := shape.BodyCode(r); r.Status == http.StatusUnauthorized && code != "" && code != "api_key_authentication_failed" {
		// One code per status: a 401 naming its reason breaks ERR-139 and
		// AUTH-018 (when the check judges them), besides the shape.
		var judged []string
		for _, rl := range []string{"ERR-139", "AUTH-018"} {
			if t.Declares(rl) {
				judged = append(judged, rl)
			}
		}
		// The code is the failure: the body built around it is not
		// judged further.
		for i, rl := range judged {
			if i == len(judged)-1 {
				t.FatalAt(r, rl, "%s: 401 code is %q, want api_key_authentication_failed (one code per status)", what, code)
			}
			t.ErrorAt(r, rl, "%s: 401 code is %q, want api_key_authentication_failed (one code per status)", what, code)
		}
	}
	m := shape.ProblemAnswer(t, r, shape.Want{Rule: rule, Status: http.StatusUnauthorized, Code: "api_key_authentication_failed", ShapeRule: "AUTH-017", What: what})
	wwwAuthenticate(t, r, what)
	detail, _ := m["detail"].(string)
	switch {
	case specific && detail == genericDetail:
		t.Errorf(rule, "%s: detail is the generic %q; a request-shape mistake gets a specific detail", what, genericDetail)
	case !specific && detail != genericDetail:
		t.Errorf(rule, "%s: detail is %q, want exactly %q (the granular reason is never returned)", what, detail, genericDetail)
		if t.Declares("ERR-139") && rule != "ERR-139" {
			t.Errorf("ERR-139", "%s: detail is %q: the granular reason is returned", what, detail)
		}
		if t.Declares("AUTH-019") && rule != "AUTH-019" {
			t.Errorf("AUTH-019", "%s: detail is %q; an unknown key gets exactly %q", what, detail, genericDetail)
		}
	}
}

// wwwAuthenticate asserts WWW-Authenticate on a 401: present (AUTH-015) and
// a challenge whose scheme is Bearer, matched case-insensitively and
// optionally followed by parameters (AUTH-016).
func wwwAuthenticate(t *check.T, r *client.Response, what string) {
	vals := r.Header.Values("WWW-Authenticate")
	if len(vals) == 0 {
		t.Errorf("AUTH-015", "%s: 401 carries no WWW-Authenticate header, want the Bearer scheme", what)
		return
	}
	for _, v := range vals {
		scheme, _, _ := strings.Cut(strings.TrimSpace(v), " ")
		if strings.EqualFold(scheme, "Bearer") {
			return
		}
	}
	t.Errorf("AUTH-016", "%s: 401 carries WWW-Authenticate %q, want a value beginning with the scheme Bearer (parameters may follow)", what, vals)
}

// expect403 asserts 403 problem+json api_key_not_authorized: the status
// under rule (and SCOPE-076, the general scope rule, when the check
// declares it), the media type under ERR-003 and the code under ERR-023
// when the check declares them (the error catalogue's sentences giving a
// key-step 403 its body), else under rule.
func expect403(t *check.T, rule string, r *client.Response, what string) {
	// The code at another status is the error catalogue's sentence
	// (ERR-023, through ProblemAnswer), not the scope rule's.
	if rule != "SCOPE-076" && t.Declares("SCOPE-076") && shape.BodyCode(r) != "api_key_not_authorized" {
		shape.StatusAnswer(t, r, shape.Want{Rule: "SCOPE-076", Status: http.StatusForbidden, What: what, Why: "a missing scope gives 403 api_key_not_authorized at the key step", Continue: true})
	}
	w := shape.Want{Rule: rule, Status: http.StatusForbidden, Code: "api_key_not_authorized", What: what}
	if t.Declares("ERR-023") {
		w.ShapeRule = "ERR-023"
	}
	if t.Declares("ERR-003") {
		w.MediaRule = "ERR-003"
	}
	shape.ProblemAnswer(t, r, w)
}

// publicPrefix is the part of a profile key before the dot.
func publicPrefix(key string) string { return profile.PublicPrefix(key) }

var uuidRe = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

func isUUID(s string) bool { return uuidRe.MatchString(s) }
