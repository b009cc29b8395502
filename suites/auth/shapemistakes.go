package auth

// Document 2, Authentication 1, 2 and 9: request-shape mistakes (no key,
// both headers, a duplicated header, a non-Bearer scheme, a key that breaks
// the format) are 401 api_key_authentication_failed with a specific detail,
// and every 401 carries WWW-Authenticate: Bearer.

import (
	"encoding/base64"
	"net/http"
	"strings"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
)

// mistake is one malformed way of presenting a key.
type mistake struct {
	slug, title, rule string
	// also are further rules the mistake proves besides rule.
	also []string
	// header builds the auth headers from the tenant key and its parts.
	header func(t *check.T, key string) http.Header
}

var mistakes = []mistake{
	{"no-key", "a request without any key is 401 with a specific detail", "AUTH-002", nil,
		func(*check.T, string) http.Header { return http.Header{} }},
	{"both-headers", "X-Api-Key and Authorization: Bearer together are 401 with a specific detail, even with the same valid key", "AUTH-004", nil,
		func(_ *check.T, k string) http.Header {
			return http.Header{"X-Api-Key": {k}, "Authorization": {"Bearer " + k}}
		}},
	{"duplicate-x-api-key", "two X-Api-Key header lines are 401 with a specific detail, even with the same valid key", "AUTH-005", nil,
		func(_ *check.T, k string) http.Header { return http.Header{"X-Api-Key": {k, k}} }},
	{"duplicate-authorization", "two Authorization: Bearer header lines are 401 with a specific detail", "AUTH-006", nil,
		func(_ *check.T, k string) http.Header {
			return http.Header{"Authorization": {"Bearer " + k, "Bearer " + k}}
		}},
	{"basic-scheme", "Authorization with the Basic scheme is 401 with a specific detail", "AUTH-007", nil,
		func(_ *check.T, k string) http.Header {
			return http.Header{"Authorization": {"Basic " + base64.StdEncoding.EncodeToString([]byte(k+":"))}}
		}},
	{"other-scheme", "Authorization with a scheme other than Bearer carrying the key is 401 with a specific detail", "AUTH-007", nil,
		func(_ *check.T, k string) http.Header { return http.Header{"Authorization": {"ApiKey " + k}} }},
	{"format-uppercase-hex", "a key whose 16 hex digits are uppercase is a format error: 401 with a specific detail", "AUTH-010", nil,
		func(t *check.T, _ string) http.Header {
			p := tenantParts(t)
			up := strings.ToUpper(p.hex)
			if up == p.hex { // all digits: force one uppercase letter
				up = "A" + p.hex[1:]
			}
			p.hex, p.secret = up, randomSecret()
			return http.Header{"X-Api-Key": {p.String()}}
		}},
	{"format-15-hex", "a key with 15 hex digits is a format error: 401 with a specific detail", "AUTH-010", nil,
		func(t *check.T, _ string) http.Header {
			p := tenantParts(t)
			p.hex, p.secret = p.hex[:len(p.hex)-1], randomSecret()
			return http.Header{"X-Api-Key": {p.String()}}
		}},
	{"format-17-hex", "a key with 17 hex digits is a format error: 401 with a specific detail", "AUTH-010", nil,
		func(t *check.T, _ string) http.Header {
			p := tenantParts(t)
			p.hex, p.secret = p.hex+"a", randomSecret()
			return http.Header{"X-Api-Key": {p.String()}}
		}},
	{"format-missing-dot", "a key without the dot between prefix and secret is a format error: 401 with a specific detail", "AUTH-010", nil,
		func(t *check.T, _ string) http.Header {
			p := tenantParts(t)
			return http.Header{"X-Api-Key": {p.prefix() + randomSecret()}}
		}},
	{"format-unknown-environment", "a key whose environment segment is not live, sandbox, test, dev or key (svc_prod_...) is a format error: 401 with a specific detail", "AUTH-012", nil,
		func(t *check.T, _ string) http.Header {
			p := tenantParts(t)
			p.env, p.secret = "prod", randomSecret()
			return http.Header{"X-Api-Key": {p.String()}}
		}},
}

// shapemistakesChecks are the checks of shapemistakes.go.
func shapemistakesChecks() []check.Check {
	var cs []check.Check
	for _, m := range mistakes {
		m := m
		cs = append(cs, check.Check{
			ID:    "auth/" + m.slug,
			Title: m.title,
			// AUTH-009 (a specific detail is any text but the generic
			// one) is the reading expect401 applies, not a rule a failure
			// can be reported under: the detail's decision is m.rule's.
			Rules: append(append([]string{m.rule}, m.also...), "AUTH-015", "AUTH-016", "AUTH-017", "AUTH-018"),
			Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				key := t.Profile().Key("tenant")
				h := m.header(t, key)
				path := onePath(m.slug, api.P+"/me", api.P+"/customers")
				// One refusal at the key step. A mistake that carries the
				// valid key itself (both headers, a duplicated header) is
				// marked so: the plan would otherwise take it for a
				// request that passes the key step.
				r := t.Do(t.Anonymous(), client.Request{Method: http.MethodGet, Path: path, NoAuth: true, Header: h, KeyRefusal: true})
				expect401(t, m.rule, r, true, m.slug+" on GET "+path)
			},
		})
	}
	return cs
}
