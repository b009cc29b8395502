package auth

// Document 2, Authentication 9 and 10: a request from an IP outside the
// key's allowlist is 403 api_key_not_authorized (problem+json).

import (
	"net/http"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
)

// ipallowlistChecks are the checks of ipallowlist.go.
func ipallowlistChecks() []check.Check {
	return []check.Check{
		{
			ID:    "auth/ip-outside-allowlist-refused",
			Title: "a key whose IP allowlist excludes the caller is refused with 403 api_key_not_authorized",
			Rules: []string{"AUTH-028", "ERR-023", "ERR-003"},
			Needs: []string{"keys.ip_restricted"},
			Run: func(t *check.T) {
				c := t.Client("ip_restricted")
				// One refusal proves the rule (each is a failed authentication
				// against the source's budget).
				r := t.Do(c, client.Request{Method: http.MethodGet, Path: api.P + "/customers"})
				expect403(t, "AUTH-028", r, "GET "+api.P+"/customers with keys.ip_restricted")
			},
		},
	}
}
