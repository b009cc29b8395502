package check

import "github.com/touchstone-harness/touchstone/internal/traffic"

// authBudget is the failed-authentication budget of one window.
const authBudget = traffic.Budget

// refusalsFirst tells whether c causes every failed authentication before
// its first request that spends a budget.
func (c *Check) refusalsFirst() bool { return c.RefusalsFirst }

// DeclaresRefusalsFirst is refusalsFirst, for the declarations' test.
func (c *Check) DeclaresRefusalsFirst() bool { return c.refusalsFirst() }

// failedAuth is what the check holds at most (what the lane packs by).
func (c *Check) failedAuth() int { return max(c.FailedAuth, c.FailedAuthHold) }

// failedAuthCause is what the check causes against a conformant target.
func (c *Check) failedAuthCause() int { return c.FailedAuth }

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
