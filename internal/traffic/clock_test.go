package traffic

import (
	"net/http"
	"testing"
	"time"
)

func TestLearnsTheTargetClockFromDate(t *testing.T) {
	var c dateClock
	if c.offset() != 0 || c.known {
		t.Fatal("an empty clock knows an offset")
	}
	local := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	// The target runs 90 s ahead; answers take 20 ms.
	for i := range 50 {
		sent := local.Add(time.Duration(i) * 137 * time.Millisecond)
		target := sent.Add(90*time.Second + 10*time.Millisecond)
		c.observe(target.Truncate(time.Second).Format(http.TimeFormat), sent, sent.Add(20*time.Millisecond))
	}
	if off := c.offset(); off < 89500*time.Millisecond || off > 90500*time.Millisecond {
		t.Errorf("offset %s, want about 90s", off)
	}
	if c.hi-c.lo > 200*time.Millisecond {
		t.Errorf("bounds [%s, %s] did not narrow", c.lo, c.hi)
	}
	// The target's clock steps back an hour: start again from there.
	sent := local.Add(time.Minute)
	c.observe(sent.Add(-time.Hour).Format(http.TimeFormat), sent, sent.Add(20*time.Millisecond))
	if off := c.offset(); off > -time.Hour+time.Second || off < -time.Hour-time.Second {
		t.Errorf("after the step: offset %s, want about -1h", off)
	}
	// A Date that does not parse changes nothing.
	before := c
	c.observe("yesterday", sent, sent)
	if c != before {
		t.Errorf("an unparsable Date moved the estimate")
	}
}

func TestPlanClockWithin(t *testing.T) {
	p := New(nil)
	if _, known := p.ClockWithin(); known || p.ClockOffset() != 0 {
		t.Fatal("a new plan knows the target's clock")
	}
	sent := time.Date(2026, 1, 1, 10, 0, 0, 400e6, time.UTC)
	p.clock.observe("Thu, 01 Jan 2026 10:00:05 GMT", sent, sent.Add(100*time.Millisecond))
	if w, known := p.ClockWithin(); !known || w != 1100*time.Millisecond {
		t.Errorf("width %s (known %v), want 1.1s", w, known)
	}
	// Offset ∈ [4.5 s, 5.6 s]: the middle, 5.05 s.
	if got, want := p.TargetAt(sent), sent.Add(5050*time.Millisecond); !got.Equal(want) {
		t.Errorf("TargetAt %s, want %s", got, want)
	}
}
