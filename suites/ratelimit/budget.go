package ratelimit

import (
	"fmt"
	"net/http"
	"time"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// One code path per rule on both clocks (check.Clock): on a virtual clock
// the runner has moved to :01 of a fresh clock minute before each check
// (which runs alone) and the check moves the clock; on a real clock the
// check owns the budgets it declares for the minutes the run's timetable
// gives it (check.Budget: no other request reaches them meanwhile, the
// tenant keeps room for it) and
// waits for the seconds it needs. Each check exhausts route budgets of
// its own (a key, method and template no other probe of this package
// spends), so that several share one clock minute.

// Route budgets the probes exhaust, "ROLE METHOD TEMPLATE".
const (
	me         = api.P + "/me"
	customers  = api.P + "/customers"
	customerID = api.P + "/customers/{id}"
)

func route(role, method, tmpl string) string { return role + " " + method + " " + tmpl }

func list(path string) client.Request {
	r := get(path)
	r.Query = map[string][]string{"limit": {"1"}}
	return r
}

// lastSecond is the latest second of a minute a probe asks at: :59.5 on a
// virtual clock, :58.5 on a real one (whose instant is known to some
// milliseconds, and whose answer must land before the boundary).
func lastSecond(clk *check.Clock) float64 {
	if clk.Virtual {
		return 59.5
	}
	return 58.5
}

// budgetChecks are the checks of budget.go.
func budgetChecks() []check.Check {
	return []check.Check{
		{
			ID:     "ratelimit/route-budget-600",
			Title:  "600 requests of one key, method and route template pass; the 601st is 429 rate_limited problem+json with Retry-After",
			Rules:  []string{"RATE-004", "RATE-003", "RATE-001", "RATE-017", "ERR-009", "ERR-026"},
			Needs:  []string{"keys.tenant"},
			Budget: &check.Budget{Routes: []string{route("tenant", "GET", me)}, Tenant: 602},
			Run: func(t *check.T) {
				clk := t.Clock()
				c := t.Client("tenant")
				overBudget(t, clk, c, get(me))
				limited(t, "RATE-004", t.Do(c, get(me)), "602nd GET /me")
			},
		},
		{
			ID:     "ratelimit/retry-after-seconds-left",
			Title:  "Retry-After is the whole seconds left in the clock minute and counts down (at the 429, at :30 and at :59.5 of the minute)",
			Rules:  []string{"RATE-016", "RATE-001", "RATE-017", "RATE-004"},
			Needs:  []string{"keys.subject"},
			Budget: &check.Budget{Routes: []string{route("subject", "GET", me)}, Tenant: 603},
			Run: func(t *check.T) {
				clk := t.Clock()
				c := t.Client("subject")
				_, r, ra := overBudget(t, clk, c, get(me))
				retryAfterIs(t, clk, ra, clk.At(r), "601st GET /me")
				for _, sec := range []float64{30, lastSecond(clk)} {
					if now := clk.Now(); now.Sub(now.Truncate(time.Minute)) > time.Duration(sec*float64(time.Second))-time.Second {
						continue // a real clock already past that second of the minute
					}
					clk.To(sec, false)
					r = t.Do(c, get(me))
					ra = limited(t, "RATE-008", r, "GET /me later in the exhausted window")
					retryAfterIs(t, clk, ra, clk.At(r), "GET /me later in the exhausted window")
				}
			},
		},
		{
			ID:     "ratelimit/no-ratelimit-headers",
			Title:  "no X-RateLimit-* header on 2xx responses within the budget nor on the 429",
			Rules:  []string{"RATE-002", "RATE-004"},
			Needs:  []string{"keys.read_only"},
			Budget: &check.Budget{Routes: []string{route("read_only", "GET", me)}, Tenant: 601},
			Run: func(t *check.T) {
				clk := t.Clock()
				c := t.Client("read_only")
				rs, r, _ := overBudget(t, clk, c, get(me))
				noRateLimitHeaders(t, append(rs, r))
			},
		},
		{
			ID:     "ratelimit/template-shares-counter",
			Title:  "GET /customers/{a} and /customers/{b} share one budget: 300 + 300, then any customer id is 429",
			Rules:  []string{"RATE-005", "RATE-004"},
			Needs:  []string{"keys.read_only", "customers.active_personal", "customers.active_business", "customers.draft"},
			Budget: &check.Budget{Routes: []string{route("read_only", "GET", customerID)}, Tenant: 602 + overflowProbe},
			Run: func(t *check.T) {
				clk := t.Clock()
				c := t.Client("read_only")
				a := get(api.P + "/customers/" + t.Customer("active_personal"))
				b := get(api.P + "/customers/" + t.Customer("active_business"))
				shots := append(repeat(c, a, routeBudget/2), repeat(c, b, routeBudget/2)...)
				rs := inOneMinute(t, clk, shots)
				allPass(t, "RATE-004", rs, "300 GET /customers/{a} + 300 GET /customers/{b}")
				rc := t.Do(c, get(api.P+"/customers/"+t.Customer("draft")))
				ra := t.Do(c, a)
				sameMinute(t, clk, "600 GET /customers/{a|b} and then {c}", rs[0], ra)
				limitedOr(t, clk, "RATE-005", rc, "GET /customers/{c} after 600 on the template", c, get(api.P+"/customers/"+t.Customer("draft")))
				limitedOr(t, clk, "RATE-005", ra, "GET /customers/{a} after 600 on the template", c, a)
			},
		},
		{
			ID:    "ratelimit/methods-separate",
			Title: "GET and PATCH on /customers/{id}, GET and POST on /customers keep separate budgets",
			Rules: []string{"RATE-006", "RATE-004"},
			Needs: []string{"keys.tenant", "customers.active_personal"},
			// The PATCH and the POST it sends after each 600 need their
			// budgets unspent: it holds them too (other probes exhaust them).
			Budget: &check.Budget{Routes: []string{route("tenant", "GET", customerID), route("tenant", "GET", customers),
				route("tenant", "PATCH", customerID), route("tenant", "POST", customers)}, Tenant: 1204},
			Run: func(t *check.T) {
				clk := t.Clock()
				c := t.Client("tenant")
				one := api.P + "/customers/" + t.Customer("active_personal")
				rs := exhaust(t, clk, c, get(one), "RATE-004")
				lim := t.Do(c, get(one))
				// No Idempotency-Key: a request past the rate limit (step 4)
				// stops at step 5 with 400, so nothing changes.
				r := t.Do(c, client.Request{Method: http.MethodPatch, Path: one, JSON: map[string]any{}})
				sameMinute(t, clk, "600 GET /customers/{id} and the PATCH", rs[0], r)
				limited(t, "RATE-004", lim, "601st GET /customers/{id}")
				if r.Status == http.StatusTooManyRequests {
					t.Fatalf("RATE-006", "PATCH /customers/{id} is 429 after 600 GETs on the same path: the methods share a budget")
				}
				t.Logf("PATCH /customers/{id} without Idempotency-Key after 600 GETs: %d", r.Status)

				rs = exhaust(t, clk, c, list(customers), "RATE-004")
				lim = t.Do(c, list(customers))
				r = t.Do(c, client.Request{Method: http.MethodPost, Path: customers, JSON: map[string]any{}})
				sameMinute(t, clk, "600 GET /customers and the POST", rs[0], r)
				limited(t, "RATE-004", lim, "601st GET /customers")
				if r.Status == http.StatusTooManyRequests {
					t.Fatalf("RATE-006", "POST /customers is 429 after 600 GETs on the same path: the methods share a budget")
				}
				t.Logf("POST /customers without Idempotency-Key after 600 GETs: %d", r.Status)
			},
		},
		{
			ID:     "ratelimit/keys-separate",
			Title:  "another key of the same tenant has its own full budget on the same route",
			Rules:  []string{"RATE-007", "RATE-004"},
			Needs:  []string{"keys.umbrella", "keys.pascal_scopes"},
			Budget: &check.Budget{Routes: []string{route("umbrella", "GET", me), route("pascal_scopes", "GET", me)}, Tenant: 1202},
			Run: func(t *check.T) {
				clk := t.Clock()
				a, b := t.Client("umbrella"), t.Client("pascal_scopes")
				clk.Clear(2 * burstNeed)
				ra := exhaust(t, clk, a, get(me), "RATE-004")
				lim := t.Do(a, get(me))
				rs := fire(t, repeat(b, get(me), routeBudget))
				last := t.Do(b, get(me))
				sameMinute(t, clk, "the two keys' bursts", ra[0], last)
				limited(t, "RATE-004", lim, "601st GET /me with keys.umbrella")
				allPass(t, "RATE-007", rs, "600 GET /me with keys.pascal_scopes after keys.umbrella spent its budget")
				limited(t, "RATE-004", last, "601st GET /me with keys.pascal_scopes")
			},
		},
		{
			ID:     "ratelimit/window-clock-minute",
			Title:  "the window is the clock minute: exhausted, still 429 late in the minute, a fresh budget at the next :00",
			Rules:  []string{"RATE-008", "RATE-004"},
			Needs:  []string{"keys.read_only"},
			Budget: &check.Budget{Routes: []string{route("read_only", "GET", customers)}, Tenant: 1203, Windows: 2},
			Run: func(t *check.T) {
				clk := t.Clock()
				c := t.Client("read_only")
				r := list(customers)
				rs, _, _ := overBudget(t, clk, c, r)
				at := clk.To(lastSecond(clk)-0.5, false)
				late := t.Do(c, r)
				sameMinute(t, clk, "the exhausted minute", rs[0], late)
				limited(t, "RATE-008", late, fmt.Sprintf("GET /customers at :%02d of the exhausted minute", at.Second()))
				clk.To(clk.Boundary, true)
				shape.StatusAnswer(t, t.Do(c, r), shape.Want{Rule: "RATE-008", Status: http.StatusOK, What: "GET /customers at the start of the next clock minute", Why: "a new window"})
				more := fire(t, repeat(c, r, routeBudget-1))
				allPass(t, "RATE-008", more, "599 more GET /customers in the new minute")
				limited(t, "RATE-004", t.Do(c, r), "601st GET /customers of the new minute")
			},
		},
		{
			ID:     "ratelimit/window-boundary-double-budget",
			Title:  "600 requests just before a clock-minute boundary and 600 just after all pass: fixed windows, not sliding",
			Rules:  []string{"RATE-008", "RATE-004"},
			Needs:  []string{"keys.subject"},
			Budget: &check.Budget{Routes: []string{route("subject", "GET", customers)}, Tenant: 1201, Windows: 2},
			Run: func(t *check.T) {
				clk := t.Clock()
				c := t.Client("subject")
				r := list(customers)
				// :58 on a virtual clock; on a real one :50, which leaves a
				// burst time to end before the boundary (this minute's when
				// it is still ahead).
				before := 58.0
				if !clk.Virtual {
					before = 50
				}
				now := clk.Now()
				clk.To(before, now.Sub(now.Truncate(time.Minute)) > time.Duration(before*float64(time.Second))-time.Second)
				rs := fire(t, repeat(c, r, routeBudget))
				sameMinute(t, clk, "600 GET /customers before the boundary", rs...)
				allPass(t, "RATE-004", rs, "600 GET /customers before the boundary")
				clk.To(clk.Boundary, true)
				after := fire(t, repeat(c, r, routeBudget))
				allPass(t, "RATE-008", after, "600 GET /customers just after the boundary, 600 having passed just before it")
				limited(t, "RATE-004", t.Do(c, r), "601st GET /customers of the new minute")
			},
		},
		{
			ID:     "ratelimit/tenant-aggregate-6000",
			Title:  "10 key/route budgets x 600 pass; the tenant's 6,001st request, on an untouched budget, is 429",
			Rules:  []string{"RATE-010", "RATE-003", "RATE-001", "RATE-016"},
			Needs:  []string{"keys.tenant", "keys.read_only", "keys.pascal_scopes", "keys.umbrella", "keys.subject", "customers.active_personal"},
			Budget: &check.Budget{WholeTenant: true, Tenant: tenantBudget + 1},
			Run: func(t *check.T) {
				clk := t.Clock()
				clk.Fresh()
				var shots []shot
				for _, k := range []string{"tenant", "read_only", "pascal_scopes", "umbrella", "subject"} {
					c := t.Client(k)
					shots = append(shots, repeat(c, get(me), routeBudget)...)
					shots = append(shots, repeat(c, list(customers), routeBudget)...)
				}
				if len(shots) != tenantBudget {
					t.NoVerdict(fmt.Errorf("built %d requests, want %d", len(shots), tenantBudget))
				}
				rs := fire(t, shots)
				allPass(t, "RATE-010", rs, "10 budgets x 600 (GET /me and GET /customers with five keys)")
				last := t.Do(t.Client("tenant"), get(api.P+"/customers/"+t.Customer("active_personal")))
				sameMinute(t, clk, "the tenant's 6,000 and the 6,001st", rs[0], last)
				ra := limited(t, "RATE-010", last, "the tenant's 6,001st request (GET /customers/{id}, an untouched route budget)")
				retryAfterIs(t, clk, ra, clk.At(last), "the tenant aggregate's 429")
			},
		},
	}
}
