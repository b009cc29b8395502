package check

import "github.com/touchstone-harness/touchstone/internal/authpace"

// failedAuthTable declares, for checks registered before Check.FailedAuth
// existed, the most failed authentications each causes or reserves (in
// case the target refuses) against a conformant target (measured, and
// enforced by TestFailedAuthDeclarationsCoverWhatChecksCause). New checks set
// Check.FailedAuth instead. Checks that need a virtual clock are not
// listed: they run only where each check starts in a fresh window.
const authBudget = authpace.Budget

var failedAuthTable = map[string]int{
	"auth/access-off-key":                           3,
	"auth/basic-scheme":                             2,
	"auth/bearer-scheme-case-insensitive":           2,
	"auth/both-header-forms":                        2,
	"auth/both-headers":                             2,
	"auth/child-key-bound-to-child":                 3,
	"auth/duplicate-authorization":                  2,
	"auth/duplicate-x-api-key":                      2,
	"auth/expired-key":                              3,
	"auth/format-15-hex":                            2,
	"auth/format-17-hex":                            2,
	"auth/format-known-environments":                5,
	"auth/format-missing-dot":                       2,
	"auth/format-unknown-environment":               2,
	"auth/format-uppercase-hex":                     2,
	"auth/ip-outside-allowlist-refused":             2,
	"auth/issued-key-environment-segment":           10,
	"auth/me-prefix-every-key":                      11,
	"auth/me-umbrella-never-shown":                  1,
	"auth/me-unbound-key":                           1,
	"auth/no-environment-key-works":                 1,
	"auth/no-key":                                   2,
	"auth/not-yet-active-key":                       3,
	"auth/other-environment-key":                    3,
	"auth/other-scheme":                             2,
	"auth/pascal-case-scopes-honoured":              4,
	"auth/read-only-key-reads-allowed":              5,
	"auth/read-only-key-writes-refused":             4,
	"auth/revoked-key":                              3,
	"auth/rotation-keeps-scopes-and-allowlist":      12,
	"auth/rotation-overlap-both-keys-work":          2,
	"auth/rotation-past-overlap-old-refused":        2,
	"auth/route-scopes-accounts":                    5,
	"auth/route-scopes-deposits-withdrawals":        2,
	"auth/route-scopes-end-customers":               12,
	"auth/route-scopes-fees":                        2,
	"auth/route-scopes-identity-customers":          6,
	"auth/route-scopes-onboarding":                  16,
	"auth/route-scopes-other-paths":                 4,
	"auth/route-scopes-payout-batches":              4,
	"auth/route-scopes-v2-other":                    5,
	"auth/route-scopes-webhooks":                    12,
	"auth/subject-key-not-mine-is-404":              4,
	"auth/suspended-tenant-key":                     3,
	"auth/umbrella-key-expanded-scopes":             9,
	"auth/umbrella-key-not-payout-batches":          2,
	"auth/unbound-key-by-id-404":                    4,
	"auth/unbound-key-create-refused":               3,
	"auth/unbound-key-lists-empty":                  2,
	"auth/unknown-key":                              3,
	"auth/unlisted-customer-subpath-default-scopes": 2,
	"auth/unlisted-top-level-path-no-plan":          3,
	"auth/unused-scopes-key":                        4,
	"auth/wrong-secret":                             3,
	"checkorder/code-api-key-authentication-failed": 1,
	"checkorder/code-api-key-not-authorized":        1,
	"checkorder/key-before-idempotency-key":         3,
	"checkorder/key-before-rate-limit":              1,
	"checkorder/shape-401-problem-json":             1,
	"checkorder/shape-403-scope-problem-json":       1,
	"checkorder/tenant-header-before-key":           2,
	"headers/correlation-on-every-response":         4,
	"headers/no-deprecation-headers":                2,
	"headers/tenant-header-before-key":              1,
	"headers/v1-keys-snake-case":                    2,
	"otherpaths/callback-needs-onboarding-write":    2,
	"otherpaths/need-a-key":                         3,
	"otherpaths/v2-writes-scopes":                   4,
	"schemas/responses-match-documents":             1,
}

func (c *Check) failedAuth() int {
	if c.FailedAuth > 0 {
		return c.FailedAuth
	}
	return failedAuthTable[c.ID]
}
