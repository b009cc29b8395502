package check

import (
	"fmt"
	"math"
	"net/http"
	"time"

	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/control"
	"github.com/touchstone-harness/touchstone/internal/traffic"
)

// Clock is the target's clock as a check that probes a rate limit sees it,
// so that one code path serves both clocks: a virtual clock is read and
// moved through the control API; a real one is the traffic plan's estimate
// from Date, waited on.
type Clock struct {
	t *T
	// Virtual: the clock moves only when told.
	Virtual bool
	// Boundary is the second of the next minute a probe goes to when it
	// wants the first moment of a fresh window: :00 on a virtual clock, :02
	// on a real one (whose instant is known to a round trip, long on a
	// loaded machine; the traffic plan waits the same margin).
	Boundary float64
	// Tolerance is how far a Retry-After may be from SecondsLeft: exact on
	// a virtual clock; on a real one the answer's instant is known to a
	// round trip and Date to a second.
	Tolerance int
}

// Clock returns the target's clock, a real one known to about 100 ms.
func (t *T) Clock() *Clock {
	if t.target.VirtualClock() {
		t.Control()
		return &Clock{t: t, Virtual: true}
	}
	c := &Clock{t: t, Boundary: traffic.Margin.Seconds(), Tolerance: 1}
	c.settle()
	return c
}

// settle narrows the plan's estimate by polling the served OpenAPI document
// (no key: it spends no budget) every 20 ms, so that answers fall on both
// sides of a tick of Date, until it is within 100 ms or Date ticked twice
// (then it is about as tight as the round trip allows); at most 3 s.
func (c *Clock) settle() {
	plan, anon := c.t.Target().Plan(), c.t.Anonymous()
	dates := map[string]bool{}
	for deadline := time.Now().Add(3 * time.Second); ; {
		if w, ok := plan.ClockWithin(); ok && w <= 100*time.Millisecond || len(dates) > 2 {
			return
		}
		if time.Now().After(deadline) {
			if len(dates) > 1 {
				return
			}
			c.t.NoVerdict(fmt.Errorf("the Date header did not tick within 3 s"))
		}
		r := c.t.Do(anon, client.Request{Method: http.MethodGet, Path: "/openapi/v1.json"})
		date := r.Header.Get("Date")
		if _, err := http.ParseTime(date); err != nil {
			c.t.NoVerdict(fmt.Errorf("the target sends no usable Date header: %q", date))
		}
		dates[date] = true
		c.sleep(20 * time.Millisecond)
	}
}

// Now is the target's time.
func (c *Clock) Now() time.Time {
	if !c.Virtual {
		return c.t.Target().Plan().TargetNow()
	}
	clk, err := c.t.Control().Clock(c.t.Context())
	if err != nil {
		c.t.NoVerdict(err)
	}
	return clk.Now
}

// Offset turns this machine's times into the target's: 0 on a virtual
// clock (it stands still while a probe sends), else the plan's estimate.
func (c *Clock) Offset() time.Duration {
	if c.Virtual {
		return 0
	}
	return c.t.Target().Plan().ClockOffset()
}

// At is the target's time when r was answered (a virtual clock stands
// still between moves: its time now).
func (c *Clock) At(r *client.Response) time.Time {
	if c.Virtual || r.Exchange == nil {
		return c.Now()
	}
	return c.t.Target().Plan().TargetAt(r.Exchange.Time.Add(r.Exchange.Duration / 2))
}

// To moves to second sec of the current clock minute (next: of the next
// one): a virtual clock is set forward, a real one waited for. A second
// already passed in the current minute is not waited for.
func (c *Clock) To(sec float64, next bool) time.Time {
	now := c.Now()
	at := time.Duration(sec * float64(time.Second))
	want := now.Truncate(time.Minute).Add(at)
	if next {
		want = want.Add(time.Minute)
	}
	d := want.Sub(now)
	if d <= 0 {
		return now
	}
	if !c.Virtual {
		c.t.Logf("waiting %s for the target's %s", d.Round(time.Millisecond), want.Format("15:04:05.0"))
		c.sleep(d)
		return c.Now()
	}
	var clk control.Clock
	var err error
	if next {
		clk, err = c.t.Control().NextMinute(c.t.Context(), at)
		c.t.Target().Plan().Reset()
	} else {
		clk, err = c.t.Control().Advance(c.t.Context(), d)
	}
	if err != nil {
		c.t.NoVerdict(err)
	}
	return clk.Now
}

// Clear makes sure about need is left in the clock minute before a burst:
// on a real clock it waits for the next minute's Boundary when less is
// left (the probe's minutes in the timetable keep its budgets untouched
// meanwhile); a virtual clock stands still.
func (c *Clock) Clear(need time.Duration) {
	if c.Virtual {
		return
	}
	if now := c.Now(); now.Truncate(time.Minute).Add(time.Minute).Sub(now) < need+2*time.Second {
		c.To(c.Boundary, true)
	}
}

// Fresh puts a probe of the tenant's whole budget at the start of the
// clock minute the timetable gives it (a real clock), where no one else
// has spent any of it; on a virtual clock the runner has already moved to
// a fresh minute.
func (c *Clock) Fresh() {
	if c.Virtual {
		return
	}
	slot := traffic.SlotOf(c.t.Context())
	if slot == nil {
		// Run by itself (a replay): the next minute is its own.
		c.To(1, true)
		return
	}
	start := slot.Start()
	if now := c.Now(); now.Before(start.Add(time.Second)) {
		c.sleep(start.Add(time.Second).Sub(now))
	}
	c.t.Logf("the clock minute from %s is this probe's own", start.Format("15:04:05"))
}

// sleep waits d, counted as a wait (not the check's own time: see
// traffic.WaitFor).
func (c *Clock) sleep(d time.Duration) {
	if err := traffic.WaitFor(c.t.Context(), d); err != nil {
		c.t.NoVerdict(err)
	}
}

// SecondsLeft is the whole seconds, rounded up and at least 1, until the
// clock minute of at ends: the Retry-After of a 429 answered at at
// (RATE-016).
func SecondsLeft(at time.Time) int {
	left := at.Truncate(time.Minute).Add(time.Minute).Sub(at)
	return max(1, int(math.Ceil(left.Seconds())))
}

// Same tells whether every response was answered in one clock minute (a
// virtual clock stands still: always).
func (c *Clock) Same(rs ...*client.Response) bool {
	if c.Virtual || len(rs) == 0 {
		return true
	}
	first := c.At(rs[0]).Truncate(time.Minute)
	for _, r := range rs[1:] {
		if r != nil && !c.At(r).Truncate(time.Minute).Equal(first) {
			return false
		}
	}
	return true
}
