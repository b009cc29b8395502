package traffic

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Slot is one budget probe's place in the timetable: the clock minutes of
// the target in which it owns what it spends. The exported fields are set
// before Build.
type Slot struct {
	Who    string   // the probe (its check id)
	Routes []Bucket // route budgets no other request reaches in its minutes
	// Tenant is the most it sends in one of its minutes; the probes
	// sharing a minute send at most ProbeTenant together.
	Tenant int
	// Whole: it spends the tenant's whole budget, in minutes of its own.
	Whole bool
	// Auth: it causes failed authentications (Failures in its first
	// minute, 0 meaning the whole budget; Later in each later one): no
	// other goes out in its minutes, and the probes sharing a minute cause
	// at most the budget together.
	Auth            bool
	Failures, Later int
	Minutes         int // clock minutes it needs (at least 1)

	minute       int       // its first minute, counted from the table's start
	start        time.Time // that minute's start on the target's clock
	begun, ended atomic.Bool
}

// Margin is how long before a probe's minutes ordinary traffic stops, and
// after their end it starts again: the target's clock is known from Date
// to within a round trip.
const Margin = 2 * time.Second

// Timetable is the clock minutes the probes own, computed before they run.
type Timetable struct {
	mu    sync.Mutex
	slots []*Slot
}

func (s *Slot) minutes() int { return max(1, s.Minutes) }

// failures is what s causes of the failed-auth budget in its minute i (0:
// its first).
func (s *Slot) failures(i int) int {
	switch {
	case !s.Auth:
		return 0
	case i > 0:
		return min(s.Later, FailedAuthBudget)
	case s.Failures <= 0 || s.Failures > FailedAuthBudget:
		return FailedAuthBudget
	}
	return s.Failures
}

// Build places slots, those causing the most failed authentications first
// (their minutes stop every other one: the fewer, the shorter the run), the
// rest in their order, each in the first minutes from minute 1 (the first
// whole minute after first, on the target's clock) where it shares no
// budget with a probe placed there (a whole-tenant probe shares all), and
// the minute's probes stay within ProbeTenant and the failed-auth budget.
func (tt *Timetable) Build(first time.Time, slots []*Slot) {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	tt.slots = nil
	slots = slices.Clone(slots)
	slices.SortStableFunc(slots, func(a, b *Slot) int { return b.failures(0) - a.failures(0) })
	for _, s := range slots {
		m := 1
		for !tt.fits(s, m) {
			m++
		}
		s.minute, s.start = m, first.Truncate(Window).Add(time.Duration(m)*Window)
		tt.slots = append(tt.slots, s)
	}
}

// fits tells whether s may own minutes m… Callers hold tt.mu.
func (tt *Timetable) fits(s *Slot, m int) bool {
	for i := m; i < m+s.minutes(); i++ {
		tenant, failures := s.Tenant, s.failures(i-m)
		for _, o := range tt.slots {
			if i < o.minute || i >= o.minute+o.minutes() {
				continue
			}
			if s.Whole || o.Whole || slices.ContainsFunc(s.Routes, func(b Bucket) bool { return slices.Contains(o.Routes, b) }) {
				return false
			}
			tenant, failures = tenant+o.Tenant, failures+o.failures(i-o.minute)
		}
		if (!s.Whole && tenant > ProbeTenant) || failures > FailedAuthBudget {
			return false
		}
	}
	return true
}

// Start is the start of s's first minute on the target's clock.
func (s *Slot) Start() time.Time { return s.start }

// End is the end of s's last minute on the target's clock.
func (s *Slot) End() time.Time { return s.start.Add(time.Duration(s.minutes()) * Window) }

// End marks s's probe ended: what it owns is free once its minutes end.
func (tt *Timetable) End(s *Slot) { s.ended.Store(true) }

// Await waits for second of s's first minute, and marks its probe begun.
func (p *Plan) Await(ctx context.Context, s *Slot, second time.Duration) error {
	if err := p.wait(ctx, "the clock minute of "+s.Who, s.start.Add(second).Sub(p.TargetNow())); err != nil {
		return err
	}
	s.begun.Store(true)
	return nil
}

// heldUntil tells until when a request of kind k going out at the target's
// time now is held by a probe owning what it spends (zero: not held), and
// which probe. Before any Date (known false) nothing is: no probe has begun.
func (tt *Timetable) heldUntil(k Kind, now time.Time, known bool) (time.Time, string) {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	for _, s := range tt.slots {
		if !known || now.Before(s.start.Add(-Margin)) ||
			!((k.FailedAuth && s.Auth) || (k.Budgets && (s.Whole || slices.Contains(s.Routes, k.Bucket)))) {
			continue
		}
		// Its minutes are its own even once it ended: the target counts
		// what it spent in them until they end.
		if end := s.End().Add(Margin); now.Before(end) {
			return end, s.Who
		}
		// One that began and runs past its minutes keeps what it owns
		// until it ends: asked again in a second.
		if s.begun.Load() && !s.ended.Load() {
			return now.Add(time.Second), s.Who
		}
	}
	return time.Time{}, ""
}

// Owners is, for each minute of the timetable from minute 1, the probes
// that own it.
func (tt *Timetable) Owners() [][]*Slot {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	var ms [][]*Slot
	for _, s := range tt.slots {
		for m := s.minute; m < s.minute+s.minutes(); m++ {
			for len(ms) < m {
				ms = append(ms, nil)
			}
			ms[m-1] = append(ms[m-1], s)
		}
	}
	return ms
}

// String is the timetable, one minute a line.
func (tt *Timetable) String() string {
	var b strings.Builder
	for i, ss := range tt.Owners() {
		who := make([]string, len(ss))
		for j, s := range ss {
			who[j] = s.Who
		}
		fmt.Fprintf(&b, "minute %d: %s\n", i+1, strings.Join(who, ", "))
	}
	return b.String()
}
