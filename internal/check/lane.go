package check

import (
	"context"
	"fmt"
	"sync"
)

// Lane runs, in the background, the checks of a real-clock run that cause
// failed authentications, packed into the source IP's windows (of the
// checks left, the next to run is the first whose declared need fits in
// what the current window still takes; when none fits, the lane waits for
// the next window). The rest of the run goes on meanwhile, so the run's
// wall time is about the windows its failed authentications need, not
// those plus everything else.
type Lane struct {
	target  *Target
	pending []*Check
	mu      sync.Mutex
	done    map[string]chan *Result
	once    sync.Once
	// OnResult, when set before Start, hears each result as the lane
	// finishes it (the console prints failures as they happen).
	OnResult func(*Result)
}

// NewLane prepares a lane for cs (in the order they should be tried).
func NewLane(target *Target, cs []*Check) *Lane {
	l := &Lane{target: target, pending: cs, done: map[string]chan *Result{}}
	for _, c := range cs {
		l.done[c.ID] = make(chan *Result, 1)
	}
	return l
}

// LaneChecks are the checks among cs that cause failed authentications
// (declared), those a lane runs.
func LaneChecks(cs []*Check) []*Check {
	var out []*Check
	for _, c := range cs {
		if c.failedAuth() > 0 {
			out = append(out, c)
		}
	}
	return out
}

// Has tells whether the lane runs check id.
func (l *Lane) Has(id string) bool {
	if l == nil {
		return false
	}
	_, ok := l.done[id]
	return ok
}

// Start runs the lane until every check has run or ctx ends (once).
func (l *Lane) Start(ctx context.Context) {
	l.once.Do(func() { go l.run(ctx) })
}

func (l *Lane) run(ctx context.Context) {
	p := l.target.Pacer()
	for len(l.pending) > 0 && ctx.Err() == nil {
		avail := p.Available()
		pick := -1
		for i, c := range l.pending {
			if c.failedAuth() <= avail || c.failedAuth() > authBudget {
				pick = i
				break
			}
		}
		if pick < 0 {
			if err := p.NextWindow(ctx, fmt.Sprintf("a fresh failed-auth window for %d checks that need one (%d left in this one)", len(l.pending), avail)); err != nil {
				break
			}
			continue
		}
		c := l.pending[pick]
		l.pending = append(l.pending[:pick:pick], l.pending[pick+1:]...)
		res := Run(ctx, l.target, c)
		if l.OnResult != nil {
			l.OnResult(res)
		}
		l.done[c.ID] <- res
	}
}

// Result waits for check id's result from the lane (or ctx's end, nil).
func (l *Lane) Result(ctx context.Context, id string) *Result {
	select {
	case r := <-l.done[id]:
		return r
	case <-ctx.Done():
		return nil
	}
}
