package traffic

// The failed-authentication budget (document 2, Limits: 20 failed attempts
// per 60 seconds per source IP; beyond it 429 instead of 401/403).
//
// A check holds a Ticket; it reserves the failures it is about to cause
// (Reserve), every answer it gets is classified by status and problem code
// (Observe), and what it reserved but never caused goes back to the window
// when it ends (Close). When a reservation does not fit in the current
// window, Reserve waits for the next one: on a virtual clock by advancing
// it, on a real clock by sleeping, with the wait visible through Waiting.

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"
)

// Codes of the answers that spend the budget (document 2, Authentication 9).
const (
	CodeAuthenticationFailed = "api_key_authentication_failed"
	CodeNotAuthorized        = "api_key_not_authorized"
)

// IsFailedAuth classifies one answer by its status and problem code: any
// 401 (whatever its code: a target that says 401 counted a failure), and a
// 403 whose code is api_key_not_authorized (missing scope, IP outside the
// allowlist). Other 403s (policy gates, forbidden resources) are not
// authentication failures.
func IsFailedAuth(status int, code string) bool {
	switch status {
	case 401:
		return true
	case 403:
		return code == CodeNotAuthorized
	}
	return false
}

// Minimum is the least wall time a run needing n failed attempts can take
// on a real clock: the failures of one window are free, each further
// window costs a whole window.
func Minimum(n int) time.Duration { return WindowsFor(n, FailedAuthBudget) }

// WindowsFor is the least wall time n events need under a budget per
// window: the first window is free, each further one costs a window.
func WindowsFor(n, budget int) time.Duration {
	if n <= budget {
		return 0
	}
	return time.Duration((n+budget-1)/budget-1) * Window
}

// Spent marks the current window's failed-auth budget full: the target
// refused a failed authentication as over budget, spent by someone the
// plan does not see (another run from the same address).
func (p *Plan) Spent() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.roll()
	p.used = FailedAuthBudget
}

// FailedAuthSpentFor is how long is left of the current window when its
// failed-auth budget is already spent (Spent: the target answered the
// run's first request 429), else 0.
func (p *Plan) FailedAuthSpentFor() time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.roll()
	if p.Advance != nil || p.used < FailedAuthBudget {
		return 0
	}
	return max(0, p.start.Add(Window).Sub(p.targetNow()))
}

// Total is how many failed attempts the run has caused so far.
func (p *Plan) Total() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.total
}

// Ticket is one check's account with the plan's failed-auth budget.
type Ticket struct {
	p     *Plan
	who   string
	mu    sync.Mutex
	epoch int
	left  int // reserved in the current window, not yet seen
	seen  int // failures this ticket caused
	extra int // of them, not reserved
	peak  int // the most it asked to hold at once
	// spent: a request of the holder's that spends a budget went out;
	// late counts the failures seen after it.
	spent bool
	late  int
}

// Ticket opens an account for who (a check id, for the progress line).
func (p *Plan) Ticket(who string) *Ticket { return &Ticket{p: p, who: who} }

// Seen is how many failed attempts the ticket's holder caused; Unreserved
// how many of them it had not reserved.
func (t *Ticket) Seen() int       { t.mu.Lock(); defer t.mu.Unlock(); return t.seen }
func (t *Ticket) Unreserved() int { t.mu.Lock(); defer t.mu.Unlock(); return t.extra }

// Peak is the most failed attempts the holder asked to hold at once.
func (t *Ticket) Peak() int { t.mu.Lock(); defer t.mu.Unlock(); return t.peak }

// Late is how many failed attempts the holder caused after its first
// request that spends a budget (none for a check whose failures can all
// go out in a minute a probe of the tenant's whole budget owns).
func (t *Ticket) Late() int { t.mu.Lock(); defer t.mu.Unlock(); return t.late }

// spends records that one of the holder's requests spent a budget.
func (t *Ticket) spends() { t.mu.Lock(); defer t.mu.Unlock(); t.spent = true }

// Reserve makes sure the holder has n failed attempts reserved in the
// current window (what it already holds counts), waiting for the next
// window when they do not fit. A holder that waits takes its place in
// line: from the next window on, reservations made after it (a check
// the scheduler starts, another holder) leave it room first. Without the
// line, checks the scheduler started at each new window took the room
// before a waiting holder woke, and ten checks of a real-clock run
// waited 642 s, from its first second to its last minutes.
func (t *Ticket) Reserve(ctx context.Context, n int) error {
	return t.reserveWaiting(ctx, n, false)
}

// ReserveFirst is Reserve for a holder that is first in line from now
// on, ahead of every holder waiting in the usual way: a budget probe that
// has spent one window and needs one failure in the next would otherwise
// wait behind the line, holding its claim and every minute that waits
// for it.
func (t *Ticket) ReserveFirst(ctx context.Context, n int) error {
	return t.reserveWaiting(ctx, n, true)
}

func (t *Ticket) reserveWaiting(ctx context.Context, n int, first bool) error {
	p := t.p
	var w *authWaiter
	if first {
		p.mu.Lock()
		w = p.enqueue(n, true)
		p.mu.Unlock()
	}
	defer func() {
		if w != nil {
			p.mu.Lock()
			p.dequeue(w)
			p.mu.Unlock()
		}
	}()
	for {
		ok, err := t.reserve(n, w)
		if ok || err != nil {
			return err
		}
		p.mu.Lock()
		if w == nil {
			w = p.enqueue(n, false)
		}
		what := fmt.Sprintf("a fresh failed-auth window for %s (%d more; %d of %d spent)", t.who, n, p.used+p.held, FailedAuthBudget)
		// What it holds here is no use to it while it waits for the
		// next window: the run may spend it meanwhile.
		t.mu.Lock()
		t.giveBack()
		t.mu.Unlock()
		if err := p.waitNext(ctx, what); err != nil {
			return err
		}
	}
}

// authWaiter is a reservation waiting in line for a window with room.
type authWaiter struct {
	n     int
	first bool
	from  int // the first window it counts in (the next one, unless first)
}

// enqueue puts a reservation of n in line: after the others, or, first,
// after the other first ones. Callers hold p.mu.
func (p *Plan) enqueue(n int, first bool) *authWaiter {
	w := &authWaiter{n: n, first: first, from: p.epoch + 1}
	if first {
		w.from = p.epoch
		i := 0
		for i < len(p.line) && p.line[i].first {
			i++
		}
		p.line = slices.Insert(p.line, i, w)
		return w
	}
	p.line = append(p.line, w)
	return w
}

// dequeue takes w out of line. Callers hold p.mu.
func (p *Plan) dequeue(w *authWaiter) {
	if i := slices.Index(p.line, w); i >= 0 {
		p.line = slices.Delete(p.line, i, i+1)
	}
}

// ahead is the room this window owes to those before w in line (every
// one in line when w is nil), resends first. A holder that began waiting
// in this window is owed nothing in it: it did not fit, and the room left
// is the run's. Callers hold p.mu.
func (p *Plan) ahead(w *authWaiter) int {
	n := p.resending
	for _, o := range p.line {
		if o == w {
			break
		}
		if o.from <= p.epoch {
			n += o.n
		}
	}
	return n
}

// TryReserve is Reserve that never waits: it reports whether n fit in the
// current window (and are now held).
func (t *Ticket) TryReserve(n int) bool {
	ok, _ := t.reserve(n, nil)
	return ok
}

// reserve holds n in the current window if they fit after the room owed
// to those ahead of w in line (w nil: not in line, behind all of them).
// A holder that gets its room leaves the line.
func (t *Ticket) reserve(n int, w *authWaiter) (bool, error) {
	if n > FailedAuthBudget {
		return false, fmt.Errorf("cannot reserve %d failed authentications in one window (the budget is %d per %s)", n, FailedAuthBudget, Window)
	}
	p := t.p
	p.mu.Lock()
	defer p.mu.Unlock()
	t.mu.Lock()
	defer t.mu.Unlock()
	t.peak = max(t.peak, n)
	p.roll()
	if t.epoch != p.epoch {
		t.epoch, t.left = p.epoch, 0
	}
	need := n - t.left
	if need > 0 {
		if p.used+p.held+p.ahead(w)+need > FailedAuthBudget || p.ending() {
			return false, nil
		}
		p.held += need
		t.left += need
	}
	if w != nil {
		p.dequeue(w)
	}
	return true, nil
}

// Observe classifies one answer the holder got (status and problem code)
// and counts it when it is a failed authentication. It reports whether
// it was.
func (t *Ticket) Observe(status int, code string) bool {
	if !IsFailedAuth(status, code) {
		return false
	}
	p := t.p
	p.mu.Lock()
	defer p.mu.Unlock()
	t.mu.Lock()
	defer t.mu.Unlock()
	p.roll()
	p.used++
	p.total++
	if len(p.seen) > 0 {
		p.seen[len(p.seen)-1]++
	}
	t.seen++
	if t.spent {
		t.late++
	}
	if t.epoch == p.epoch && t.left > 0 {
		t.left--
		p.held--
	} else {
		t.extra++
	}
	return true
}

// Close gives back what the holder reserved and did not cause.
func (t *Ticket) Close() {
	p := t.p
	p.mu.Lock()
	defer p.mu.Unlock()
	t.mu.Lock()
	defer t.mu.Unlock()
	t.giveBack()
}

// giveBack returns what the ticket holds in the current window and has
// not caused to the window. Callers hold p.mu and t.mu.
func (t *Ticket) giveBack() {
	if t.epoch == t.p.epoch {
		t.p.held -= t.left
	}
	t.left = 0
}

// lend gives back, while ctx's request waits for its budgets, the failed
// authentications its ticket holder reserved in the current window and
// has not caused: other checks may spend them meanwhile. The transport
// reserves what the holder is still to cause again before the request
// goes out (ensure). Callers hold p.mu.
func (p *Plan) lend(ctx context.Context) {
	tc, ok := ctx.Value(ticketKey{}).(ticketCtx)
	if !ok || tc.t == nil || tc.want == nil {
		return
	}
	t := tc.t
	t.mu.Lock()
	defer t.mu.Unlock()
	t.giveBack()
}

// Available is how many failed attempts the current window still takes
// (0 when a real-clock window ends within the margin).
func (p *Plan) Available() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.roll()
	if p.ending() {
		return 0
	}
	return max(0, FailedAuthBudget-p.used-p.held-p.ahead(nil))
}

// Pending is what a Ticket's holder is still to cause: the transport makes
// sure it is reserved in the window a request goes out in (a check that
// reserved when it started may wait, for an owner or a fresh window, into
// the next window, where its reservation has lapsed; its failures there
// would meet the target's 429 unreserved). It returns 0 once the holder
// paces itself (it reserves right before each failure).
type Pending func() int

type ticketKey struct{}

type ticketCtx struct {
	t    *Ticket
	want Pending
}

// WithTicket marks ctx's requests as sent by t's holder, with what it is
// still to cause.
func WithTicket(ctx context.Context, t *Ticket, want Pending) context.Context {
	return context.WithValue(ctx, ticketKey{}, ticketCtx{t, want})
}

// spendsBudget records, on ctx's ticket, that one of its holder's requests
// spent a budget.
func spendsBudget(ctx context.Context) {
	if tc, ok := ctx.Value(ticketKey{}).(ticketCtx); ok && tc.t != nil {
		tc.t.spends()
	}
}

// ensure reserves in the current window what ctx's ticket holder is still
// to cause (waiting for a window with room), and tells the epoch it holds
// it in (0 when nothing is needed).
func (p *Plan) ensure(ctx context.Context) (int, error) {
	tc, ok := ctx.Value(ticketKey{}).(ticketCtx)
	if !ok || tc.t == nil || tc.want == nil {
		return 0, nil
	}
	n := min(tc.want(), FailedAuthBudget)
	if n <= 0 {
		return 0, nil
	}
	// A failure sent in the last seconds of a window may be counted in
	// the next one, which others may hold whole by then: wait for it.
	p.mu.Lock()
	p.roll()
	if p.ending() {
		if err := p.waitNext(ctx, "the next failed-auth window (a failure sent as a window ends may land in the next)"); err != nil {
			return 0, err
		}
	} else {
		p.mu.Unlock()
	}
	if err := tc.t.Reserve(ctx, n); err != nil {
		return 0, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.epoch, nil
}

// epochNow is the current window's number.
func (p *Plan) epochNow() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.roll()
	return p.epoch
}
