package check

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/touchstone-harness/touchstone/internal/traffic"
)

// TestClaimHoldersShareTheWindowOnARealClock: on a real clock, budget
// probes (alone, with a Budget) run beside each other and beside the rest
// of the run when their route budgets are disjoint, one after the other
// when they share one, and do not count against --parallel.
func TestClaimHoldersShareTheWindowOnARealClock(t *testing.T) {
	tgt := wrongServer(t) // no control API: a real clock
	var mu sync.Mutex
	running := map[string]bool{}
	together := map[[2]string]bool{}
	allIn := make(chan struct{})
	var once sync.Once
	// meet records which checks run at once, and waits (bounded) until
	// three run at once, or lets go.
	meet := func(t *T) {
		mu.Lock()
		for o := range running {
			together[[2]string{o, t.check.ID}], together[[2]string{t.check.ID, o}] = true, true
		}
		running[t.check.ID] = true
		n := len(running)
		mu.Unlock()
		if n == 3 {
			once.Do(func() { close(allIn) })
		}
		select {
		case <-allIn:
		case <-time.After(2 * time.Second):
		}
		mu.Lock()
		delete(running, t.check.ID)
		mu.Unlock()
	}
	probe := func(id, route string) *Check {
		return &Check{ID: id, Title: "t", Rules: []string{"RATE-004"}, Labels: []string{Alone},
			Budget: &Budget{Routes: []string{route}, Tenant: 600},
			Run:    meet}
	}
	normal := &Check{ID: "demo/normal", Title: "t", Rules: []string{"X-001"}, Run: meet}
	a := probe("demo/probe-a", "tenant GET /api/v1/partner/me")
	b := probe("demo/probe-b", "tenant GET /api/v1/partner/customers")
	c := probe("demo/probe-c", "tenant GET /api/v1/partner/me")
	s := NewSchedule(tgt, []*Check{a, b, c, normal}, 1)
	var order []string
	s.OnResult = func(r *Result) { order = append(order, r.ID+":"+string(r.Status)) }
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s.Start(ctx)
	s.Wait()
	if len(order) != 4 {
		t.Fatalf("results %v", order)
	}
	for _, o := range order {
		if o[len(o)-6:] != "passed" {
			t.Errorf("result %s", o)
		}
	}
	if !together[[2]string{"demo/probe-a", "demo/probe-b"}] {
		t.Error("two probes on disjoint route budgets did not run at the same time")
	}
	if !together[[2]string{"demo/probe-a", "demo/normal"}] && !together[[2]string{"demo/probe-b", "demo/normal"}] {
		t.Error("a probe holding a claim kept the rest of the run (--parallel 1) waiting")
	}
	if together[[2]string{"demo/probe-a", "demo/probe-c"}] {
		t.Error("two probes exhausting the same route budget ran at the same time")
	}
	if tgt.Plan().Claims() != 0 {
		t.Errorf("%d claims left after the run", tgt.Plan().Claims())
	}
}

// TestAWaitingCheckLendsItsSlotOnARealClock: a check waiting for the
// traffic plan (here a clock-minute wait counted in its Waits) does not
// hold its worker slot: with --parallel 1 the next check runs meanwhile.
// A real-clock run's pool filled with checks waiting for a probe's
// release, and the failed-auth windows of its first minutes went unused.
func TestAWaitingCheckLendsItsSlotOnARealClock(t *testing.T) {
	tgt := wrongServer(t) // no control API: a real clock
	ran := make(chan struct{})
	waiter := &Check{ID: "demo/a-waits", Title: "t", Rules: []string{"X-001"}, Run: func(t *T) {
		// Waits for the plan up to 5 s, and ends as soon as the other
		// check has run meanwhile.
		waitUntilClosed(t, ran, 5*time.Second)
		select {
		case <-ran:
		default:
			t.Errorf("X-001", "the other check did not run while this one waited")
		}
	}}
	other := &Check{ID: "demo/b-runs", Title: "t", Rules: []string{"X-002"}, Run: func(*T) { close(ran) }}
	s := NewSchedule(tgt, []*Check{waiter, other}, 1)
	var order []string
	s.OnResult = func(r *Result) { order = append(order, r.ID+":"+string(r.Status)) }
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s.Start(ctx)
	s.Wait()
	if len(order) != 2 || order[0] != "demo/a-waits:passed" || order[1] != "demo/b-runs:passed" {
		t.Errorf("results %v", order)
	}
}

// TestWaitingChecksLeaveAProbeItsWorker: checks waiting for the plan lend
// their slots to other checks, never the workers kept for claim holders:
// a real-clock run's pool filled with checks waiting for probes whose
// claims were booked, and the probes never got a worker to run on.
func TestWaitingChecksLeaveAProbeItsWorker(t *testing.T) {
	tgt := wrongServer(t) // no control API: a real clock
	probed := make(chan struct{})
	var cs []*Check
	for i := range 10 {
		cs = append(cs, &Check{ID: fmt.Sprintf("demo/a-waits-%02d", i), Title: "t", Rules: []string{"X-001"}, Run: func(t *T) {
			waitUntilClosed(t, probed, 5*time.Second)
			select {
			case <-probed:
			default:
				t.Errorf("X-001", "the probe did not run while this check waited")
			}
		}})
	}
	cs = append(cs, &Check{ID: "demo/z-probe", Title: "t", Rules: []string{"RATE-004"}, Labels: []string{Alone},
		Budget: &Budget{Routes: []string{"tenant GET /api/v1/partner/me"}, Tenant: 600},
		Run:    func(*T) { close(probed) }})
	// The probe's claim is booked, not granted, in the run's first
	// minute; the next begins once the other checks all wait.
	plan := tgt.Plan()
	var mu sync.Mutex
	now := time.Date(2026, 1, 1, 10, 0, 10, 0, time.UTC)
	plan.Now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	plan.UntrustedFirstWindow = true
	go func() {
		time.Sleep(500 * time.Millisecond)
		mu.Lock()
		now = time.Date(2026, 1, 1, 10, 1, 5, 0, time.UTC)
		mu.Unlock()
	}()
	s := NewSchedule(tgt, cs, 1)
	var failed []string
	s.OnResult = func(r *Result) {
		if r.Status != Passed {
			failed = append(failed, r.ID+":"+string(r.Status))
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s.Start(ctx)
	s.Wait()
	if len(failed) != 0 {
		t.Errorf("not passed: %v", failed)
	}
}

// TestWaitingChecksLeaveRoomForFailedAuth: checks that cause no failed
// authentication never take the last workers kept for waiting checks: a
// check that spends the failed-auth window still starts once it fits,
// though every other check waits (the windows bound a real-clock run).
func TestWaitingChecksLeaveRoomForFailedAuth(t *testing.T) {
	tgt := wrongServer(t) // no control API: a real clock
	hold := tgt.Plan().Ticket("someone else")
	if !hold.TryReserve(traffic.Budget) {
		t.Fatal("no room")
	}
	go func() {
		time.Sleep(300 * time.Millisecond)
		hold.Close()
	}()
	spent := make(chan struct{})
	var cs []*Check
	for i := range 4 {
		cs = append(cs, &Check{ID: fmt.Sprintf("demo/a-waits-%02d", i), Title: "t", Rules: []string{"X-001"}, Run: func(t *T) {
			waitUntilClosed(t, spent, 5*time.Second)
		}})
	}
	cs = append(cs, &Check{ID: "demo/z-failed-auth", Title: "t", Rules: []string{"X-002"}, FailedAuth: 1,
		Run: func(*T) { close(spent) }})
	s := NewSchedule(tgt, cs, 1)
	var took time.Duration
	s.OnFinish = func(r *Result) {
		if r.ID == "demo/z-failed-auth" {
			took = time.Since(r.Started)
		}
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s.Start(ctx)
	s.Wait()
	if time.Since(start) > 4*time.Second {
		t.Errorf("the run took %s: the check spending failed authentications waited for the others' 5 s (took %s)", time.Since(start).Round(time.Millisecond), took)
	}
}

// TestARealClockHoldsOnlyWhatAConformantTargetCauses: on a real clock a
// check reserves the failed authentications a conformant target causes,
// not the room it keeps in case the target refuses what it should accept
// (auth/me-prefix-every-key held 13 for keys that all pass, in a window of
// its own, near the end of every real-clock run).
func TestARealClockHoldsOnlyWhatAConformantTargetCauses(t *testing.T) {
	tgt := wrongServer(t) // no control API: a real clock
	var atStart, afterAtMost, afterSpend int
	c := &Check{ID: "demo/holds", Title: "t", Rules: []string{"X-001"}, FailedAuth: 2, FailedAuthHold: 12,
		Run: func(t *T) {
			atStart = t.Target().Plan().Available()
			t.SpendAuthFailuresAtMost(0, 13)
			afterAtMost = t.Target().Plan().Available()
			t.SpendAuthFailures(12)
			afterSpend = t.Target().Plan().Available()
		}}
	s := NewSchedule(tgt, []*Check{c}, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s.Start(ctx)
	s.Wait()
	if atStart != traffic.Budget-2 {
		t.Errorf("%d left in the window when the check started, want %d (it causes 2, holds 12 only in case)", atStart, traffic.Budget-2)
	}
	if afterAtMost != atStart {
		t.Errorf("SpendAuthFailuresAtMost(0, 13) reserved %d on a real clock, want none", atStart-afterAtMost)
	}
	// auth/unbound-key-by-id-404 reserved 4 for refusals a conformant
	// target never gives, and waited minutes for a window with 4 free.
	if afterSpend != atStart {
		t.Errorf("SpendAuthFailures(12) by a check causing 2 (held) reserved %d more on a real clock, want none", atStart-afterSpend)
	}
}

// waitUntilClosed waits for the traffic plan (a wait counted in the
// check's Waits) until ch is closed or max has passed.
func waitUntilClosed(t *T, ch <-chan struct{}, max time.Duration) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go func() {
		select {
		case <-ch:
		case <-time.After(max):
		}
		cancel()
	}()
	traffic.WaitFor(ctx, max)
}

// TestRefusalsFirstAreKeptForTheTenantsWholeMinutes: on a real clock the
// checks that cause their failed authentications before any request that
// spends a budget start before a probe's whole-tenant minute only while a
// window's worth of them stays pending for it, and go first in it. Started
// earlier, they had all finished when the probes' minutes came, and those
// minutes' failed-auth windows went unused (6 and 0 of 20 in a measured
// run) while the checks held behind the probes caused theirs after.
func TestRefusalsFirstAreKeptForTheTenantsWholeMinutes(t *testing.T) {
	tgt := wrongServer(t) // no control API: a real clock
	plan := tgt.Plan()
	var mu sync.Mutex
	now := time.Date(2026, 1, 1, 10, 0, 10, 0, time.UTC)
	plan.Now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	whole := &Check{ID: "demo/whole", Title: "t", Rules: []string{"RATE-010"}, Labels: []string{Alone},
		Budget: &Budget{WholeTenant: true, Tenant: traffic.TenantBudget + 1}, Run: func(*T) {}}
	first := func(id string, n int) *Check {
		return &Check{ID: id, Title: "t", Rules: []string{"X-001"}, FailedAuth: n, RefusalsFirst: true, Run: func(*T) {}}
	}
	big, other, small := first("demo/first-big", 12), first("demo/first-other", 12), first("demo/first-small", 3)
	mixed := &Check{ID: "demo/mixed", Title: "t", Rules: []string{"X-002"}, FailedAuth: 5, Run: func(*T) {}}
	s := NewSchedule(tgt, []*Check{whole, big, other, small, mixed}, 4)
	s.mu.Lock()
	defer s.mu.Unlock()
	w := s.wholeMinutes()
	if w.keep != traffic.Budget || w.left != 27 {
		t.Fatalf("before the probe: keep %d of %d, want %d of 27", w.keep, w.left, traffic.Budget)
	}
	for _, c := range []*Check{big, other} {
		if !w.holds(c) {
			t.Errorf("%s starts though it would leave fewer than %d for the probe's minute", c.ID, traffic.Budget)
		}
	}
	if w.holds(small) || w.holds(mixed) {
		t.Error("a check that leaves the probe's minute its window (or causes failures after spending) is held")
	}
	// The probe's claim is granted for the next minute: still kept.
	if !plan.TryClaim(claimFor(tgt, whole)) {
		t.Fatal("the whole-tenant claim was not granted")
	}
	s.pending = s.pending[1:]
	if w = s.wholeMinutes(); !w.holds(big) {
		t.Error("the probe's minute is booked, not begun, and the checks kept for it start")
	}
	mu.Lock()
	now = now.Add(time.Minute)
	mu.Unlock()
	w = s.wholeMinutes()
	if !w.now || w.holds(big) || w.holds(other) {
		t.Fatalf("in the probe's minute the kept checks are still held (%+v)", w)
	}
	if o := s.order(w); s.pending[o[0]] != big || s.pending[o[1]] != other || s.pending[o[2]] != small || s.pending[o[3]] != mixed {
		t.Errorf("in the probe's minute the order is %v, want the RefusalsFirst checks first, most first", o)
	}
}
