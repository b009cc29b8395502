package check

import "github.com/touchstone-harness/touchstone/internal/traffic"

// failedAuthTable declares, for checks registered before Check.FailedAuth
// existed, how many failed authentications each causes against a
// conformant target and the most it holds at once (what it causes plus
// what it reserves in case the target refuses more); measured, and
// enforced by TestFailedAuthDeclarationsCoverWhatChecksCause. New checks set
// Check.FailedAuth instead. Checks that need a virtual clock are not
// listed: they run only where each check starts in a fresh window.
const authBudget = traffic.Budget

var failedAuthTable = map[string]authNeed{
	"auth/access-off-key":                           {1, 1},
	"auth/basic-scheme":                             {1, 1},
	"auth/bearer-scheme-case-insensitive":           {0, 2},
	"auth/both-header-forms":                        {0, 2},
	"auth/both-headers":                             {1, 1},
	"auth/child-key-bound-to-child":                 {0, 3},
	"auth/duplicate-authorization":                  {1, 1},
	"auth/duplicate-x-api-key":                      {1, 1},
	"auth/expired-key":                              {1, 1},
	"auth/format-15-hex":                            {1, 1},
	"auth/format-17-hex":                            {1, 1},
	"auth/format-known-environments":                {5, 5},
	"auth/format-missing-dot":                       {1, 1},
	"auth/format-unknown-environment":               {1, 1},
	"auth/format-uppercase-hex":                     {1, 1},
	"auth/ip-outside-allowlist-refused":             {1, 1},
	"auth/issued-key-environment-segment":           {0, 10},
	"auth/me-prefix-every-key":                      {0, 13},
	"auth/me-umbrella-never-shown":                  {0, 1},
	"auth/me-unbound-key":                           {0, 1},
	"auth/no-environment-key-works":                 {0, 1},
	"auth/no-key":                                   {1, 1},
	"auth/not-yet-active-key":                       {1, 1},
	"auth/other-environment-key":                    {1, 1},
	"auth/other-scheme":                             {1, 1},
	"auth/pascal-case-scopes-honoured":              {0, 4},
	"auth/read-only-key-reads-allowed":              {0, 5},
	"auth/read-only-key-writes-refused":             {1, 1},
	"auth/revoked-key":                              {1, 1},
	"auth/rotation-keeps-scopes-and-allowlist":      {2, 12},
	"auth/rotation-overlap-both-keys-work":          {2, 2},
	"auth/rotation-past-overlap-old-refused":        {2, 2},
	"auth/route-scopes-accounts":                    {13, 13},
	"auth/route-scopes-deposits-withdrawals":        {19, 19},
	"auth/route-scopes-end-customers":               {19, 19},
	"auth/end-customers-customer-id-is-parent":      {0, 2},
	"auth/route-scopes-exchange":                    {7, 7},
	"auth/route-scopes-fees":                        {3, 3},
	"auth/route-scopes-identity-customers":          {6, 6},
	"auth/route-scopes-onboarding":                  {10, 10},
	"auth/route-scopes-other-paths":                 {3, 3},
	"auth/route-scopes-payout-batches":              {5, 5},
	"auth/route-scopes-v2-other":                    {6, 6},
	"auth/route-scopes-webhooks":                    {10, 10},
	"auth/subject-key-create-acts-for-subject":      {0, 2},
	"auth/subject-key-not-mine-is-404":              {0, 4},
	"auth/suspended-tenant-key":                     {1, 1},
	"auth/umbrella-key-expanded-scopes":             {2, 7},
	"auth/umbrella-key-not-payout-batches":          {2, 3},
	"auth/unbound-key-by-id-404":                    {0, 4},
	"auth/unbound-key-create-refused":               {0, 3},
	"auth/unbound-key-lists-empty":                  {0, 2},
	"auth/unknown-key":                              {1, 1},
	"auth/unlisted-customer-subpath-default-scopes": {1, 2},
	"auth/unlisted-top-level-path-no-plan":          {1, 3},
	"auth/unused-scopes-key":                        {1, 2},
	"auth/wrong-secret":                             {1, 1},
	"checkorder/code-api-key-authentication-failed": {1, 1},
	"checkorder/code-api-key-not-authorized":        {1, 1},
	"checkorder/earliest-of-many":                   {1, 3},
	"checkorder/key-before-idempotency-key":         {2, 2},
	"checkorder/key-before-rate-limit":              {1, 1},
	"checkorder/shape-401-problem-json":             {1, 1},
	"checkorder/shape-403-scope-problem-json":       {1, 1},
	"checkorder/tenant-header-before-key":           {0, 2},
	"headers/correlation-on-every-response":         {2, 2},
	"headers/no-deprecation-headers":                {1, 1},
	"headers/tenant-header-before-key":              {0, 2},
	"headers/v1-keys-snake-case":                    {2, 2},
	"otherpaths/callback-needs-onboarding-write":    {1, 1},
	"otherpaths/need-a-key":                         {2, 2},
	"otherpaths/v2-writes-scopes":                   {2, 2},
	"schemas/responses-match-documents":             {1, 1},
}

// refusalsFirstTable lists the checks of failedAuthTable that cause every
// failed authentication before their first request that spends a budget
// (Check.RefusalsFirst for the others): measured against the faithful
// sandbox by TestFailedAuthDeclarationsCoverWhatChecksCause.
var refusalsFirstTable = map[string]bool{
	"auth/access-off-key":                           true,
	"auth/basic-scheme":                             true,
	"auth/expired-key":                              true,
	"auth/format-15-hex":                            true,
	"auth/format-17-hex":                            true,
	"auth/format-known-environments":                true,
	"auth/format-missing-dot":                       true,
	"auth/format-unknown-environment":               true,
	"auth/format-uppercase-hex":                     true,
	"auth/ip-outside-allowlist-refused":             true,
	"auth/no-key":                                   true,
	"auth/not-yet-active-key":                       true,
	"auth/other-environment-key":                    true,
	"auth/other-scheme":                             true,
	"auth/revoked-key":                              true,
	"auth/route-scopes-accounts":                    true,
	"auth/route-scopes-deposits-withdrawals":        true,
	"auth/route-scopes-end-customers":               true,
	"auth/route-scopes-exchange":                    true,
	"auth/route-scopes-fees":                        true,
	"auth/route-scopes-identity-customers":          true,
	"auth/route-scopes-onboarding":                  true,
	"auth/route-scopes-other-paths":                 true,
	"auth/route-scopes-payout-batches":              true,
	"auth/route-scopes-v2-other":                    true,
	"auth/route-scopes-webhooks":                    true,
	"auth/suspended-tenant-key":                     true,
	"auth/unknown-key":                              true,
	"auth/wrong-secret":                             true,
	"checkorder/code-api-key-authentication-failed": true,
	"checkorder/code-api-key-not-authorized":        true,
	"checkorder/shape-401-problem-json":             true,
	"otherpaths/need-a-key":                         true,
}

// refusalsFirst tells whether c causes every failed authentication before
// its first request that spends a budget.
func (c *Check) refusalsFirst() bool { return c.RefusalsFirst || refusalsFirstTable[c.ID] }

// DeclaresRefusalsFirst is refusalsFirst, for the declarations' test.
func (c *Check) DeclaresRefusalsFirst() bool { return c.refusalsFirst() }

// authNeed is a check's failed authentications: caused against a
// conformant target, and held at most.
type authNeed struct{ cause, hold int }

// failedAuth is what the check holds at most (what the lane packs by).
func (c *Check) failedAuth() int {
	if c.FailedAuth > 0 {
		return max(c.FailedAuth, c.FailedAuthHold)
	}
	return failedAuthTable[c.ID].hold
}

// failedAuthCause is what the check causes against a conformant target.
func (c *Check) failedAuthCause() int {
	if c.FailedAuth > 0 {
		return c.FailedAuth
	}
	return failedAuthTable[c.ID].cause
}

// failedAuthHeld is what the check reserves against target: what it holds
// at most on a virtual clock, where a window costs nothing; on a real
// clock only what it causes against a conformant target (a check holding
// 13 in case the target refuses keys it should accept, and causing none,
// waited for a window with 13 free and left it unused; what a target
// refuses beyond the plan meets its 429, which the transport waits out).
func (c *Check) failedAuthHeld(target *Target) int {
	if target == nil || target.VirtualClock() {
		return c.failedAuth()
	}
	return c.failedAuthCause()
}

// DeclaredFailedAuth is what a check declares it causes and holds at most.
func (c *Check) DeclaredFailedAuth() (cause, hold int) { return c.failedAuthCause(), c.failedAuth() }
