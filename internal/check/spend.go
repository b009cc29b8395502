package check

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
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
	// Busiest is the route budget ordinary traffic (not the probes') sends
	// the most requests to.
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
	routes := map[string]int{} // ordinary requests by route budget
	var slots []*traffic.Slot
	ordinary, failures := 0, 0
	for _, c := range cs {
		if preflight(target, c) != "" {
			continue
		}
		e.Checks++
		s, share := Spends()[c.ID], 1.0
		if !target.VirtualClock() && c.RealClockShare > 0 {
			share = c.RealClockShare
		}
		scaled := func(n int) int { return int(math.Ceil(float64(n) * share)) }
		if c.Budget != nil {
			e.Requests += max(s.Requests, c.Budget.Tenant)
			e.FailedAuth += s.FailedAuth
			slots = append(slots, slotFor(target, c))
			continue
		}
		e.Requests += scaled(s.Requests)
		e.FailedAuth += scaled(s.FailedAuth)
		ordinary += scaled(s.Requests)
		failures += scaled(s.FailedAuth)
		for r, n := range s.Routes {
			routes[r] += scaled(n)
		}
	}
	for r, n := range routes {
		if n > e.BusiestCount || (n == e.BusiestCount && r < e.Busiest) {
			e.Busiest, e.BusiestCount = r, n
		}
	}
	if !target.VirtualClock() {
		e.Minimum, e.Bound = realClockMinimum(failures, ordinary, e.BusiestCount, slots)
	}
	return e
}

// realClockMinimum is the least wall time on a real clock of failures
// failed authentications, ordinary requests (busiest of them to one route
// budget) beside the probes of slots, and what sets it: the longest of the
// failed-auth limiter (stopped in the minutes a probe owns that budget),
// the timetable, the tenant's limiter (stopped in the minutes a probe owns
// the tenant's whole budget), and the busiest route's limiter.
func realClockMinimum(failures, ordinary, busiest int, slots []*traffic.Slot) (time.Duration, string) {
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
	// n requests through a bucket of burst b and span a minute, plus whole
	// minutes in which it is stopped.
	through := func(n, b, span, stopped int) time.Duration {
		return time.Duration(max(0, n-b))*traffic.Window/time.Duration(span-b) + time.Duration(stopped)*traffic.Window
	}
	d, why := through(failures, 1, traffic.FailedAuthBudget, auth), fmt.Sprintf("%d failed authentications at 19 a minute, and %d minutes a probe owns that budget", failures, auth)
	for _, b := range []struct {
		d   time.Duration
		why string
	}{
		{time.Duration(len(owners)) * traffic.Window, fmt.Sprintf("the probes' timetable of %d clock minutes", len(owners))},
		{through(ordinary, traffic.TenantBurst, traffic.TenantSpan, whole), fmt.Sprintf("%d requests through the tenant's limiter (%d, then %d a minute), and %d minutes a probe owns the tenant's whole budget",
			ordinary, traffic.TenantBurst, traffic.TenantSpan-traffic.TenantBurst, whole)},
		{through(busiest, traffic.RouteBurst, traffic.RouteSpan, 0), fmt.Sprintf("%d requests to one route budget (%d, then %d a minute)", busiest, traffic.RouteBurst, traffic.RouteSpan-traffic.RouteBurst)},
	} {
		if b.d > d {
			d, why = b.d, b.why
		}
	}
	return d.Round(time.Second), why
}
