package traffic

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// virtualRig is a plan on a virtual clock: the fake target's minute moves
// only when the plan calls Advance (counted) or the test moves it; the
// plan must never sleep.
type virtualRig struct {
	p        *Plan
	tgt      *fakeTarget
	tr       *Transport
	minute   atomic.Int64
	advances atomic.Int64
}

func newVirtualRig(t *testing.T) *virtualRig {
	v := &virtualRig{}
	v.p = New(func(context.Context) error {
		v.advances.Add(1)
		v.minute.Add(1)
		return nil
	})
	v.p.ValidKey = issued
	v.p.Sleep = func(_ context.Context, d time.Duration) error {
		t.Errorf("the plan slept %s on a virtual clock", d)
		return nil
	}
	base := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	v.tgt = &fakeTarget{now: func() time.Time { return base.Add(time.Duration(v.minute.Load())*Window + 30*time.Second) }}
	v.p.Now = v.tgt.now
	v.tr = &Transport{Plan: v.p, Next: v.tgt}
	return v
}

func (v *virtualRig) send(t *testing.T, n int, r func() *http.Request) {
	t.Helper()
	for range n {
		if s := send(t, v.tr, r()); s == http.StatusTooManyRequests || s == 0 {
			t.Fatalf("answered %d", s)
		}
	}
}

func (v *virtualRig) noOverflow(t *testing.T) {
	t.Helper()
	v.tgt.mu.Lock()
	defer v.tgt.mu.Unlock()
	if v.tgt.status[http.StatusTooManyRequests] > 0 {
		t.Errorf("the target answered 429: %v", v.tgt.status)
	}
	for b, per := range v.tgt.route {
		for m, c := range per {
			if c > RouteBudget {
				t.Errorf("%s: %d in minute %s", b, c, m.Format("15:04"))
			}
		}
	}
	for m, c := range v.tgt.auth {
		if c > FailedAuthBudget {
			t.Errorf("%d failed authentications in minute %s", c, m.Format("15:04"))
		}
	}
}

func meRequest() *http.Request {
	return request(context.Background(), http.MethodGet, "/api/v1/partner/me", alphaKey)
}

// Requests beyond a minute's budget move the virtual clock to its next
// minute (one Advance per minute spent), never sleep.
func TestAVirtualClockMovesToItsNextMinuteWhenABudgetIsSpent(t *testing.T) {
	v := newVirtualRig(t)
	whole := RouteBudget - 10
	v.send(t, 3*whole+5, meRequest)
	if n := v.advances.Load(); n != 3 {
		t.Errorf("%d requests on one route: %d Advances, want 3 (%d a minute)", 3*whole+5, n, whole)
	}
	v.noOverflow(t)

	// Failed authentications: 20 a minute.
	v = newVirtualRig(t)
	v.send(t, 2*FailedAuthBudget+1, func() *http.Request {
		return request(context.Background(), http.MethodGet, "/api/v1/partner/me", unknownKey)
	})
	if n := v.advances.Load(); n != 2 {
		t.Errorf("%d failed authentications: %d Advances, want 2", 2*FailedAuthBudget+1, n)
	}
	v.noOverflow(t)

	// The tenant: 5,900 a minute across routes.
	v = newVirtualRig(t)
	for i := range TenantBudget - 100 + 1 {
		v.send(t, 1, func() *http.Request {
			return request(context.Background(), http.MethodGet, "/api/v1/partner/customers/"+string(rune('a'+i%11)), alphaKey)
		})
	}
	if n := v.advances.Load(); n != 1 {
		t.Errorf("5,901 requests on 11 routes: %d Advances, want 1", n)
	}
	v.noOverflow(t)

	// Requests the plan does not sort (not /api/) never move it.
	v = newVirtualRig(t)
	v.send(t, 700, func() *http.Request { return request(context.Background(), http.MethodGet, "/openapi/v1.json", "") })
	if n := v.advances.Load(); n != 0 {
		t.Errorf("700 requests outside /api/: %d Advances", n)
	}
}

// Requests that find the budget spent while another moves the clock wait
// for that move: one Advance for all of them.
func TestConcurrentWaitersShareOneAdvance(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newVirtualRig(t)
		release := make(chan struct{})
		v.p.Advance = func(ctx context.Context) error {
			v.advances.Add(1)
			<-release
			v.minute.Add(1)
			return nil
		}
		v.send(t, RouteBudget-10, meRequest)
		var wg sync.WaitGroup
		codes := make(chan int, 100)
		for range 100 {
			wg.Go(func() { codes <- send(t, v.tr, meRequest()) })
		}
		synctest.Wait() // every request waits for the move under way
		if n := v.advances.Load(); n != 1 {
			t.Errorf("100 requests waiting for the next minute: %d Advances, want 1", n)
		}
		close(release)
		wg.Wait()
		close(codes)
		for c := range codes {
			if c != http.StatusOK {
				t.Errorf("answered %d", c)
			}
		}
		if n := v.advances.Load(); n != 1 {
			t.Errorf("%d Advances, want 1", n)
		}
		v.noOverflow(t)
	})
}

// Fresh moves the clock to a fresh minute (every budget untouched);
// Reset tells the plan the caller moved it; a failed Advance fails the
// request.
func TestFreshAndReset(t *testing.T) {
	whole := RouteBudget - 10
	v := newVirtualRig(t)
	v.send(t, whole, meRequest)
	if err := v.p.Fresh(context.Background()); err != nil || v.advances.Load() != 1 {
		t.Fatalf("Fresh: %v, %d Advances", err, v.advances.Load())
	}
	v.send(t, whole, meRequest)
	if n := v.advances.Load(); n != 1 {
		t.Errorf("after Fresh a whole minute's budget moved the clock again (%d Advances)", n)
	}
	// The caller moves the target's clock itself, then tells the plan.
	v.minute.Add(1)
	v.p.Reset()
	v.send(t, whole, meRequest)
	if n := v.advances.Load(); n != 1 {
		t.Errorf("after Reset a whole minute's budget moved the clock again (%d Advances)", n)
	}
	v.noOverflow(t)

	// Without Reset, the plan's limiters still count the old minute:
	// one more request moves the clock (never an overflow).
	v.send(t, 1, meRequest)
	if n := v.advances.Load(); n != 2 {
		t.Errorf("a spent minute: %d Advances, want 2", n)
	}

	// A real clock: Fresh does nothing.
	c := &fakeClock{now: t0}
	if err := planOn(c).Fresh(context.Background()); err != nil || len(c.slept()) != 0 {
		t.Errorf("Fresh on a real clock: %v, slept %v", err, c.slept())
	}

	// A failed move fails the request that needed it.
	v = newVirtualRig(t)
	bad := errors.New("control API down")
	v.p.Advance = func(context.Context) error { return bad }
	v.send(t, whole, meRequest)
	if _, err := v.tr.RoundTrip(meRequest()); !errors.Is(err, bad) {
		t.Errorf("a request past the budget with a failing Advance: %v, want %v", err, bad)
	}
	// The clock did not move: the next request still needs a move.
	v.p.Advance = func(context.Context) error { v.advances.Add(1); v.minute.Add(1); return nil }
	v.send(t, 1, meRequest)
	if n := v.advances.Load(); n != 1 {
		t.Errorf("after a failed Advance the plan counted a fresh minute: %d Advances, want 1", n)
	}
	v.noOverflow(t)
}
