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
	// Minimum is the largest of the failed-auth, tenant and busiest-route
	// windows the traffic needs (0 on a virtual clock); Bound names it.
	Minimum time.Duration
	Bound   string
}

// Plan estimates the traffic of running cs against target.
func Plan(target *Target, cs []*Check) Estimate {
	var e Estimate
	routes := map[string]int{}
	var auth []*Check
	for _, c := range cs {
		if preflight(target, c) != "" {
			continue
		}
		e.Checks++
		s := Spends()[c.ID]
		e.Requests += s.Requests
		for r, n := range s.Routes {
			routes[r] += n
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
	e.Minimum, e.Bound = traffic.Minimum(e.FailedAuth), fmt.Sprintf("%d failed authentications at %d per minute", e.FailedAuth, traffic.FailedAuthBudget)
	if m := traffic.WindowsFor(e.Requests, traffic.TenantBudget); m > e.Minimum {
		e.Minimum, e.Bound = m, fmt.Sprintf("%d requests at %d per minute per tenant", e.Requests, traffic.TenantBudget)
	}
	if m := traffic.WindowsFor(e.BusiestCount, traffic.RouteBudget); m > e.Minimum {
		e.Minimum, e.Bound = m, fmt.Sprintf("%d requests to %s at %d per minute", e.BusiestCount, e.Busiest, traffic.RouteBudget)
	}
	return e
}
