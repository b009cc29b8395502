package traffic

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// The workload of TestNoBudgetIsExceededInAnyMinuteOfTheTarget, on the
// bubble's fake clock (testing/synctest: time moves only when every
// goroutine waits, so the plan's sleeps cost nothing and the run is the
// same whatever the machine's load).
const (
	// routePhase: two route budgets hammered (the route limiters bind).
	routePhase = 125 * time.Second
	// tenantPhase: twelve route budgets hammered (the tenant's binds).
	tenantPhase = 125 * time.Second
)

// hammered are the route budgets ordinary traffic spends.
var hammered = []struct{ key, method, path string }{
	{alphaKey, http.MethodGet, "/api/v1/partner/customers/%s"},
	{betaKey, http.MethodPost, "/api/v1/partner/payouts"},
	{alphaKey, http.MethodGet, "/api/v2/public/accounts/%d/transactions"},
	{betaKey, http.MethodGet, "/api/v1/partner/customers/%s"},
	{alphaKey, http.MethodPost, "/api/v1/partner/payouts"},
	{betaKey, http.MethodGet, "/api/v2/public/accounts/%d/transactions"},
	{alphaKey, http.MethodGet, "/api/v1/partner/me"},
	{readOnlyKey, http.MethodGet, "/api/v1/partner/me"},
	{betaKey, http.MethodGet, "/api/v1/partner/me"},
	{readOnlyKey, http.MethodGet, "/api/v1/partner/customers/%s"},
	{betaKey, http.MethodPut, "/api/v1/partner/customers/%s"},
	{alphaKey, http.MethodDelete, "/api/v2/public/webhooks/%d"},
}

// hammeredRequest is a request to hammered[i] (a fresh id each time: the
// target counts the template).
func hammeredRequest(ctx context.Context, i int, rng *rand.Rand) *http.Request {
	h := hammered[i]
	path := h.path
	switch {
	case strings.Contains(path, "%s"):
		path = fmt.Sprintf(path, fmt.Sprintf("%08x-58f5-4a59-9d60-%012x", rng.Uint32(), rng.Uint64()&0xffffffffffff))
	case strings.Contains(path, "%d"):
		path = fmt.Sprintf(path, rng.IntN(1_000_000))
	}
	return request(ctx, h.method, path, h.key)
}

// failedAuthRequest is a request refused at the key step: no key, a key
// the target never issued, or an issued key lacking the route's scope
// (marked ExpectKeyRefusal where it is built).
func failedAuthRequest(ctx context.Context, i int) *http.Request {
	switch i % 3 {
	case 0:
		return request(ctx, http.MethodGet, "/api/v1/partner/me", "")
	case 1:
		return request(ctx, http.MethodGet, "/api/v1/partner/customers/8c1b2c8e-58f5-4a59-9d60-8a8f1ddc7f4b", unknownKey)
	default:
		return request(ExpectKeyRefusal(ctx), http.MethodPost, "/api/v1/partner/payouts", readOnlyKey)
	}
}

// TestNoBudgetIsExceededInAnyMinuteOfTheTarget drives several minutes of
// concurrent ordinary traffic (two route budgets hammered, then twelve,
// bursts to random routes with idle gaps between, failed
// authentications all along) through the Transport to a target whose
// clock minute starts at an offset from the plan's clock, and counts what
// reaches it in each FIXED minute of its clock: no route budget over 600,
// the tenant never over 6,000, never more than 20 failed
// authentications, never a 429; the worst 60-second span of the run
// (the busiest minute of a target whose minute starts anywhere) stays
// within what the limiters promise; and the throughput is near what they
// promise (the plan does not over-throttle).
func TestNoBudgetIsExceededInAnyMinuteOfTheTarget(t *testing.T) {
	offsets := []time.Duration{0, -29*time.Second - 999*time.Millisecond, 59*time.Second + 999*time.Millisecond}
	rng := rand.New(rand.NewPCG(28, 2026))
	for range 1 {
		offsets = append(offsets, time.Duration(rng.Int64N(int64(time.Hour)))-30*time.Minute)
	}
	for i, off := range offsets {
		t.Run(fmt.Sprintf("offset=%s", off), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { runWorkload(t, uint64(i), off) })
		})
	}
}

func runWorkload(t *testing.T, seed uint64, offset time.Duration) {
	p := New(nil)
	p.ValidKey = issued
	tgt := &fakeTarget{offset: offset}
	tr := &Transport{Plan: p, Next: tgt}
	rng := rand.New(rand.NewPCG(seed, 1))
	// Start somewhere in a minute of the plan's clock.
	time.Sleep(time.Duration(rng.Int64N(int64(Window))))
	start := time.Now()
	routeEnd, end := start.Add(routePhase), start.Add(routePhase+tenantPhase)

	var wg sync.WaitGroup
	worker := func(from, until time.Time, seed uint64, one func(rng *rand.Rand)) {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(seed, 2))
			time.Sleep(from.Sub(time.Now()))
			for time.Now().Before(until) {
				one(rng)
			}
		})
	}
	ctx := t.Context()
	n := uint64(100)
	// Route phase: two route budgets, four workers each (sending costs
	// no time on the bubble's clock: one worker saturates a budget).
	for b := range 2 {
		for range 4 {
			n++
			worker(start, routeEnd, seed*1000+n, func(rng *rand.Rand) { send(t, tr, hammeredRequest(ctx, b, rng)) })
		}
	}
	// Tenant phase: twelve route budgets (more than the tenant's 6,000 a
	// minute between them), a worker each.
	for b := range hammered {
		for range 1 {
			n++
			worker(routeEnd, end, seed*1000+n, func(rng *rand.Rand) { send(t, tr, hammeredRequest(ctx, b, rng)) })
		}
	}
	// Bursts to random routes, idle between, all along (about 100 a
	// minute each: the tenant's limiter does not bind in the route phase).
	for range 2 {
		n++
		worker(start, end, seed*1000+n, func(rng *rand.Rand) {
			b := rng.IntN(len(hammered))
			for range 1 + rng.IntN(60) {
				send(t, tr, hammeredRequest(ctx, b, rng))
			}
			time.Sleep(5*time.Second + time.Duration(rng.Int64N(int64(25*time.Second))))
		})
	}
	// Failed authentications all along: three kinds, one worker each.
	for i := range 3 {
		n++
		worker(start, end, seed*1000+n, func(*rand.Rand) { send(t, tr, failedAuthRequest(ctx, i)) })
	}
	wg.Wait()

	tgt.mu.Lock()
	defer tgt.mu.Unlock()
	if tgt.status[http.StatusTooManyRequests] > 0 {
		t.Errorf("the target answered %d 429s (answers %v)", tgt.status[http.StatusTooManyRequests], tgt.status)
	}
	// Every fixed minute of the target's clock.
	for b, per := range tgt.route {
		for _, m := range minutesOf(per) {
			if per[m] > RouteBudget {
				t.Errorf("%s: %d requests in the target's minute %s (budget %d)", b, per[m], m.Format("15:04:05"), RouteBudget)
			}
		}
	}
	for _, m := range minutesOf(tgt.tenant, tgt.auth) {
		if tgt.tenant[m] > TenantBudget {
			t.Errorf("tenant: %d requests in the target's minute %s (budget %d)", tgt.tenant[m], m.Format("15:04:05"), TenantBudget)
		}
		if tgt.auth[m] > FailedAuthBudget {
			t.Errorf("%d failed authentications in the target's minute %s (budget %d)", tgt.auth[m], m.Format("15:04:05"), FailedAuthBudget)
		}
	}
	// The busiest minute wherever it starts (the worst 60-second span of
	// the run, on any offset).
	for b := range tgt.route {
		if n, from := worstSpan(tgt.log, func(l logged) bool { return !l.auth && l.bucket == b }); n > RouteBudget {
			t.Errorf("%s: %d requests in the 60 s from %s (budget %d)", b, n, from.Format("15:04:05.000"), RouteBudget)
		}
	}
	if n, from := worstSpan(tgt.log, func(l logged) bool { return !l.auth }); n > TenantBudget {
		t.Errorf("tenant: %d requests in the 60 s from %s (budget %d)", n, from.Format("15:04:05.000"), TenantBudget)
	}
	if n, from := worstSpan(tgt.log, func(l logged) bool { return l.auth }); n > FailedAuthBudget {
		t.Errorf("%d failed authentications in the 60 s from %s (budget %d)", n, from.Format("15:04:05.000"), FailedAuthBudget)
	}

	// Throughput: every target minute wholly inside a phase carries near
	// what the limiters let through (route 500 a minute after the burst,
	// tenant 1,600, failed authentications 19).
	inside := func(m, from, until time.Time) bool {
		return !m.Before(from.Add(offset)) && !m.Add(Window).After(until.Add(offset))
	}
	full, routeFull, tenantFull := 0, 0, 0
	for _, m := range minutesOf(tgt.tenant, tgt.auth) {
		if inside(m, start, end) {
			full++
			if tgt.auth[m] < 18 {
				t.Errorf("only %d failed authentications in the target's minute %s: the plan over-throttles (19 a minute sustained)", tgt.auth[m], m.Format("15:04:05"))
			}
		}
		if inside(m, start, routeEnd) {
			routeFull++
			for b := range 2 {
				bk := BucketOf(hammeredRequest(ctx, b, rng))
				if c, sustained := tgt.route[bk][m], RouteSpan-RouteBurst; c < sustained*24/25 {
					t.Errorf("%s: only %d requests in the target's minute %s: the plan over-throttles (%d a minute sustained)", bk, c, m.Format("15:04:05"), sustained)
				}
			}
		}
		if inside(m, routeEnd, end) {
			tenantFull++
		}
		if sustained := TenantSpan - TenantBurst; inside(m, routeEnd, end) && tgt.tenant[m] < sustained*15/16 {
			t.Errorf("tenant: only %d requests in the target's minute %s: the plan over-throttles (%d a minute sustained)", tgt.tenant[m], m.Format("15:04:05"), sustained)
		}
	}
	if full < 3 || routeFull < 1 || tenantFull < 1 {
		t.Errorf("whole minutes of the target: %d in the run, %d in the route phase, %d in the tenant phase: the throughput was not measured", full, routeFull, tenantFull)
	}
	st := p.Stats()
	if st.FailedAuth != len(tgt.log)-countLogged(tgt.log) || st.Unmarked != 0 {
		t.Errorf("stats %+v: want every failed authentication counted, none unmarked", st)
	}
	t.Logf("%d requests, %d failed authentications, %d whole minutes, answers %v", len(tgt.log), st.FailedAuth, full, tgt.status)
}

// countLogged is how many of log spent the route and tenant budgets.
func countLogged(log []logged) int {
	n := 0
	for _, l := range log {
		if !l.auth {
			n++
		}
	}
	return n
}

// TestALimiterCountsARequestWhenItGoesOut: a request that one limiter
// lets out at once but another holds is counted by the first when it is
// reserved, yet goes out when the second lets it: the route's budget then
// overflows in the target's minute. Here 120 requests to other routes
// fill the tenant's limiter (its burst of 300, then 4.5 s of its rate);
// then 90 to route R find R's limiter full (reserved at 0 s) and wait for
// the tenant (out at 4.5-7.9 s); from 4.5 s R is hammered: R's limiter,
// refilled meanwhile, lets through 90 − 90 + 37 at once and 500 a minute
// after, so the target's minute from 4 s carries about 90 + 37 + 500.
func TestALimiterCountsARequestWhenItGoesOut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := New(nil)
		p.ValidKey = issued
		// The target's minute starts at the plan's 4 s.
		tgt := &fakeTarget{offset: 56 * time.Second}
		tr := &Transport{Plan: p, Next: tgt}
		ctx := t.Context()
		rng := rand.New(rand.NewPCG(1, 2))
		var wg sync.WaitGroup
		for i := range TenantBurst + 120 {
			r := hammeredRequest(ctx, 1+i%4, rng)
			wg.Go(func() { send(t, tr, r) })
		}
		synctest.Wait() // the tenant's limiter is spent 4.5 s ahead
		for range RouteBurst {
			r := hammeredRequest(ctx, 0, rng)
			wg.Go(func() { send(t, tr, r) })
		}
		synctest.Wait() // R's limiter counted 90 at 0 s
		for i := range 40 {
			wg.Go(func() {
				rng := rand.New(rand.NewPCG(3, uint64(i)))
				time.Sleep(4500 * time.Millisecond)
				for time.Since(time.Unix(946684800, 0)) < 70*time.Second {
					send(t, tr, hammeredRequest(ctx, 0, rng))
				}
			})
		}
		wg.Wait()
		r := BucketOf(hammeredRequest(ctx, 0, rng))
		tgt.mu.Lock()
		defer tgt.mu.Unlock()
		for _, m := range minutesOf(tgt.route[r]) {
			if c := tgt.route[r][m]; c > RouteBudget {
				t.Errorf("%s: %d requests in the target's minute %s (budget %d; answers %v)", r, c, m.Format("15:04:05"), RouteBudget, tgt.status)
			}
		}
		if n, from := worstSpan(tgt.log, func(l logged) bool { return !l.auth && l.bucket == r }); n > RouteSpan {
			t.Errorf("%s: %d requests in the 60 s from %s, more than the limiter's %d", r, n, from.Format("15:04:05.000"), RouteSpan)
		}
	})
}
