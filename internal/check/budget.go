package check

import (
	"strings"

	"github.com/touchstone-harness/touchstone/internal/traffic"
)

// Budget is what a check that probes a rate limit on purpose spends
// (document 2, Limits). On a virtual clock such a check runs alone in a
// fresh window; on a real clock it owns these budgets for the clock
// minutes the run's timetable gives it (traffic.Slot), beside other
// probes and the rest of the run. Either way its requests are never held
// and its 429s are its own to judge.
type Budget struct {
	// Routes are the route budgets it exhausts, "ROLE METHOD TEMPLATE"
	// (the profile key's role; the template as traffic.Template writes
	// it): no other check's request reaches them while it runs.
	Routes []string
	// Tenant is the most requests it sends, reserved from the tenant's
	// 6,000 while it runs.
	Tenant int
	// WholeTenant: it spends the tenant's whole budget, in a clock minute
	// of its own (every other request waits for its end).
	WholeTenant bool
	// IntoNextMinute: a WholeTenant probe that ends with a request at the
	// start of the next clock minute (the reopened window). It goes last
	// among the whole-tenant probes: another one could not have that
	// minute, so it would be lost to the run.
	IntoNextMinute bool
	// Uses are route budgets it sends a few requests to that must not be
	// spent when it starts, such as valid calls between failed
	// authentications: it owns them too.
	Uses []string
	// Auth: it spends the failed-auth budget (20 failed authentications
	// per 60 s); no other failed authentication goes out in its minutes.
	Auth bool
	// Windows is how many clock minutes it needs its route budgets for
	// (default 1; 2 for a probe that spends one on both sides of a
	// boundary).
	Windows int
}

// windows is b's Windows, at least 1.
func (b *Budget) windows() int { return max(1, b.Windows) }

// slotFor is c's place in target's timetable (roles resolved to their
// keys' public prefixes; a role the profile lacks is left out: the check
// skips for it anyway).
func slotFor(target *Target, c *Check) *traffic.Slot {
	b := c.Budget
	minutes := b.windows()
	if b.IntoNextMinute {
		minutes++
	}
	// A probe that causes any failed authentication owns that budget in
	// its minutes: its requests are not paced, and with ordinary traffic's
	// they could pass 20 in a minute.
	// Its measured failures (internal/check/spend.json) are what it
	// causes: up to the budget in its first minute, the rest in each
	// later one; Budget.Auth means the whole first window.
	failures := Spends()[c.ID].FailedAuth
	first, later := min(failures, traffic.FailedAuthBudget), max(0, failures-traffic.FailedAuthBudget)
	if b.Auth {
		first = traffic.FailedAuthBudget
	}
	return &traffic.Slot{Who: c.ID, Routes: buckets(target, append(append([]string(nil), b.Routes...), b.Uses...)),
		Tenant: b.Tenant, Whole: b.WholeTenant, Auth: first > 0, Failures: first, Later: later, Minutes: minutes}
}

// buckets resolves "ROLE METHOD TEMPLATE" routes to the target's buckets.
func buckets(target *Target, routes []string) []traffic.Bucket {
	var out []traffic.Bucket
	for _, r := range routes {
		f := strings.Fields(r)
		if len(f) != 3 {
			continue
		}
		key := target.Profile.Key(f[0])
		if key == "" {
			continue
		}
		prefix, _, _ := strings.Cut(key, ".")
		out = append(out, traffic.Bucket{Key: prefix, Method: f[1], Template: f[2]})
	}
	return out
}
