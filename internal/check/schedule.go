package check

import (
	"context"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/touchstone-harness/touchstone/internal/traffic"
)

// Alone is the label of a check that must have the target to itself: it
// moves a virtual clock, changes a setting every other check sees (the
// sandbox's provider, a money-movement pause, a route's latency), or probes
// a budget on purpose. It runs with no other check in flight, in a fresh
// window, and owns the traffic plan while it runs (its requests are
// counted, never held, and a 429 is its to judge).
const Alone = "alone"

// Schedule runs checks on a bounded pool of workers. Of the checks not yet
// started it starts, in their order, the first that can start now: an
// alone check only when nothing else runs (and nothing else starts
// meanwhile); a check of a serial group only when no other of its group
// runs; a check that causes failed authentications only when what it
// declared fits in the IP's current window (otherwise others go first, and
// when only such checks are left the pool waits for the next window).
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

	mu      sync.Mutex
	cond    *sync.Cond
	pending []*Check
	running int
	// normal counts the running checks that hold no claim: at most
	// parallel; claim holders (real clock) run beside them, on their own
	// workers, since they mostly wait for their second of the minute.
	normal int
	// waiting counts the running checks waiting for the traffic plan (a
	// fresh window, a probe's release): on a real clock their worker
	// slots go to other checks meanwhile (a pool full of checks waiting
	// for a probe left the failed-auth windows of a run's first minutes
	// unused).
	waiting atomic.Int32
	claims  map[string]*traffic.Claim
	alone   bool
	groups  map[string]bool
	done    map[string]chan *Result
	results map[string]*Result
	next    int // index of the next result to hand out
	once    sync.Once
	ended   chan struct{}
}

// NewSchedule prepares cs (in the order results are handed out) for a pool
// of parallel workers (at least 1).
func NewSchedule(target *Target, cs []*Check, parallel int) *Schedule {
	s := &Schedule{target: target, parallel: max(1, parallel), checks: cs, pending: append([]*Check(nil), cs...),
		groups: map[string]bool{}, done: map[string]chan *Result{}, results: map[string]*Result{}, ended: make(chan struct{}),
		claims: map[string]*traffic.Claim{}}
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

// Start runs the pool in the background until every check has run or ctx
// ends (once).
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
	// checks in a row, in the order they finish, ended on a transport
	// failure), the pool's context ends with the reason: the checks in
	// flight end at once (their requests and their waits for the plan's
	// windows), and the pending ones are not started.
	ctx, cancel := context.WithCancelCause(parent)
	defer cancel(nil)
	// A real clock's windows roll over with time alone: wake the picker
	// now and then so that checks waiting for a failed-auth window start.
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case <-tick.C:
				s.cond.Broadcast()
			case <-stop:
				return
			}
		}
	}()
	var wg sync.WaitGroup
	workers := s.parallel
	for _, c := range s.checks {
		if c.claimsOnRealClock(s.target) {
			workers++
		}
	}
	workers = min(workers, s.parallel+maxClaimWorkers)
	if !s.target.VirtualClock() {
		workers += waitingWorkers * s.parallel
	}
	for i := 0; i < workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				c, ticket := s.pick(ctx)
				if c == nil {
					return
				}
				res := s.runOne(ctx, c, ticket)
				if why := Stopped(s.target); why != "" {
					cancel(&stopError{reason: why})
				}
				if s.OnFinish != nil {
					s.OnFinish(res)
				}
				s.finish(c, res, true)
			}
		}()
	}
	wg.Wait()
	close(stop)
	// Checks never started (ctx ended) are reported as not run.
	s.mu.Lock()
	left := s.pending
	s.pending = nil
	s.mu.Unlock()
	for _, c := range left {
		s.finish(c, notRun(c, context.Cause(ctx)), false)
	}
}

func notRun(c *Check, err error) *Result {
	msg := "not run"
	if err != nil {
		msg += ": " + err.Error()
	}
	return &Result{ID: c.ID, Area: c.Area(), Title: c.Title, Rules: c.Rules, Labels: c.Labels, Status: Error, Error: msg, NotRun: true, Started: time.Now().UTC()}
}

// maxClaimWorkers bounds the workers added for claim holders (the
// tenant's budget bounds how many hold a claim at once anyway).
const maxClaimWorkers = 4

// waitingWorkers is how many more workers per parallel slot a real-clock
// run keeps for the slots of checks waiting for the plan.
const waitingWorkers = 3

// authWorkers is how many of the workers kept for waiting checks only
// checks that cause failed authentications may take (at most half of
// them): the failed-auth
// windows bound a real-clock run, so a pool full of checks waiting for
// probes must still start the next one that spends them.
const authWorkers = 4

// normalCap is how many checks holding no claim may run at once, c
// among them: the workers added for claim holders stay theirs (checks
// waiting for a probe's release must leave the probe a worker to start
// on), and the last authWorkers of the rest are for checks causing
// failed authentications.
func (s *Schedule) normalCap(c *Check) int {
	n := s.parallel
	if !s.target.VirtualClock() {
		n *= 1 + waitingWorkers
		if c.failedAuthCause() == 0 {
			n -= min(authWorkers, s.parallel*waitingWorkers/2)
		}
	}
	return n
}

type onWaitKey struct{}

// onWaitOf is the scheduler's hook for a check's waits (nil outside a
// schedule).
func onWaitOf(ctx context.Context) func(bool) {
	f, _ := ctx.Value(onWaitKey{}).(func(bool))
	return f
}

func (s *Schedule) runOne(ctx context.Context, c *Check, ticket *traffic.Ticket) *Result {
	s.mu.Lock()
	cl := s.claims[c.ID]
	s.mu.Unlock()
	if cl != nil {
		// Its requests are sent under the claim: never held, their 429s
		// its own; the claim ends with the check.
		defer s.target.Plan().Release(cl)
		ctx = traffic.WithClaim(ctx, cl)
	} else if !s.target.VirtualClock() {
		ctx = context.WithValue(ctx, onWaitKey{}, func(waiting bool) {
			if waiting {
				s.waiting.Add(1)
			} else {
				s.waiting.Add(-1)
			}
			s.cond.Broadcast()
		})
	}
	// An alone check starts in a fresh window on a virtual clock (what
	// others spent is not for it); the others share the window.
	return run(ctx, s.target, c, ticket, c.aloneOn(s.target))
}

// isAlone tells whether c runs by itself: labelled Alone, unless it probes
// a budget on a real clock, where it takes a claim instead.
func (s *Schedule) isAlone(c *Check) bool {
	return c.aloneOn(s.target) && !c.claimsOnRealClock(s.target)
}

// claim is c's claim on the plan (one per check, so that a booking made
// by an earlier try is the one granted later).
func (s *Schedule) claim(c *Check) *traffic.Claim {
	cl := s.claims[c.ID]
	if cl == nil {
		cl = claimFor(s.target, c)
		s.claims[c.ID] = cl
	}
	return cl
}

// order is the pending checks in the order pick tries them: on a real
// clock the claim holders first (they wait for their windows, so the
// sooner they are granted the shorter the run), those of the tenant's
// whole budget only once no other is pending (nothing else runs in their
// minutes: the others pack the earlier ones), then the checks that cause
// failed authentications, most first (20 a clock minute bound a run on
// a real clock: started late, they leave the first minutes' windows
// unused and end the run with minutes of nothing else), then the rest.
func (s *Schedule) order(w wholeMinutes) []int {
	idx := make([]int, 0, len(s.pending))
	partial := false
	for i, c := range s.pending {
		if c.claimsOnRealClock(s.target) && !c.Budget.WholeTenant {
			idx = append(idx, i)
			partial = true
		}
	}
	for _, last := range []bool{false, true} {
		for i, c := range s.pending {
			if c.claimsOnRealClock(s.target) && c.Budget.WholeTenant && !partial && c.Budget.IntoNextMinute == last {
				idx = append(idx, i)
			}
		}
	}
	var causing, first, rest []int
	for i, c := range s.pending {
		switch {
		case c.claimsOnRealClock(s.target):
		case !s.target.VirtualClock() && c.failedAuthCause() > 0 && c.refusalsFirst():
			first = append(first, i)
		case !s.target.VirtualClock() && c.failedAuthCause() > 0:
			causing = append(causing, i)
		default:
			rest = append(rest, i)
		}
	}
	for _, l := range [][]int{causing, first} {
		sort.SliceStable(l, func(a, b int) bool {
			return s.pending[l[a]].failedAuthCause() > s.pending[l[b]].failedAuthCause()
		})
	}
	if w.now {
		causing, first = first, causing
	}
	return append(append(append(idx, causing...), first...), rest...)
}

// wholeMinutes is what a real-clock schedule keeps for the clock minutes
// whose tenant budget a probe owns. Nothing that spends a budget goes out
// in them; failures refused at the key step (or with a key the target
// never issued) do. Started any earlier, the checks causing only such
// failures had all finished by then, and the failed-auth windows of those
// minutes went unused while checks held behind the probe waited to cause
// theirs after (20 a minute bound a real-clock run). So the checks that
// cause their failures before any request that spends a budget
// (RefusalsFirst) start before such a minute only while a window's worth
// of them is left for each such minute ahead; in one, they start first.
type wholeMinutes struct {
	now  bool // the current window is a Whole claim's
	keep int  // failures of RefusalsFirst checks to keep pending
	left int  // failures of the pending RefusalsFirst checks
}

// wholeMinutes sees what to keep now. Callers hold s.mu.
func (s *Schedule) wholeMinutes() wholeMinutes {
	var w wholeMinutes
	if s.target.VirtualClock() {
		return w
	}
	now, ahead := s.target.Plan().WholeMinute()
	if now {
		w.now = true
		return w
	}
	if ahead {
		w.keep += authBudget
	}
	for _, c := range s.pending {
		if c.claimsOnRealClock(s.target) && c.Budget.WholeTenant && preflight(s.target, c) == "" {
			w.keep += authBudget
		}
		if c.refusalsFirst() {
			w.left += c.failedAuthCause()
		}
	}
	return w
}

// holds tells whether c is kept pending for a Whole claim's minute ahead.
func (w wholeMinutes) holds(c *Check) bool {
	return !w.now && w.keep > 0 && c.refusalsFirst() && w.left-c.failedAuthCause() < w.keep
}

// pick waits for the next check that can start, marks it running and
// returns it (nil when none is left or ctx ended).
func (s *Schedule) pick(ctx context.Context) (*Check, *traffic.Ticket) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		if len(s.pending) == 0 || ctx.Err() != nil {
			return nil, nil
		}
		if !s.alone {
			onlyAuth := true
			w := s.wholeMinutes()
			for _, i := range s.order(w) {
				c := s.pending[i]
				g := c.SerialGroup
				claims := c.claimsOnRealClock(s.target)
				switch {
				case w.holds(c):
					continue
				case s.isAlone(c) && s.running > 0:
					onlyAuth = false
					continue
				case g != "" && s.groups[g]:
					onlyAuth = false
					continue
				case !claims && (s.normal-int(s.waiting.Load()) >= s.parallel || s.normal >= s.normalCap(c)):
					onlyAuth = false
					continue
				}
				var ticket *traffic.Ticket
				need := c.failedAuthHeld(s.target)
				if c.Budget != nil {
					// A probe that spends the whole failed-auth window
					// starts when the whole window is free.
					need = min(need, authBudget)
				}
				if need > 0 && need <= authBudget {
					ticket = s.target.Plan().Ticket(c.ID)
					if !ticket.TryReserve(need) {
						continue
					}
				}
				// A claim not granted yet (its budgets were touched this
				// minute, or the tenant has no room) waits, like a check
				// whose failed authentications do not fit, for a later
				// window.
				if claims && preflight(s.target, c) == "" && !s.target.Plan().TryClaim(s.claim(c)) {
					if ticket != nil {
						ticket.Close()
					}
					continue
				}
				s.pending = append(s.pending[:i:i], s.pending[i+1:]...)
				s.running++
				if !claims {
					s.normal++
				}
				if s.isAlone(c) {
					s.alone = true
				}
				if g != "" {
					s.groups[g] = true
				}
				return c, ticket
			}
			if onlyAuth && s.running == 0 {
				// Only checks that cause failed authentications are left
				// and none fits in this window: wait for the next one.
				s.mu.Unlock()
				err := s.target.Plan().NextWindow(ctx, "a fresh failed-auth window for the checks that need one")
				s.mu.Lock()
				if err != nil {
					return nil, nil
				}
				continue
			}
		}
		s.cond.Wait()
	}
}

// finish records a result, frees what its check held (started: it was
// counted as running) and hands out every result now due, in order.
func (s *Schedule) finish(c *Check, res *Result, started bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if started {
		s.running--
		if !c.claimsOnRealClock(s.target) {
			s.normal--
		}
	}
	if s.isAlone(c) {
		s.alone = false
	}
	if g := c.SerialGroup; g != "" {
		delete(s.groups, g)
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
	s.cond.Broadcast()
	// Handed out under the lock, so that two workers finishing together
	// cannot swap the order.
	for _, r := range due {
		if s.OnResult != nil {
			s.OnResult(r)
		}
		s.done[r.ID] <- r
	}
}
