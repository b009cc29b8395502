package traffic

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"
)

// fakeClock is a wall clock that moves only when the pacer sleeps.
type fakeClock struct{ now time.Time }

func (c *fakeClock) pacer() *Plan {
	p := New(nil)
	p.Now = func() time.Time { return c.now }
	p.Sleep = func(_ context.Context, d time.Duration) error { c.now = c.now.Add(d); return nil }
	return p
}

func TestClassifiesByStatusAndCode(t *testing.T) {
	cases := []struct {
		status int
		code   string
		want   bool
	}{
		{401, CodeAuthenticationFailed, true},
		{401, "", true},
		{403, CodeNotAuthorized, true},
		{403, "kyc_or_kyb_not_approved", false},
		{403, "", false},
		{429, "rate_limited", false},
		{200, CodeNotAuthorized, false},
	}
	for _, c := range cases {
		if got := IsFailedAuth(c.status, c.code); got != c.want {
			t.Errorf("IsFailedAuth(%d, %q) = %v, want %v", c.status, c.code, got, c.want)
		}
	}
}

func TestReservesWithinAWindowAndWaitsForTheNext(t *testing.T) {
	clk := &fakeClock{now: time.Date(2026, 1, 1, 10, 0, 30, 0, time.UTC)}
	p := clk.pacer()
	ctx := context.Background()
	a := p.Ticket("a")
	if err := a.Reserve(ctx, 15); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 15; i++ {
		a.Observe(401, CodeAuthenticationFailed)
	}
	a.Close()
	b := p.Ticket("b")
	if err := b.Reserve(ctx, 5); err != nil || !clk.now.Equal(time.Date(2026, 1, 1, 10, 0, 30, 0, time.UTC)) {
		t.Fatalf("5 more fit in the window: err %v, clock moved to %s", err, clk.now)
	}
	b.Close() // caused none: the 5 go back
	c := p.Ticket("c")
	if err := c.Reserve(ctx, 5); err != nil || p.Windows() != 0 {
		t.Fatalf("b's unused reservation was not given back: err %v, %d waits", err, p.Windows())
	}
	for i := 0; i < 5; i++ {
		c.Observe(403, CodeNotAuthorized)
	}
	c.Observe(403, "kyc_or_kyb_not_approved") // not an auth failure
	c.Close()
	d := p.Ticket("d")
	if err := d.Reserve(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if want := time.Date(2026, 1, 1, 10, 1, 2, 0, time.UTC); !clk.now.Equal(want) || p.Windows() != 1 {
		t.Errorf("the 21st reservation should wait for the next window plus margin: clock %s, want %s; waits %d", clk.now, want, p.Windows())
	}
	if p.Total() != 20 {
		t.Errorf("Total %d, want 20", p.Total())
	}
	if got := p.Stats().PerWindow; !slices.Equal(got, []int{20, 0}) {
		t.Errorf("failures per window %v, want [20 0]", got)
	}
}

func TestUnreservedFailuresCountAgainstTheWindow(t *testing.T) {
	clk := &fakeClock{now: time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)}
	p := clk.pacer()
	a := p.Ticket("a")
	for i := 0; i < 18; i++ {
		a.Observe(401, "")
	}
	if a.Unreserved() != 18 {
		t.Errorf("Unreserved %d, want 18", a.Unreserved())
	}
	if err := p.Ticket("b").Reserve(context.Background(), 3); err != nil || p.Windows() != 1 {
		t.Errorf("3 do not fit after 18 unreserved: err %v, waits %d", err, p.Windows())
	}
}

func TestWaitingIsVisible(t *testing.T) {
	clk := &fakeClock{now: time.Date(2026, 1, 1, 10, 0, 40, 0, time.UTC)}
	p := clk.pacer()
	a := p.Ticket("a")
	a.Reserve(context.Background(), 20)
	seen := ""
	var left time.Duration
	p.Sleep = func(_ context.Context, d time.Duration) error {
		seen, left = p.Waiting()
		clk.now = clk.now.Add(d)
		return nil
	}
	p.Ticket("auth/x").Reserve(context.Background(), 2)
	if seen == "" || left != 22*time.Second {
		t.Errorf("while waiting: Waiting() = %q, %s; want what and 22s", seen, left)
	}
	if w, _ := p.Waiting(); w != "" {
		t.Errorf("after the wait Waiting() = %q", w)
	}
}

func TestMinimum(t *testing.T) {
	for n, want := range map[int]time.Duration{0: 0, 20: 0, 21: time.Minute, 40: time.Minute, 170: 8 * time.Minute} {
		if got := Minimum(n); got != want {
			t.Errorf("Minimum(%d) = %s, want %s", n, got, want)
		}
	}
}

// TestAProbeFirstInLineGetsTheNextWindow: a holder that reserves first
// in line (a budget probe that spent one window and needs one failure in
// the next) keeps its room while it waits: a reservation made after it
// in the new window leaves it that room (auth/failed-auth-budget waited
// three windows behind the route-scope tables, holding its claim, and the
// whole-tenant minutes waited for it).
func TestAProbeFirstInLineGetsTheNextWindow(t *testing.T) {
	r := newRig(time.Date(2026, 1, 1, 10, 0, 10, 0, time.UTC))
	p := r.p
	sleeping, proceed := r.pauseFirstSleep(time.Date(2026, 1, 1, 10, 1, 0, 0, time.UTC).Add(p.Margin))
	full := p.Ticket("full")
	if !full.TryReserve(FailedAuthBudget) {
		t.Fatal("no room")
	}
	probe := p.Ticket("probe")
	done := make(chan error)
	go func() { done <- probe.ReserveFirst(context.Background(), 1) }()
	<-sleeping
	// The next window begins while the probe still sleeps: a check
	// starting now finds room for all but the probe's one.
	r.set(time.Date(2026, 1, 1, 10, 1, 0, 0, time.UTC).Add(p.Margin + time.Millisecond))
	other := p.Ticket("other")
	if other.TryReserve(FailedAuthBudget) {
		t.Error("a reservation made after the probe took the whole next window")
	}
	if !other.TryReserve(FailedAuthBudget - 1) {
		t.Error("the rest of the window was not left to others")
	}
	close(proceed)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if a := p.Available(); a != 0 {
		t.Errorf("%d left in the window, want 0 (19 others, 1 the probe's)", a)
	}
	full.Close()
	other.Close()
	probe.Close()
}

// TestAHolderWaitingForTheNextWindowHoldsNothing: a holder that needs
// more than the window has left waits for the next one without keeping
// what it already held in this one (a real-clock run's windows showed
// "20 of 20 spent" while a few failures went out: holders waiting for
// the next window kept part of each).
func TestAHolderWaitingForTheNextWindowHoldsNothing(t *testing.T) {
	r := newRig(time.Date(2026, 1, 1, 10, 0, 10, 0, time.UTC))
	p := r.p
	sleeping, proceed := r.pauseFirstSleep(time.Time{})
	other := p.Ticket("other")
	if !other.TryReserve(12) {
		t.Fatal("no room")
	}
	mine := p.Ticket("mine")
	if !mine.TryReserve(8) {
		t.Fatal("no room")
	}
	done := make(chan error)
	go func() { done <- mine.Reserve(context.Background(), 10) }()
	<-sleeping
	if a := p.Available(); a != 8 {
		t.Errorf("%d available while the holder waits for the next window, want the 8 it held", a)
	}
	close(proceed)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	other.Close()
	mine.Close()
}

// TestAHolderWaitingIsServedBeforeLaterStarts: a holder that waits for
// the next window keeps its place in line there. Checks the scheduler
// starts in the new window before the holder wakes (2 s into it) find
// room for all but the holder's need, and the holder gets it. Without
// the line, ten checks of a real-clock run waited 642 s, from its first
// second to its last minutes, each window taken by checks started at its
// beginning.
func TestAHolderWaitingIsServedBeforeLaterStarts(t *testing.T) {
	r := newRig(time.Date(2026, 1, 1, 10, 0, 10, 0, time.UTC))
	p := r.p
	sleeping, proceed := r.pauseFirstSleep(time.Date(2026, 1, 1, 10, 1, 0, 0, time.UTC).Add(p.Margin))
	full := p.Ticket("full")
	if !full.TryReserve(16) {
		t.Fatal("no room")
	}
	waiting := p.Ticket("waiting")
	done := make(chan error)
	go func() { done <- waiting.Reserve(context.Background(), 5) }()
	<-sleeping
	// In the window it began waiting in, the holder is owed nothing: the
	// room it did not fit in is the run's.
	if a := p.Available(); a != 4 {
		t.Errorf("%d available in the window the holder did not fit in, want the 4 left", a)
	}
	r.set(time.Date(2026, 1, 1, 10, 1, 0, 0, time.UTC).Add(time.Millisecond))
	later := p.Ticket("later")
	if later.TryReserve(16) {
		t.Error("a check started in the new window took the room of a holder waiting since the last")
	}
	if !later.TryReserve(15) {
		t.Error("the room not owed to the holder was not left to others")
	}
	close(proceed)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if w := p.Windows(); w != 1 {
		t.Errorf("the holder waited %d windows, want 1", w)
	}
	if a := p.Available(); a != 0 {
		t.Errorf("%d left in the window, want 0 (15 the later check's, 5 the holder's)", a)
	}
	full.Close()
	later.Close()
	waiting.Close()
}

// pauseFirstSleep makes the plan's first sleep wait: sleeping is sent when
// it begins, and it ends when proceed is closed. Each sleep moves the
// clock on by its length, and at least to until.
func (r *rig) pauseFirstSleep(until time.Time) (sleeping, proceed chan struct{}) {
	sleeping, proceed = make(chan struct{}), make(chan struct{})
	var once sync.Once
	r.p.Sleep = func(_ context.Context, d time.Duration) error {
		once.Do(func() {
			sleeping <- struct{}{}
			<-proceed
		})
		at := r.at().Add(d)
		if at.Before(until) {
			at = until
		}
		r.set(at)
		return nil
	}
	return sleeping, proceed
}
