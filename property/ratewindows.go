package property

import (
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"pgregory.net/rapid"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
)

// Rate-limit windows on the virtual clock (document 2, Rate limits): random
// clock advances, and bursts on random keys, methods and routes (two
// concrete paths of one template, GET and PATCH on one path, GET /me), some
// sized to land on either side of the 600 budget. The model counts per key
// + method + route template in fixed clock-minute windows and the tenant
// aggregate (6,000; a per-route refusal does not count toward it: RATE-011)
// and predicts how many requests of each burst are refused (a burst is sent
// together, the virtual clock standing still) and every 429's Retry-After
// (the whole seconds left in the clock minute, at least 1: RATE-016).

const (
	routeBudget  = 600
	tenantBudget = 6000
	maxPerCase   = 1500 // requests one case may send
)

// burstRoutes are the routes bursts draw from (the first ones: two paths
// of one template, another method on one of them, another template); the
// rest widen a flood so it reaches the tenant ceiling before any per-route
// budget runs out.
const burstRoutes = 4

type rateRoute struct{ method, template, path, name string }

type rateMachine struct {
	t       *check.T
	keys    []*client.Client
	routes  []rateRoute
	now     time.Time
	window  time.Time
	count   map[string]int // key|method|template -> requests counted this window
	tenant  int
	sent    int
	rolled  int                        // windows rolled over in this case
	paths   map[string]map[string]bool // key|method|template -> paths counted this window
	log     steps
	flagged int
}

func (m *rateMachine) roll() {
	if w := m.now.Truncate(time.Minute); !w.Equal(m.window) {
		if !m.window.IsZero() {
			m.rolled++
		}
		m.window, m.count, m.tenant, m.paths = w, map[string]int{}, 0, map[string]map[string]bool{}
	}
}

// Advance moves the virtual clock forward 0.5-40 s, or to a drawn second
// of the next minute.
func (m *rateMachine) Advance(rt *rapid.T) {
	var clk time.Time
	if rapid.Bool().Draw(rt, "next minute") {
		off := time.Duration(rapid.IntRange(0, 58_000).Draw(rt, "offset ms")) * time.Millisecond
		c, err := m.t.Control().NextMinute(m.t.Context(), off)
		if err != nil {
			m.t.NoVerdict(err)
		}
		clk = c.Now
		m.log.note("control: the clock moves to the next minute + %s (%s)", off, clk.Format("15:04:05.000"))
	} else {
		d := time.Duration(rapid.IntRange(500, 40_000).Draw(rt, "advance ms")) * time.Millisecond
		c, err := m.t.Control().Advance(m.t.Context(), d)
		if err != nil {
			m.t.NoVerdict(err)
		}
		clk = c.Now
		m.log.note("control: the clock advances %s (%s)", d, clk.Format("15:04:05.000"))
	}
	m.now = clk
	m.roll()
}

// flood drives the tenant aggregate to its 6,000 ceiling and past it:
// round-robin over every key and route until the tenant count is within
// drawn reach of the ceiling, then a few more, each predicted. It sends
// thousands of requests, so it ends a case only in deep runs
// (--property-checks above the default), half the time.
func (m *rateMachine) flood(rt *rapid.T) {
	past := rapid.IntRange(1, 15).Draw(rt, "past the ceiling")
	// Each request goes to the key and route with the most per-route
	// budget left, so the tenant ceiling, not a route budget, answers.
	for sent := 0; m.tenant < tenantBudget || past > 0; sent++ {
		if m.tenant >= tenantBudget {
			past--
		}
		bk, br, left := 0, 0, -1
		for k := range m.keys {
			for i, rr := range m.routes {
				if l := routeBudget - m.count[strconv.Itoa(k)+"|"+rr.method+"|"+rr.template]; l > left {
					bk, br, left = k, i, l
				}
			}
		}
		if left <= 0 || sent > 2*tenantBudget {
			rt.Skip("every route budget is spent before the tenant ceiling")
		}
		m.one(rt, bk, m.routes[br], 1, 0)
	}
	m.log.note("a flood over every key and route up to the tenant ceiling of 6,000 and past it")
}

// Burst sends n requests of one key on one route: a few, or enough to
// land next to the budget's edge. They are sent together (burstWorkers at
// a time): the virtual clock stands still meanwhile, so the model predicts
// how many are admitted and that every other one is a 429 with one
// Retry-After, whatever order they arrive in.
func (m *rateMachine) Burst(rt *rapid.T) {
	k := rapid.IntRange(0, len(m.keys)-1).Draw(rt, "key")
	rr := m.routes[rapid.IntRange(0, burstRoutes-1).Draw(rt, "route")]
	id := strconv.Itoa(k) + "|" + rr.method + "|" + rr.template
	n := rapid.IntRange(1, 4).Draw(rt, "n")
	if rapid.IntRange(0, 2).Draw(rt, "to the edge") == 0 {
		n = max(1, routeBudget-m.count[id]+rapid.IntRange(-2, 2).Draw(rt, "past the edge"))
	}
	if m.sent+n > maxPerCase {
		rt.Skip("the case has sent enough")
	}
	m.sent += n
	rs := make([]*client.Response, n)
	var next atomic.Int64
	m.t.Go(min(n, m.t.Target().Plan().InFlight(burstWorkers)), func(int) {
		for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
			rs[i] = m.send(k, rr)
		}
	})
	// The model: the burst is admitted up to what is left of the route's
	// budget and the tenant's, the rest refused.
	admit := max(0, min(n, routeBudget-m.count[id], tenantBudget-m.tenant))
	var ok, refused []*client.Response
	for _, r := range rs {
		if r.Status == http.StatusTooManyRequests {
			refused = append(refused, r)
		} else {
			ok = append(ok, r)
		}
	}
	show := rs[n-1]
	if len(refused) > 0 {
		show = refused[0]
	}
	m.log.add(fmt.Sprintf("%d x %s %s as %s, sent together: %d admitted, %d answered 429 (one shown)", n, rr.method, rr.name, m.keys[k].KeyName, len(ok), len(refused)), show)
	routeBefore, tenantBefore := m.count[id], m.tenant
	if len(ok) > 0 {
		if m.paths[id] == nil {
			m.paths[id] = map[string]bool{}
		}
		m.paths[id][rr.path] = true
	}
	switch {
	case len(ok) < admit:
		// A 429 the budgets do not explain.
		m.log.fail(rt, "%s: %s %s as %s: a burst of %d answered %d times 429, the model %d: %d of 600 used on the route and %d of 6,000 for the tenant in the window from %s",
			m.early429(k, rr, routeBefore+n, len(refused)), rr.method, rr.name, m.keys[k].KeyName, n, len(refused), n-admit, routeBefore, tenantBefore, m.window.Format("15:04:05"))
	case len(ok) > admit:
		rule := "RATE-004"
		if len(m.paths[id]) > 1 {
			rule += "/RATE-005" // the template's count came from several paths
		}
		if tenantBefore+admit >= tenantBudget && routeBefore+admit < routeBudget {
			rule = "RATE-010"
		}
		m.log.fail(rt, "%s: %s %s as %s: a burst of %d was admitted %d times, the model %d: %d requests already counted on the route, %d for the tenant, in the clock minute from %s",
			rule, rr.method, rr.name, m.keys[k].KeyName, n, len(ok), admit, routeBefore, tenantBefore, m.window.Format("15:04:05"))
	}
	m.count[id] += admit
	m.tenant += admit
	// A per-route refusal does not count toward the tenant (RATE-011).
	left := m.window.Add(time.Minute).Sub(m.now)
	want := strconv.Itoa(max(1, int(math.Ceil(left.Seconds()))))
	for _, r := range refused {
		if got := r.Header.Get("Retry-After"); got != want {
			m.log.add("one of the 429s of the burst", r)
			m.log.fail(rt, "RATE-016: %s %s as %s: Retry-After %q at %s, want %s (whole seconds left in the clock minute)", rr.method, rr.name, m.keys[k].KeyName, got, m.now.Format("15:04:05.000"), want)
		}
		if problemCode(r) != "rate_limited" {
			m.log.add("one of the 429s of the burst", r)
			m.log.fail(rt, "RATE-003: %s %s as %s: 429 without problem+json code rate_limited", rr.method, rr.name, m.keys[k].KeyName)
		}
	}
}

// burstWorkers is how many requests of a burst are in flight at once
// against a loopback target (more against a distant one: Plan.InFlight).
const burstWorkers = 16

// send sends one request of key k on route rr.
func (m *rateMachine) send(k int, rr rateRoute) *client.Response {
	req := client.Request{Method: rr.method, Path: rr.path}
	if rr.method == http.MethodPatch {
		req.JSON, req.IdempotencyKey = map[string]any{"jurisdiction": "GB"}, m.t.NewKey()
	}
	return m.t.Do(m.keys[k], req)
}

// one sends request i of a burst of n and compares its answer with the model.
func (m *rateMachine) one(rt *rapid.T, k int, rr rateRoute, n, i int) *client.Response {
	c := m.keys[k]
	id := strconv.Itoa(k) + "|" + rr.method + "|" + rr.template
	r := m.send(k, rr)
	routeOK := m.count[id] < routeBudget
	tenantOK := m.tenant < tenantBudget
	if routeOK && tenantOK {
		m.count[id]++
		m.tenant++
		if m.paths[id] == nil {
			m.paths[id] = map[string]bool{}
		}
		m.paths[id][rr.path] = true
		if r.Status == http.StatusTooManyRequests {
			m.fail(rt, rr, c, n, i, r, m.early429(k, rr, m.count[id], 1), "429 with %d of 600 used on the route and %d of 6,000 for the tenant in the window from %s", m.count[id]-1, m.tenant-1, m.window.Format("15:04:05"))
		}
		return r
	}
	if r.Status != http.StatusTooManyRequests {
		rule := "RATE-004"
		if len(m.paths[id]) > 1 {
			rule += "/RATE-005" // the template's count came from several paths
		}
		if !tenantOK {
			rule = "RATE-010"
		}
		m.fail(rt, rr, c, n, i, r, rule, "%d, want 429: %d requests already counted on the route, %d for the tenant, in the clock minute from %s", r.Status, m.count[id], m.tenant, m.window.Format("15:04:05"))
	}
	left := m.window.Add(time.Minute).Sub(m.now)
	want := max(1, int(math.Ceil(left.Seconds())))
	if got := r.Header.Get("Retry-After"); got != strconv.Itoa(want) {
		m.fail(rt, rr, c, n, i, r, "RATE-016", "Retry-After %q at %s, want %d (whole seconds left in the clock minute)", got, m.now.Format("15:04:05.000"), want)
	}
	if problemCode(r) != "rate_limited" {
		m.fail(rt, rr, c, n, i, r, "RATE-003", "429 without problem+json code rate_limited")
	}
	// A per-route refusal does not count toward the tenant (RATE-011).
	return r
}

// early429 names the rule an unexpected 429 breaks, used being the
// requests of this key, method and template the 429 came with (those
// counted before it and its own) and refused how many of them were 429 (1
// for a single request, the first refused: the check stops at it): another
// method of the key on the template (RATE-006) or another key on the method
// and template (RATE-007) when a counter shared with that one explains the
// 429s exactly (its count added to used passes the budget by refused; when
// both do, one more request tells which); else a
// window that did not restart at the clock minute (RATE-008) once one has
// rolled over; else the budget itself (RATE-004).
func (m *rateMachine) early429(k int, rr rateRoute, used, refused int) string {
	methods, keys, other := 0, 0, 0
	for id, n := range m.count {
		var ok, om, ot string
		fmt.Sscanf(strings.ReplaceAll(id, "|", " "), "%s %s %s", &ok, &om, &ot)
		switch {
		case ok != strconv.Itoa(k) && om == rr.method && ot == rr.template:
			keys += n
			if n > 0 {
				other, _ = strconv.Atoi(ok)
			}
		case ok == strconv.Itoa(k) && om != rr.method && ot == rr.template:
			methods += n
		}
	}
	explains := func(shared int) bool {
		over := used + shared - routeBudget
		return shared > 0 && over == refused
	}
	var rules []string
	switch {
	case explains(methods) && explains(keys):
		// Both would: one more request, of another key that used the
		// method and template, tells them apart. A counter shared by the
		// keys is spent for it too; one shared by the methods is not.
		r := m.send(other, rr)
		m.log.add(fmt.Sprintf("%s %s as %s, to tell a counter shared by methods from one shared by keys", rr.method, rr.name, m.keys[other].KeyName), r)
		if r.Status == http.StatusTooManyRequests {
			rules = append(rules, "RATE-007")
		} else {
			rules = append(rules, "RATE-006")
		}
	case explains(methods):
		rules = append(rules, "RATE-006")
	case explains(keys):
		rules = append(rules, "RATE-007")
	}
	if len(rules) == 0 && m.rolled > 0 {
		rules = append(rules, "RATE-008")
	}
	if len(rules) == 0 {
		rules = append(rules, "RATE-004")
	}
	return strings.Join(rules, "/")
}

func (m *rateMachine) fail(rt *rapid.T, rr rateRoute, c *client.Client, n, i int, r *client.Response, rule, format string, args ...any) {
	m.log.add(fmt.Sprintf("%s %s as %s, request %d of a burst of %d", rr.method, rr.name, c.KeyName, i+1, n), r)
	m.log.fail(rt, "%s: %s %s as %s: "+format, append([]any{rule, rr.method, rr.name, c.KeyName}, args...)...)
}

// Check is rapid's invariant hook: every request is compared as it is answered.
func (m *rateMachine) Check(*rapid.T) {}

// ratewindowsChecks are the checks of ratewindows.go.
func ratewindowsChecks() []check.Check {
	rules := []string{"RATE-004", "RATE-005", "RATE-006", "RATE-007", "RATE-008", "RATE-010", "RATE-016", "RATE-003"}
	return []check.Check{
		{
			ID:     "property/rate-windows",
			Alone:  check.WithControl,
			Title:  "random clock advances and bursts over keys, methods and route templates (some on either side of the 600 budget) answer 429 and Retry-After exactly as the fixed clock-minute model predicts",
			Rules:  rules,
			Labels: []string{check.Mutating, check.NeedsControl, Label}, Needs: []string{"keys.tenant", "customers.active_personal"},
			Run: func(t *check.T) {
				t.NeedVirtualClock()
				c := t.Client("tenant")
				counted(c)
				keys := []*client.Client{c}
				if t.Profile().Key("pascal_scopes") != "" {
					o := t.Client("pascal_scopes")
					counted(o)
					keys = append(keys, o)
				} else {
					t.NotJudged("profile has no keys.pascal_scopes: one key, so budgets per key are not exercised; add keys.pascal_scopes", "RATE-007")
				}
				a, b := createCustomer(t, c), t.Customer("active_personal")
				routes := []rateRoute{
					{http.MethodGet, "/customers/{id}", api.Customer(a), "GET customers/{a}"},
					{http.MethodGet, "/customers/{id}", api.Customer(b), "GET customers/{b}"},
					{http.MethodPatch, "/customers/{id}", api.Customer(a), "customers/{a}"},
					{http.MethodGet, "/me", api.P + "/me", "/me"},
					{http.MethodGet, "/customers/{id}/onboarding/status", api.Customer(a) + "/onboarding/status", ""},
					{http.MethodGet, "/test", api.P + "/test", ""},
					{http.MethodGet, "/customers/{id}/onboarding/kyc/status", api.Customer(a) + "/onboarding/kyc/status", ""},
					{http.MethodGet, "/customers", api.P + "/customers?limit=1", ""},
				}
				for i := range routes {
					routes[i].name = routes[i].path
				}
				defer func() {
					if err := t.Target().FreshWindow(t.Context()); err != nil {
						t.Logf("could not move to a fresh window: %v", err)
					}
				}()
				run(t, "property/rate-windows", rules, func(rt *rapid.T) {
					off := time.Duration(rapid.IntRange(0, 55_000).Draw(rt, "start ms")) * time.Millisecond
					clk, err := t.Control().NextMinute(t.Context(), off)
					if err != nil {
						t.NoVerdict(err)
					}
					m := &rateMachine{t: t, keys: keys, routes: routes, now: clk.Now}
					m.log.lines = append(m.log.lines, fmt.Sprintf("1. control: the clock moves to the next minute + %s (%s)", off, clk.Now.Format("15:04:05.000")))
					m.roll()
					rt.Repeat(rapid.StateMachineActions(m))
					if t.Target().Options.PropertyChecks > DefaultChecks && rapid.Bool().Draw(rt, "flood") {
						m.flood(rt)
					}
				})
			},
		},
	}
}
