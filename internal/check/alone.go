package check

import "strings"

// Solitude says when a check must have the target to itself (Check.Alone).
type Solitude int

const (
	NotAlone Solitude = iota
	// Always: it reads what any other check's writes change (a
	// tenant-wide list and its totals, a key's enabled webhook endpoints,
	// what reaches a webhook endpoint) or probes a budget on purpose.
	Always
	// WithControl: it is alone for what it does through the control API
	// (moves the virtual clock, changes a global setting or a shared
	// fixture), so on a target without that API it runs beside the rest.
	WithControl
)

// InGroup puts every check of cs without a serial group in group (an
// area whose checks all read the same fixture's rows or balances).
func InGroup(group string, cs []Check) []Check {
	for i := range cs {
		if cs[i].SerialGroup == "" {
			cs[i].SerialGroup = group
		}
	}
	return cs
}

// AloneEach makes every check of cs alone on any target (an area whose
// every check counts what reaches a shared endpoint, or probes a budget).
func AloneEach(cs []Check) []Check {
	for i := range cs {
		cs[i].Alone = Always
	}
	return cs
}

// aloneOn tells whether c must have target to itself: a check alone
// Always, or WithControl on a target with the control API (or none given).
func (c *Check) aloneOn(target *Target) bool {
	switch c.Alone {
	case Always:
		return true
	case WithControl:
		return target == nil || target.Control != nil
	}
	return c.HasLabel(Alone)
}

// ProbesBudget tells whether an alone check spends a budget on purpose and
// judges the 429s: its requests are never held, and its 429s are its own
// (traffic.AsProbe). Those are the checks
// of the rate-limit rules (RATE-*) and those that declare the budgets they
// spend to get a 429 to judge another rule (Check.Budget: the check order
// around it, its shape, its headers). Other alone checks (a property, a
// webhook check) are paced like any other.
func (c *Check) ProbesBudget() bool {
	if !c.aloneOn(nil) {
		return false
	}
	if c.Budget != nil {
		return true
	}
	for _, r := range c.Rules {
		if strings.HasPrefix(r, "RATE-") {
			return true
		}
	}
	return false
}
