package check

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/touchstone-harness/touchstone/internal/traffic"
)

// spendJSON declares what each check sends against a conformant target:
// measured by TestDeclarations (go test ./cmd/touchstone -run
// TestDeclarations -update-declarations), which fails when a check sends
// more than it declares.
//
//go:embed spend.json
var spendJSON []byte

// Spend is what one check sends against a conformant target.
type Spend struct {
	Requests int `json:"requests"`
	// Routes are its busy per-route budgets, "ROLE METHOD TEMPLATE" (the
	// profile key's role), with at least RouteFloor requests each.
	Routes map[string]int `json:"routes,omitempty"`
	// Control are the control calls it makes against the embedded
	// sandbox, "METHOD TEMPLATE" below /_sandbox.
	Control []string `json:"control,omitempty"`
	// FailedAuth is how many failed authentications it causes (the
	// scheduler's lane, the run's estimate).
	FailedAuth int `json:"failed_auth,omitempty"`
}

// RouteFloor is the fewest requests to one route budget a declaration
// names (fewer are only counted in Requests).
const RouteFloor = 50

// Spends are the declarations, by check id.
var Spends = sync.OnceValue(func() (m map[string]Spend) {
	if err := json.Unmarshal(spendJSON, &m); err != nil {
		panic(fmt.Sprintf("check: spend.json: %v", err))
	}
	return m
})

// Estimate is a run's planned traffic and the least wall time the
// documented budgets allow it on a real clock.
type Estimate struct {
	Checks     int // checks expected to run (not skipped for want of a fixture or the control API)
	Requests   int
	FailedAuth int
	// Busiest is the route budget the most requests go to.
	Busiest      string
	BusiestCount int
	// Minimum is the least wall time the traffic needs on a real clock
	// (0 on a virtual one), Bound what sets it (realClockMinimum).
	Minimum time.Duration
	Bound   string
}

// Plan estimates the traffic of running cs against target.
func Plan(target *Target, cs []*Check) Estimate {
	var e Estimate
	routes := map[string]int{}
	var slots []*traffic.Slot
	ordinary, failures := 0, 0
	for _, c := range cs {
		if preflight(target, c) != "" {
			continue
		}
		e.Checks++
		s := Spends()[c.ID]
		if b := c.Budget; b != nil && b.Tenant > s.Requests {
			s.Requests = b.Tenant
		}
		e.Requests += s.Requests
		e.FailedAuth += s.FailedAuth
		for r, n := range s.Routes {
			routes[r] += n
		}
		if c.Budget == nil {
			ordinary += s.Requests
			failures += s.FailedAuth
			continue
		}
		slots = append(slots, slotFor(target, c))
	}
	for r, n := range routes {
		if n > e.BusiestCount || (n == e.BusiestCount && r < e.Busiest) {
			e.Busiest, e.BusiestCount = r, n
		}
	}
	if target.VirtualClock() {
		return e
	}
	e.Minimum, e.Bound = realClockMinimum(failures, ordinary, slots)
	return e
}

// realClockMinimum is the least wall time on a real clock of failures
// failed authentications and ordinary requests beside the probes of slots,
// and what sets it: the longest of the failed-auth limiter (stopped in the
// minutes a probe owns that budget), the timetable, and the tenant's
// limiter (stopped in the minutes a probe owns the tenant's whole budget).
func realClockMinimum(failures, ordinary int, slots []*traffic.Slot) (time.Duration, string) {
	var tt traffic.Timetable
	tt.Build(time.Time{}, slots)
	owners := tt.Owners()
	minutesWhere := func(f func(*traffic.Slot) bool) (n int) {
		for _, ss := range owners {
			if slices.ContainsFunc(ss, f) {
				n++
			}
		}
		return n
	}
	auth := minutesWhere(func(s *traffic.Slot) bool { return s.Auth })
	whole := minutesWhere(func(s *traffic.Slot) bool { return s.Whole })
	at := func(n, per, minutes int) time.Duration {
		return time.Duration(max(0, n-1))*traffic.Window/time.Duration(per) + time.Duration(minutes)*traffic.Window
	}
	d, why := at(failures, traffic.FailedAuthBudget-1, auth), fmt.Sprintf("%d failed authentications at 19 a minute, and %d minutes a probe owns that budget", failures, auth)
	if t := time.Duration(len(owners)) * traffic.Window; t > d {
		d, why = t, fmt.Sprintf("the probes' timetable of %d clock minutes", len(owners))
	}
	if o := at(ordinary, traffic.TenantSpan, whole); o > d {
		d, why = o, fmt.Sprintf("%d requests at %d a minute per tenant, and %d minutes a probe owns the tenant's whole budget", ordinary, traffic.TenantSpan, whole)
	}
	return d.Round(time.Second), why
}
