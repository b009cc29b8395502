package traffic

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// Slot is one budget probe's place in the timetable: the clock minutes of
// the target in which it owns budgets. Its exported fields are set before
// Build.
type Slot struct {
	// Who names the probe (its check id) in the progress line.
	Who string
	// Routes are the route budgets it exhausts: no other request reaches
	// them in its minutes.
	Routes []Bucket
	// Tenant is the most requests it sends in one of its minutes; the
	// probes sharing a minute send at most ProbeTenant together.
	Tenant int
	// Whole: it spends the tenant's whole budget; in its minutes no
	// other request that spends the tenant's budget goes out.
	Whole bool
	// Auth: it causes failed authentications (Failures in its first
	// minute, at most the budget, 0 meaning all of it; Later in each
	// later one): in its minutes no other failed authentication goes out,
	// and the probes sharing a minute cause at most the budget together.
	Auth     bool
	Failures int
	Later    int
	// Minutes is how many clock minutes it needs (at least 1).
	Minutes int

	minute int       // its first minute, counted from the table's start
	start  time.Time // that minute's start on the target's clock
	mu     sync.Mutex
	begun  bool // Await let the probe start
	ended  bool // the probe ended (Timetable.End)
}

// Margin is how long before a probe's minute ordinary traffic stops and
// after its end it starts again (the target's clock is estimated from
// Date to within a round trip and a second's truncation).
const Margin = 2 * time.Second

// Timetable is the clock minutes the probes own, computed before they run.
type Timetable struct {
	mu    sync.Mutex
	slots []*Slot
}

func (s *Slot) minutes() int { return max(1, s.Minutes) }

// failures is what s causes of the failed-auth budget in its minute i
// (0: the first).
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

// overlaps tells whether s and o cannot share a minute.
func (s *Slot) overlaps(o *Slot) bool {
	if s.Whole || o.Whole {
		return true
	}
	for _, b := range s.Routes {
		if slices.Contains(o.Routes, b) {
			return true
		}
	}
	return false
}

// Build places slots, those that cause failed authentications first (the
// minutes they own stop every other one: the fewer, the shorter the run),
// then the others in their order, each in the first minutes from minute 1
// (the first whole minute after first, a time on the target's clock)
// where it overlaps no probe already placed, and the tenant requests and
// failed authentications of the minute's probes stay within ProbeTenant
// and the budget.
func (tt *Timetable) Build(first time.Time, slots []*Slot) {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	base := first.Truncate(Window)
	tt.slots = nil
	slots = slices.Clone(slots)
	slices.SortStableFunc(slots, func(a, b *Slot) int { return b.failures(0) - a.failures(0) })
	for _, s := range slots {
		for m := 1; ; m++ {
			if tt.fits(s, m) {
				s.minute, s.start = m, base.Add(time.Duration(m)*Window)
				tt.slots = append(tt.slots, s)
				break
			}
		}
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
			if s.overlaps(o) {
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

// End marks the probe ended: what it owned is free once its minutes end.
func (tt *Timetable) End(s *Slot) {
	s.mu.Lock()
	s.ended = true
	s.mu.Unlock()
}

// Await waits for second of s's first minute, and marks its probe begun.
func (p *Plan) Await(ctx context.Context, s *Slot, second time.Duration) error {
	if err := p.wait(ctx, "the clock minute of "+s.Who, s.start.Add(second).Sub(p.TargetNow())); err != nil {
		return err
	}
	s.mu.Lock()
	s.begun = true
	s.mu.Unlock()
	return nil
}

// heldUntil tells, for a request of kind k going out at the target's time
// now, when the minute of a probe that owns what it spends ends (zero
// when none does), and which probe. Without any estimate of the target's
// clock (known false) nothing is held: the probes have not begun.
func (tt *Timetable) heldUntil(k Kind, now time.Time, known bool) (time.Time, string) {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	if !known {
		return time.Time{}, ""
	}
	for _, s := range tt.slots {
		s.mu.Lock()
		begun, ended := s.begun, s.ended
		s.mu.Unlock()
		if now.Before(s.start.Add(-Margin)) {
			continue
		}
		if !((k.FailedAuth && s.Auth) || (k.Budgets && (s.Whole || slices.Contains(s.Routes, k.Bucket)))) {
			continue
		}
		// Its minutes are its own even once it ended: the target counts
		// what it spent in them until they end.
		if end := s.End().Add(Margin); now.Before(end) {
			return end, s.Who
		}
		if !begun || ended {
			continue
		}
		// A probe that began and still runs past its minutes keeps what
		// it owns until it ends (End): asked again in a second.
		return now.Add(time.Second), s.Who
	}
	return time.Time{}, ""
}

// Minutes is how many clock minutes the timetable spans from its start
// (the last minute a probe owns).
func (tt *Timetable) Minutes() int {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	n := 0
	for _, s := range tt.slots {
		n = max(n, s.minute+s.minutes())
	}
	return n
}

// String is the timetable, one minute a line, for the README and the run's
// opening lines.
func (tt *Timetable) String() string {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	var b strings.Builder
	last := 0
	for _, s := range tt.slots {
		last = max(last, s.minute+s.minutes()-1)
	}
	for m := 1; m <= last; m++ {
		var who []string
		for _, s := range tt.slots {
			if m >= s.minute && m < s.minute+s.minutes() {
				who = append(who, s.Who)
			}
		}
		fmt.Fprintf(&b, "minute %d: %s\n", m, strings.Join(who, ", "))
	}
	return b.String()
}

// MinutesWhere is how many of the timetable's minutes some probe
// satisfying f owns.
func (tt *Timetable) MinutesWhere(f func(*Slot) bool) int {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	seen := map[int]bool{}
	for _, s := range tt.slots {
		if f(s) {
			for m := s.minute; m < s.minute+s.minutes(); m++ {
				seen[m] = true
			}
		}
	}
	return len(seen)
}
