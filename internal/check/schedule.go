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
//  1. together: on a real clock, the budget probes, each at the clock
//     minute the timetable gives it; beside them two lanes of parallel
//     workers each, one for the checks that cause failed authentications
//     (authLane times as wide on a real clock: they mostly wait for the
//     failed-auth limiter), one for the rest. A worker takes the next job
//     of its lane: a check, or one serial group's checks in order.
//  2. then the checks that must be alone, one at a time (last, so that a
//     target that stops answering is judged so by checks in parallel).
//
// Results are handed out in the checks' order, whatever order they finish
// in, so the console and the reports are the same run after run.
type Schedule struct {
	target   *Target
	parallel int
	checks   []*Check
	// OnResult, when set before Start, hears each result in the checks'
	// order; OnFinish hears each as it finishes; OnTimetable hears the
	// probes' timetable, one minute a line, once it is built.
	OnResult, OnFinish func(*Result)
	OnTimetable        func(string)

	mu      sync.Mutex
	index   map[string]int
	results []*Result
	done    []chan struct{}
	next    int // the next result to hand out
	once    sync.Once
	ended   chan struct{}
}

// authLane is how many times parallel the lane of the checks that cause
// failed authentications is on a real clock.
const authLane = 4

// NewSchedule prepares cs (in the order results are handed out) for
// parallel workers a lane (at least 1).
func NewSchedule(target *Target, cs []*Check, parallel int) *Schedule {
	s := &Schedule{target: target, parallel: max(1, parallel), checks: cs, index: map[string]int{},
		results: make([]*Result, len(cs)), done: make([]chan struct{}, len(cs)), ended: make(chan struct{})}
	for i, c := range cs {
		s.index[c.ID], s.done[i] = i, make(chan struct{})
	}
	return s
}

// Has tells whether the schedule runs check id.
func (s *Schedule) Has(id string) bool {
	if s == nil {
		return false
	}
	_, ok := s.index[id]
	return ok
}

// Start runs the schedule in the background until every check has run or
// ctx ends (once).
func (s *Schedule) Start(ctx context.Context) { s.once.Do(func() { go s.run(ctx) }) }

// Wait blocks until every check has run or ctx ended.
func (s *Schedule) Wait() { <-s.ended }

// Result waits for check id's result (nil when ctx ends first).
func (s *Schedule) Result(ctx context.Context, id string) *Result {
	i := s.index[id]
	select {
	case <-s.done[i]:
		return s.results[i]
	case <-ctx.Done():
		return nil
	}
}

func (s *Schedule) run(parent context.Context) {
	defer close(s.ended)
	// Once the target is judged to have stopped answering (StallLimit
	// checks in a row ended on a transport failure) the context ends with
	// the reason: checks in flight end at once, pending ones do not start.
	ctx, cancel := context.WithCancelCause(parent)
	defer cancel(nil)
	real := !s.target.VirtualClock()
	var alone, probes, rest []*Check
	for _, c := range s.checks {
		switch {
		case real && c.Budget != nil && preflight(s.target, c) == "":
			probes = append(probes, c)
		case c.aloneOn(s.target):
			alone = append(alone, c)
		default:
			rest = append(rest, c)
		}
	}
	finish := func(c *Check, res *Result) {
		if why := Stopped(s.target); why != "" {
			cancel(&stopError{reason: why})
		}
		s.finish(c, res)
	}
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
		wg.Go(func() {
			defer plan.Table.End(slots[i])
			// :02 of its minute, past the margin in which ordinary traffic ends.
			if err := plan.Await(traffic.WithWaits(ctx, &traffic.Waits{}), slots[i], traffic.Margin); err != nil {
				finish(c, notRun(c, context.Cause(ctx)))
				return
			}
			finish(c, run(traffic.AsProbe(ctx, slots[i]), s.target, c, false))
		})
	}
	lanes := [2]chan []*Check{make(chan []*Check, len(rest)), make(chan []*Check, len(rest))}
	for _, j := range serial(rest) {
		if slices.ContainsFunc(j, func(c *Check) bool { return Spends()[c.ID].FailedAuth > 0 }) {
			lanes[0] <- j
		} else {
			lanes[1] <- j
		}
	}
	for i, jobs := range lanes {
		close(jobs)
		workers := s.parallel
		if i == 0 && real {
			workers *= authLane
		}
		for range workers {
			wg.Go(func() {
				for j := range jobs {
					for _, c := range j {
						if ctx.Err() != nil {
							return
						}
						finish(c, run(ctx, s.target, c, false))
					}
				}
			})
		}
	}
	wg.Wait()
	for _, c := range rest { // those that did not run
		finish(c, notRun(c, context.Cause(ctx)))
	}
	for _, c := range alone {
		if ctx.Err() != nil {
			finish(c, notRun(c, context.Cause(ctx)))
			continue
		}
		finish(c, run(ctx, s.target, c, true))
	}
}

func notRun(c *Check, err error) *Result {
	msg := "not run"
	if err != nil {
		msg += ": " + err.Error()
	}
	return &Result{ID: c.ID, Area: c.Area(), Title: c.Title, Rules: c.Rules, Labels: c.Labels, Status: Error, Error: msg, NotRun: true, Started: time.Now().UTC()}
}

// serial is cs as jobs for one worker each: a check, or in order those of
// one serial group (at the place of its first).
func serial(cs []*Check) [][]*Check {
	var jobs [][]*Check
	at := map[string]int{}
	for _, c := range cs {
		if i, ok := at[c.SerialGroup]; ok && c.SerialGroup != "" {
			jobs[i] = append(jobs[i], c)
			continue
		}
		at[c.SerialGroup] = len(jobs)
		jobs = append(jobs, []*Check{c})
	}
	return jobs
}

// finish records a result (the first for its check) and hands out, under
// the lock so that two finishing together cannot swap them, every result
// now due in order.
func (s *Schedule) finish(c *Check, res *Result) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := s.index[c.ID]
	if s.results[i] != nil {
		return
	}
	s.results[i] = res
	if s.OnFinish != nil {
		s.OnFinish(res)
	}
	for ; s.next < len(s.checks) && s.results[s.next] != nil; s.next++ {
		if s.OnResult != nil {
			s.OnResult(s.results[s.next])
		}
		close(s.done[s.next])
	}
}
