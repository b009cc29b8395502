package auth

// Document 2, Authentication 1: the key goes in X-Api-Key or in
// Authorization: Bearer; both forms authenticate equally.

import (
	"fmt"
	"net/http"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// headerformsChecks are the checks of headerforms.go.
func headerformsChecks() []check.Check {
	return []check.Check{
		{
			ID:    "auth/both-header-forms",
			Title: "the same key authenticates as X-Api-Key and as Authorization: Bearer",
			Rules: []string{"AUTH-003", "VER-001"},
			Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				key := t.Profile().Key("tenant")
				for _, path := range []string{api.P + "/me", api.P + "/customers"} {
					xk := t.Do(t.Client("tenant"), client.Request{Method: http.MethodGet, Path: path})
					shape.EnvelopeAnswer(t, xk, shape.Want{Rule: "AUTH-003", Status: http.StatusOK})
					br := t.Do(t.Anonymous(), client.Request{Method: http.MethodGet, Path: path, NoAuth: true,
						Header: http.Header{"Authorization": {"Bearer " + key}}})
					shape.EnvelopeAnswer(t, br, shape.Want{Rule: "AUTH-003", Status: http.StatusOK, What: fmt.Sprintf("GET %s with Authorization: Bearer <tenant key>", path), Why: "like X-Api-Key"})
				}
				// The same key reaches the v2 prefix (one surface, two prefixes).
				v2 := t.Do(t.Client("tenant"), client.Request{Method: http.MethodGet, Path: api.V2 + "/customers"})
				if v2.Status == http.StatusUnauthorized || v2.Status == http.StatusForbidden {
					t.Fatalf("VER-001", "GET /api/v2/public/customers with the tenant key: status %d; the same key authenticates both prefixes; body: %s", v2.Status, shape.Clip(v2.Body))
				}
			},
		},
		{
			ID:    "auth/bearer-scheme-case-insensitive",
			Title: "the Bearer scheme name is matched case-insensitively",
			Rules: []string{"AUTH-008"},
			Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				key := t.Profile().Key("tenant")
				for _, scheme := range []string{"bearer", "BEARER"} {
					r := t.Do(t.Anonymous(), client.Request{Method: http.MethodGet, Path: api.P + "/me", NoAuth: true,
						Header: http.Header{"Authorization": {scheme + " " + key}}})
					shape.StatusAnswer(t, r, shape.Want{Rule: "AUTH-008", Status: http.StatusOK, What: fmt.Sprintf("Authorization: %s <tenant key>", scheme), Continue: true})
				}
			},
		},
	}
}
