package check

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"sort"
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
}

// RouteFloor is the fewest requests to one route budget a declaration
// names (fewer are only counted in Requests).
const RouteFloor = 50

var (
	spendOnce sync.Once
	spends    map[string]Spend
)

// Spends are the declarations, by check id.
func Spends() map[string]Spend {
	spendOnce.Do(func() {
		if err := json.Unmarshal(spendJSON, &spends); err != nil {
			panic(fmt.Sprintf("check: spend.json: %v", err))
		}
	})
	return spends
}

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
	// (0 on a virtual clock): the clock minutes of the failed-auth, tenant
	// (the tenant-wide probes' own minutes among them) or busiest-route
	// windows, whichever is most; Bound names it.
	Minimum time.Duration
	Bound   string

	wholeRequests int            // of Requests, sent in clock minutes of their own
	normalRoutes  map[string]int // route spend of the checks that probe no budget
}

func addTo(m map[string]int, k string, n int) map[string]int {
	if m == nil {
		m = map[string]int{}
	}
	m[k] += n
	return m
}

// Plan estimates the traffic of running cs against target.
func Plan(target *Target, cs []*Check) Estimate {
	var e Estimate
	routes := map[string]int{}
	var auth, chosen []*Check
	for _, c := range cs {
		if preflight(target, c) != "" {
			continue
		}
		e.Checks++
		chosen = append(chosen, c)
		s := Spends()[c.ID]
		if b := c.Budget; b != nil && b.Tenant > s.Requests {
			s.Requests = b.Tenant
		}
		e.Requests += s.Requests
		if c.Budget != nil && c.Budget.WholeTenant {
			// In a clock minute of its own: it spends no other window's
			// tenant or route budgets.
			e.wholeRequests += s.Requests
			continue
		}
		for r, n := range s.Routes {
			routes[r] += n
			if c.Budget == nil {
				e.normalRoutes = addTo(e.normalRoutes, r, n)
			}
		}
		auth = append(auth, c)
	}
	e.FailedAuth = FailedAuthNeed(auth)
	keys := make([]string, 0, len(routes))
	for r := range routes {
		keys = append(keys, r)
	}
	sort.Strings(keys)
	for _, r := range keys {
		if routes[r] > e.BusiestCount {
			e.Busiest, e.BusiestCount = r, routes[r]
		}
	}
	if target.VirtualClock() {
		return e
	}
	e.Minimum, e.Bound = realClockMinimum(e, chosen, target.Plan().FailedAuthSpentFor())
	return e
}

// realClockMinimum is the least wall time the run's traffic needs on a
// real clock, in whole clock minutes (the first one free: the run starts
// inside it), and what bounds it: the largest of the failed-authentication
// windows (a check that spends the whole window of 20 takes one to itself,
// the others pack 20 a window), the tenant's windows (6,000 less the
// plan's headroom each, the probes' bursts included, and one of its own
// for each probe of the tenant's whole budget) and the busiest route
// budget's (600 a window, or one window per probe that exhausts it). The
// tenant's whole-budget minutes still carry failed authentications:
// requests refused at the key step spend no tenant budget. spent, when
// not 0, is what is left of a current window whose failed authentications
// are already spent (by earlier traffic from this address: the target
// answered the start-up probe 429): the first failed-auth window is the
// next one.
func realClockMinimum(e Estimate, cs []*Check, spent time.Duration) (time.Duration, string) {
	whole, fa, tenantWhole := 0, 0, 0
	probes := map[string]int{}
	for _, c := range cs {
		n := c.failedAuthCause()
		if n >= traffic.FailedAuthBudget {
			whole++
			n -= traffic.FailedAuthBudget
		}
		fa += n
		if b := c.Budget; b != nil {
			if b.WholeTenant {
				tenantWhole++
			}
			for _, r := range b.Routes {
				probes[r] += b.windows()
			}
		}
	}
	faWindows := whole + (fa+traffic.FailedAuthBudget-1)/traffic.FailedAuthBudget
	per := traffic.TenantBudget - 100
	tenantWindows := (e.Requests-e.wholeRequests+per-1)/per + tenantWhole
	// A route budget's windows: one per probe that exhausts it, plus what
	// the other checks send to it at the plan's 590 a window.
	routeWindows, route := 0, ""
	perRoute := traffic.RouteBudget - 10
	for _, m := range []map[string]int{probes, e.normalRoutes} {
		for r := range m {
			n := probes[r] + (e.normalRoutes[r]+perRoute-1)/perRoute
			if n > routeWindows || (n == routeWindows && r < route) {
				routeWindows, route = n, r
			}
		}
	}
	// Each bound in clock minutes, the first one free (the run starts
	// inside it), unless its failed-auth budget is already spent.
	took := func(windows int) time.Duration { return time.Duration(max(0, windows-1)) * traffic.Window }
	d, w, bound := took(faWindows), faWindows, fmt.Sprintf("%d failed authentications at %d per minute, %d checks spending a whole window", e.FailedAuth, traffic.FailedAuthBudget, whole)
	if spent > 0 && faWindows > 0 {
		d += spent
		bound += fmt.Sprintf("; the current window's failed authentications already spent (%s left in it)", spent.Round(time.Second))
	}
	if took(tenantWindows) > d {
		d, w, bound = took(tenantWindows), tenantWindows, fmt.Sprintf("%d requests at %d per minute per tenant, and %d minutes of the tenant's whole budget", e.Requests-e.wholeRequests, traffic.TenantBudget, tenantWhole)
	}
	if took(routeWindows) > d {
		d, w, bound = took(routeWindows), routeWindows, fmt.Sprintf("%d windows of %s", routeWindows, route)
	}
	if d <= 0 {
		return 0, bound
	}
	return d, fmt.Sprintf("%d clock minutes: %s", w, bound)
}
