package check

import (
	"strings"

	"github.com/touchstone-harness/touchstone/internal/traffic"
)

// Budget is what a check that probes a rate limit on purpose spends
// (document 2, Limits). On a virtual clock it runs alone in a fresh window;
// on a real clock it owns these budgets for the clock minutes the run's
// timetable gives it (traffic.Slot). Its requests are never held and its
// 429s are its own to judge.
type Budget struct {
	// Routes are the route budgets it spends, "ROLE METHOD TEMPLATE" (the
	// profile key's role; the template as traffic.Template writes it),
	// whether it exhausts them or needs them unspent for a few requests.
	Routes []string
	// Tenant is the most requests it sends in one minute.
	Tenant int
	// WholeTenant: it spends the tenant's whole budget, in minutes of its own.
	WholeTenant bool
	// Auth: it spends the failed-auth budget's whole window.
	Auth bool
	// Windows is how many clock minutes it needs (default 1; 2 for one
	// that spends a budget on both sides of a boundary).
	Windows int
}

// slotFor is c's place in target's timetable. Its failed authentications
// are measured (spend.json): up to the budget in its first minute, the
// rest in each later one; Budget.Auth means the whole first window. A role
// the profile lacks is left out: the check skips for it anyway.
func slotFor(target *Target, c *Check) *traffic.Slot {
	b := c.Budget
	failures := Spends()[c.ID].FailedAuth
	first, later := min(failures, traffic.FailedAuthBudget), max(0, failures-traffic.FailedAuthBudget)
	if b.Auth {
		first = traffic.FailedAuthBudget
	}
	s := &traffic.Slot{Who: c.ID, Tenant: b.Tenant, Whole: b.WholeTenant, Auth: first > 0, Failures: first, Later: later, Minutes: b.Windows}
	for _, r := range b.Routes {
		if f := strings.Fields(r); len(f) == 3 && target.Profile.Key(f[0]) != "" {
			prefix, _, _ := strings.Cut(target.Profile.Key(f[0]), ".")
			s.Routes = append(s.Routes, traffic.Bucket{Key: prefix, Method: f[1], Template: f[2]})
		}
	}
	return s
}
