package traffic

import (
	"net/http"
	"time"
)

// TargetNow is the target's clock as well as the plan knows it (the wall
// clock plus the offset learnt from Date headers).
func (p *Plan) TargetNow() time.Time { return p.TargetAt(p.Now()) }

// TargetAt is the target's clock at our time t (e.g. an exchange's).
func (p *Plan) TargetAt(t time.Time) time.Time { return t.Add(p.ClockOffset()) }

// ClockOffset is the target's clock minus ours (0 before any Date).
func (p *Plan) ClockOffset() time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.clock.offset()
}

// ClockWithin is the width of the offset's bounds (hi − lo): the estimate
// is within half of it; known is false before any Date.
func (p *Plan) ClockWithin() (width time.Duration, known bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.clock.hi - p.clock.lo, p.clock.known
}

// dateClock estimates the target's clock from the Date headers of its
// answers (RFC 9110 §6.6.1: one-second resolution). Each answer bounds the
// offset between the target's clock and ours: the target stamped Date
// somewhere between our send and our receipt, and Date is truncated to
// the second, so offset ∈ [Date − received, Date + 1 s − sent]. The
// tightest bounds seen so far give the estimate (their middle).
type dateClock struct {
	known  bool
	lo, hi time.Duration
}

// observe narrows the offset with one answer's Date.
func (c *dateClock) observe(date string, sent, received time.Time) {
	d, err := http.ParseTime(date)
	if err != nil || received.Before(sent) {
		return
	}
	lo, hi := d.Sub(received), d.Add(time.Second).Sub(sent)
	if !c.known {
		c.known, c.lo, c.hi = true, lo, hi
		return
	}
	nlo, nhi := max(c.lo, lo), min(c.hi, hi)
	if nlo > nhi {
		// Inconsistent with what was learnt (the target's clock stepped,
		// or a proxy stamps Date): start again from this answer.
		nlo, nhi = lo, hi
	}
	c.lo, c.hi = nlo, nhi
}

// offset is the estimated target clock minus ours (0 before any answer).
func (c *dateClock) offset() time.Duration {
	if !c.known {
		return 0
	}
	return (c.lo + c.hi) / 2
}

// at is the target's clock at our time now.
func (c *dateClock) at(now time.Time) time.Time { return now.Add(c.offset()) }
