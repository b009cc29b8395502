package auth

// Document 2, Authentication 9 and 10: a request from an IP outside the
// key's allowlist is 403 api_key_not_authorized (problem+json).

import (
	"net/http"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/suites/api"
)

func init() {
	check.Register(check.Check{
		ID:    "auth/ip-outside-allowlist-refused",
		Title: "a key whose IP allowlist excludes the caller is refused with 403 api_key_not_authorized",
		Rules: []string{"AUTH-028", "ERR-023", "ERR-003"},
		Needs: []string{"keys.ip_restricted"},
		Run: func(t *check.T) {
			c := t.Client("ip_restricted")
			t.SpendAuthFailures(2)
			for _, path := range []string{api.P + "/me", api.P + "/customers"} {
				r := t.Do(c, client.Request{Method: http.MethodGet, Path: path})
				expect403(t, "AUTH-028", r, "GET "+path+" with keys.ip_restricted")
			}
		},
	})
}
