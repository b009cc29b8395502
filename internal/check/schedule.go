package check

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/touchstone-harness/touchstone/internal/traffic"
)

// Alone is the label of a check that must have the target to itself (see
// Check.Alone).
const Alone = "alone"

// Schedule runs checks in one static order:
//
//  1. together: the budget probes of a real clock, each at the clock
//     minute the timetable gives it (traffic.Timetable), and two lanes of
//     parallel workers each: one for the checks that cause failed
//     authentications (their pace is the failed-auth limiter's, 19 a
//     minute on a real clock, where the lane has authLane times as many),
//     one for the rest. A lane's worker takes
//     the first check of its lane whose serial group is free;
//  2. then the checks that must be alone, one at a time, nothing else
//     running (last, so that a target that stops answering is judged so
//     by checks in parallel, within one request timeout).
//
// Results are handed out in the checks' order, whatever order they finish
// in, so the console and the reports are the same run after run.
type Schedule struct {
	target   *Target
	parallel int
	checks   []*Check
	// OnResult, when set before Start, hears each result in the checks'
	// order, as soon as every check before it has finished; OnFinish
	// hears each as it finishes, in any order.
	OnResult func(*Result)
	OnFinish func(*Result)
	// OnTimetable, when set, hears the probes' timetable once it is built
	// (a real clock, after the alone checks), one minute a line.
	OnTimetable func(string)

	mu      sync.Mutex
	cond    *sync.Cond
	groups  map[string]bool
	done    map[string]chan *Result
	results map[string]*Result
	next    int // index of the next result to hand out
	once    sync.Once
	ended   chan struct{}
}

// NewSchedule prepares cs (in the order results are handed out) for
// parallel workers a lane (at least 1).
func NewSchedule(target *Target, cs []*Check, parallel int) *Schedule {
	s := &Schedule{target: target, parallel: max(1, parallel), checks: cs,
		groups: map[string]bool{}, done: map[string]chan *Result{}, results: map[string]*Result{}, ended: make(chan struct{})}
	s.cond = sync.NewCond(&s.mu)
	for _, c := range cs {
		s.done[c.ID] = make(chan *Result, 1)
	}
	return s
}

// Has tells whether the schedule runs check id.
func (s *Schedule) Has(id string) bool {
	if s == nil {
		return false
	}
	_, ok := s.done[id]
	return ok
}

// Start runs the schedule in the background until every check has run or
// ctx ends (once).
func (s *Schedule) Start(ctx context.Context) {
	s.once.Do(func() { go s.run(ctx) })
}

// Wait blocks until every check has run or ctx ended.
func (s *Schedule) Wait() { <-s.ended }

// Result waits for check id's result (nil when ctx ends first).
func (s *Schedule) Result(ctx context.Context, id string) *Result {
	select {
	case r := <-s.done[id]:
		s.done[id] <- r // for a second reader
		return r
	case <-ctx.Done():
		return nil
	}
}

func (s *Schedule) run(parent context.Context) {
	defer close(s.ended)
	// Once the target is judged to have stopped answering (StallLimit
	// checks in a row ended on a transport failure), the run's context
	// ends with the reason: the checks in flight end at once, and the
	// pending ones are not started.
	ctx, cancel := context.WithCancelCause(parent)
	defer cancel(nil)
	real := !s.target.VirtualClock()
	var alone, probes []*Check
	var lanes [2][]*Check
	for _, c := range s.checks {
		switch {
		case real && c.Budget != nil && preflight(s.target, c) == "":
			probes = append(probes, c)
		case c.aloneOn(s.target):
			alone = append(alone, c)
		case Spends()[c.ID].FailedAuth > 0:
			lanes[0] = append(lanes[0], c)
		default:
			lanes[1] = append(lanes[1], c)
		}
	}
	finish := func(c *Check, res *Result) {
		if why := Stopped(s.target); why != "" {
			cancel(&stopError{reason: why})
		}
		if s.OnFinish != nil {
			s.OnFinish(res)
		}
		s.finish(c, res)
	}
	// 1. The probes at their minutes, beside the two lanes.
	var wg sync.WaitGroup
	plan := s.target.Plan()
	slots := make([]*traffic.Slot, len(probes))
	for i, c := range probes {
		slots[i] = slotFor(s.target, c)
	}
	plan.Table.Build(plan.TargetNow(), slots)
	if s.OnTimetable != nil && len(slots) > 0 {
		s.OnTimetable(plan.Table.String())
	}
	for i, c := range probes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer plan.Table.End(slots[i])
			if err := plan.Await(traffic.WithWaits(ctx, &traffic.Waits{}), slots[i], probeSecond); err != nil {
				finish(c, notRun(c, context.Cause(ctx)))
				return
			}
			finish(c, run(traffic.AsProbe(ctx, slots[i]), s.target, c, false))
		}()
	}
	for i, lane := range lanes {
		pending := slices.Clone(lane)
		workers := s.parallel
		if i == 0 && real {
			// Checks that cause failed authentications mostly wait for
			// the limiter, or for a probe's minute to pass (a check
			// between its refusals); more of them in flight keep the
			// limiter busy meanwhile.
			workers *= authLane
		}
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					c := s.pick(ctx, &pending)
					if c == nil {
						return
					}
					res := run(ctx, s.target, c, false)
					s.release(c)
					finish(c, res)
				}
			}()
		}
	}
	// A stop wakes the workers waiting for a serial group.
	stop := context.AfterFunc(ctx, func() { s.mu.Lock(); s.cond.Broadcast(); s.mu.Unlock() })
	defer stop()
	wg.Wait()
	for _, lane := range lanes {
		for _, c := range lane {
			s.mu.Lock()
			_, ok := s.results[c.ID]
			s.mu.Unlock()
			if !ok {
				finish(c, notRun(c, context.Cause(ctx)))
			}
		}
	}
	// 2. Alone, one at a time.
	for _, c := range alone {
		if ctx.Err() != nil {
			finish(c, notRun(c, context.Cause(ctx)))
			continue
		}
		finish(c, run(ctx, s.target, c, true))
	}
}

// authLane is how many times parallel the lane of the checks that cause
// failed authentications runs at once on a real clock.
const authLane = 4

// probeSecond is the second of its minute a probe starts at: :02, past
// the Margin in which ordinary traffic ends.
const probeSecond = traffic.Margin

func notRun(c *Check, err error) *Result {
	msg := "not run"
	if err != nil {
		msg += ": " + err.Error()
	}
	return &Result{ID: c.ID, Area: c.Area(), Title: c.Title, Rules: c.Rules, Labels: c.Labels, Status: Error, Error: msg, NotRun: true, Started: time.Now().UTC()}
}

// pick takes the first check of pending whose serial group is free (nil
// when none is left or ctx ended).
func (s *Schedule) pick(ctx context.Context, pending *[]*Check) *Check {
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		if len(*pending) == 0 || ctx.Err() != nil {
			return nil
		}
		for i, c := range *pending {
			if g := c.SerialGroup; g == "" || !s.groups[g] {
				*pending = slices.Delete(*pending, i, i+1)
				if g != "" {
					s.groups[g] = true
				}
				return c
			}
		}
		s.cond.Wait()
	}
}

// release frees c's serial group.
func (s *Schedule) release(c *Check) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if g := c.SerialGroup; g != "" {
		delete(s.groups, g)
		s.cond.Broadcast()
	}
}

// finish records a result and hands out every result now due, in order.
func (s *Schedule) finish(c *Check, res *Result) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.results[c.ID]; ok {
		return
	}
	s.results[c.ID] = res
	var due []*Result
	for s.next < len(s.checks) {
		r, ok := s.results[s.checks[s.next].ID]
		if !ok {
			break
		}
		due = append(due, r)
		s.next++
	}
	// Handed out under the lock, so that two workers finishing together
	// cannot swap the order.
	for _, r := range due {
		if s.OnResult != nil {
			s.OnResult(r)
		}
		s.done[r.ID] <- r
	}
}
