package check

import (
	"slices"
	"strings"
)

// Solitude says when a check must have the target to itself (Check.Alone).
type Solitude int

const (
	NotAlone Solitude = iota
	// Always: it reads what any other check's writes change (a tenant-wide
	// list and its totals, a key's webhook endpoints, what reaches one) or
	// probes a budget on purpose.
	Always
	// WithControl: alone for what it does through the control API (moves
	// the virtual clock, changes a global setting or a shared fixture); on
	// a target without that API it runs beside the rest.
	WithControl
)

// InGroup puts every check of cs without a serial group in group (an area
// whose checks all read the same fixture's rows or balances).
func InGroup(group string, cs []Check) []Check {
	for i := range cs {
		if cs[i].SerialGroup == "" {
			cs[i].SerialGroup = group
		}
	}
	return cs
}

// AloneEach makes every check of cs alone on any target.
func AloneEach(cs []Check) []Check {
	for i := range cs {
		cs[i].Alone = Always
	}
	return cs
}

// aloneOn tells whether c must have target to itself: Always, or
// WithControl on a target with the control API (or none given).
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
// judges the 429s (traffic.AsProbe): a check of the rate-limit rules
// (RATE-*), or one that declares a Budget to get a 429 that judges another
// rule. Other alone checks are paced like any other.
func (c *Check) ProbesBudget() bool {
	rate := func(r string) bool { return strings.HasPrefix(r, "RATE-") }
	return c.aloneOn(nil) && (c.Budget != nil || slices.ContainsFunc(c.Rules, rate))
}
