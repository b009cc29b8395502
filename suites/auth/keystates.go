package auth

// Document 2, Authentication 9: besides unknown keys and wrong secrets, a
// key that is revoked, expired, not yet active, of a suspended tenant or
// with API access switched off is refused with the same plain 401
// api_key_authentication_failed, detail exactly "API key authentication
// failed." (the granular reason is recorded internally and never returned),
// and WWW-Authenticate: Bearer.

import "github.com/touchstone-harness/touchstone/internal/check"

// stateKey is a refusedKey row for a profile key held in a refused state.
func stateKey(profileKey, slug, title, rule string) refusedKey {
	return refusedKey{
		slug:  slug,
		title: title,
		rules: []string{rule, "AUTH-015", "AUTH-016", "AUTH-017", "AUTH-018", "ERR-139"},
		needs: []string{"keys." + profileKey},
		key: func(t *check.T) (string, string) {
			return profileKey, t.Profile().Key(profileKey)
		},
	}
}

var keyStates = []refusedKey{
	stateKey("revoked", "revoked-key", "a revoked key is 401 with detail exactly 'API key authentication failed.'", "AUTH-021"),
	stateKey("expired", "expired-key", "an expired key is 401 with detail exactly 'API key authentication failed.'", "AUTH-022"),
	stateKey("not_yet_active", "not-yet-active-key", "a key that is not yet active is 401 with detail exactly 'API key authentication failed.'", "AUTH-023"),
	stateKey("suspended_tenant", "suspended-tenant-key", "a key of a suspended tenant is 401 with detail exactly 'API key authentication failed.'", "AUTH-026"),
	stateKey("access_off", "access-off-key", "a key whose API access is switched off is 401 with detail exactly 'API key authentication failed.'", "AUTH-027"),
}

// keystatesChecks are the checks of keystates.go.
func keystatesChecks() []check.Check {
	return refusedChecks(keyStates)
}
