package check

import (
	"fmt"
	"math"
	"net/http"
	"sync"
	"time"

	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/traffic"
)

// Clock is the target's clock as a check that probes a rate limit sees it,
// so that one code path serves both clocks: a virtual clock is read and
// moved through the control API; a real one is estimated from Date and
// waited on.
type Clock struct {
	t       *T
	virtual bool
	off     time.Duration // real: target time minus ours
}

var offsets sync.Map // *Target -> time.Duration

// Clock returns the target's clock. On a real clock the first call of the
// run estimates the target's offset from Date, polled across a tick of its
// seconds on the served OpenAPI document (no key: it spends no budget).
func (t *T) Clock() *Clock {
	c := &Clock{t: t, virtual: t.target.VirtualClock()}
	if c.virtual {
		t.Control()
		return c
	}
	if v, ok := offsets.Load(t.target); ok {
		c.off = v.(time.Duration)
		return c
	}
	c.off = c.estimate()
	offsets.Store(t.target, c.off)
	return c
}

func (c *Clock) estimate() time.Duration {
	t := c.t
	anon := t.Anonymous()
	var prevDate, prevMid time.Time
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		sent := time.Now()
		r := t.Do(anon, client.Request{Method: http.MethodGet, Path: "/openapi/v1.json"})
		recv := time.Now()
		d, err := http.ParseTime(r.Header.Get("Date"))
		if err != nil {
			t.NoVerdict(fmt.Errorf("the target sends no usable Date header: %q", r.Header.Get("Date")))
		}
		mid := sent.Add(recv.Sub(sent) / 2)
		if !prevDate.IsZero() && d.After(prevDate) {
			return d.Sub(prevMid.Add(mid.Sub(prevMid) / 2))
		}
		prevDate, prevMid = d, mid
		c.sleep(20 * time.Millisecond)
	}
	t.NoVerdict(fmt.Errorf("the Date header did not tick within 3 s"))
	return 0
}

// Virtual tells whether the clock moves only when told.
func (c *Clock) Virtual() bool { return c.virtual }

// Now is the target's time.
func (c *Clock) Now() time.Time {
	if c.virtual {
		clk, err := c.t.Control().Clock(c.t.Context())
		if err != nil {
			c.t.NoVerdict(err)
		}
		return clk.Now
	}
	return time.Now().Add(c.off)
}

// At is the target's time when r was answered (a virtual clock stands
// still between moves: its time now).
func (c *Clock) At(r *client.Response) time.Time {
	if c.virtual || r.Exchange == nil {
		return c.Now()
	}
	return r.Exchange.Time.Add(r.Exchange.Duration / 2).Add(c.off)
}

// To moves to second sec of the current clock minute (next: of the next
// one): a virtual clock is set forward, a real one waited for. A second
// already passed in the current minute is not waited for.
func (c *Clock) To(sec float64, next bool) time.Time {
	now := c.Now()
	want := now.Truncate(time.Minute).Add(time.Duration(sec * float64(time.Second)))
	if next {
		want = want.Add(time.Minute)
	}
	d := want.Sub(now)
	if d <= 0 {
		return now
	}
	if c.virtual {
		var err error
		var clk struct{ Now time.Time }
		if next {
			r, e := c.t.Control().NextMinute(c.t.Context(), time.Duration(sec*float64(time.Second)))
			clk.Now, err = r.Now, e
		} else {
			r, e := c.t.Control().Advance(c.t.Context(), d)
			clk.Now, err = r.Now, e
		}
		if err != nil {
			c.t.NoVerdict(err)
		}
		if next {
			c.t.Target().Plan().Reset()
		}
		return clk.Now
	}
	c.t.Logf("waiting %s for the target's %s", d.Round(time.Millisecond), want.Format("15:04:05.0"))
	c.sleep(d)
	return c.Now()
}

// Left is how long is left in the current clock minute.
func (c *Clock) Left() time.Duration {
	now := c.Now()
	return now.Truncate(time.Minute).Add(time.Minute).Sub(now)
}

// Clear makes sure about need is left in the clock minute before a burst:
// on a real clock it waits for :01 of the next minute when less is left
// (the probe's minutes in the timetable keep its budgets untouched
// meanwhile); a virtual
// clock stands still.
func (c *Clock) Clear(need time.Duration) {
	if !c.virtual && c.Left() < need+2*time.Second {
		c.To(c.Boundary(), true)
	}
}

// Fresh puts a probe of the tenant's whole budget at the start of the
// clock minute the timetable gives it (a real clock), where no one else
// has spent any of it; on a virtual clock the runner has already moved to
// a fresh minute.
func (c *Clock) Fresh() {
	if c.virtual {
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

// Tolerance is how far a Retry-After may be from SecondsLeft: exact on a
// virtual clock; on a real one the answer's instant is known to a round
// trip and Date to a second.
func (c *Clock) Tolerance() int {
	if c.virtual {
		return 0
	}
	return 1
}

// Same tells whether every response was answered in one clock minute (a
// virtual clock stands still: always).
func (c *Clock) Same(rs ...*client.Response) bool {
	if c.virtual || len(rs) == 0 {
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

// Boundary is the second of the next minute a probe goes to when it wants
// the first moment of a fresh window: :00 on a virtual clock, :02 on a real
// one (whose instant is known to a round trip, long on a loaded machine;
// the traffic plan waits the same margin).
func (c *Clock) Boundary() float64 {
	if c.virtual {
		return 0
	}
	return 2
}
