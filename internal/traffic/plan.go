// Package traffic is a run's traffic plan: every request the harness sends
// to a target (checks, properties, load probes, the start-up probe,
// replays) passes one Plan, which knows the three documented budgets
// (document 2, Limits) and keeps the run inside them:
//
//   - per API key, HTTP method and route template: 600 per clock minute
//     (RouteBudget);
//   - per tenant, across every key: 6,000 per clock minute (TenantBudget);
//   - failed authentications per source IP: 20 per 60 seconds
//     (FailedAuthBudget).
//
// Windows are fixed clock minutes of the target's clock, estimated from
// the Date header of its answers (a real clock) or read from its control
// API (a virtual clock). In the spirit of vegeta's Pacer, the plan has one
// job: say when the next request may go. A request that would overdraw a
// budget waits for the next window (announced through Waiting); a 429 the
// harness did not ask for (another run's traffic, a target that counts
// more than the plan does) is waited out and the request sent again,
// never reported: no check fails because of traffic the harness sent
// itself. A check that probes a budget on purpose owns the plan while it
// runs (Own): its requests are counted, never held or resent.
package traffic

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// Documented budgets (document 2, Limits).
const (
	RouteBudget      = 600
	TenantBudget     = 6000
	FailedAuthBudget = 20
	// Budget is the failed-authentication budget (the first one the plan
	// knew).
	Budget = FailedAuthBudget
	Window = time.Minute
)

// headroom is what the plan leaves unspent of the route and tenant budgets
// for what it cannot see (a target counting a preflight, a clock a second
// off at a boundary).
const (
	routeHeadroom  = 10
	tenantHeadroom = 100
)

// Plan is the ledger of one run's traffic to one target.
type Plan struct {
	// Advance moves a virtual clock to the next window; nil means the
	// clock is real and the plan sleeps until the next window.
	Advance func(context.Context) error
	// Now and Sleep are the wall clock (tests replace them).
	Now   func() time.Time
	Sleep func(context.Context, time.Duration) error
	// UntrustedFirstWindow: the window the run began in may carry what
	// others spent (an earlier run, another caller), so no claim is
	// granted in it (the runner sets it for a real clock).
	UntrustedFirstWindow bool
	// ValidKey, when set, tells whether a key is one the target issued
	// (the profile's). A request with another key is refused at the key
	// step, before the rate limits (document 2, Check order): it spends
	// the failed-auth budget, not a route's or the tenant's, so it is not
	// held for them (a probe owning that key's GET /me held every
	// wrong-secret check, and the failed-auth windows went unused).
	ValidKey func(key string) bool
	// Margin is waited past a window's start, and a window ending within
	// it counts as over (the target's clock may differ a little).
	Margin time.Duration
	// OnSend, when set before the run, hears each budgeted request as it
	// is admitted (the spend declarations are measured with it).
	OnSend func(r *http.Request, b Bucket)

	mu        sync.Mutex
	clock     dateClock
	start     time.Time // current window (real clock)
	epoch     int       // bumps at each new window
	windows   int       // windows moved to by waiting
	waitWhat  string
	waitUntil time.Time
	changed   chan struct{} // closed when the window changes
	advancing bool          // a virtual clock is being moved

	// failed authentications
	used int // seen in the window
	held int // reserved, not yet seen, by open tickets
	// resending counts resends of refused failed authentications waiting
	// for room; reservations leave it to them first, then to the holders
	// waiting in line (Ticket.Reserve).
	resending int
	// line holds the reservations waiting for a window with room, in
	// the order they are owed it (failedauth.go).
	line  []*authWaiter
	total int // seen in the run
	// seen counts the failures observed in each window so far, the
	// current one last (the run's closing line shows how full each was).
	seen []int

	// route and tenant budgets
	routes     map[Bucket]int // requests sent in the window per bucket
	full       map[Bucket]bool
	tenant     int
	sent       int // requests sent in the run
	busiest    map[Bucket]int
	owners     int           // checks that own the plan (Own)
	held429    int           // 429s the plan waited out
	waited     time.Duration // wall time anyone slept for a fresh window
	sleepers   int
	sleepSince time.Time
	rtts       []time.Duration // recent round trips
	rttNext    int

	// claims (claim.go)
	claims    map[int]*Claim
	nextClaim int
	released  chan struct{} // closed at the next Release
}

// New returns a plan on the wall clock; advance is nil for a real clock.
func New(advance func(context.Context) error) *Plan {
	return &Plan{Advance: advance, Now: time.Now, Sleep: sleep, Margin: 2 * time.Second}
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// targetNow is the target's clock as well as the plan knows it (the wall
// clock plus the offset learnt from Date headers). Callers hold mu.
func (p *Plan) targetNow() time.Time { return p.clock.at(p.Now()) }

// roll starts new ledgers when a real clock has entered a new window.
// Callers hold mu.
func (p *Plan) roll() {
	if p.Advance != nil {
		return
	}
	// Only forward: an estimate of the target's clock that moves back
	// across a boundary by a few milliseconds (a new Date narrowing it)
	// must not start the ledgers again, losing every reservation made
	// in the window.
	if w := p.targetNow().Truncate(Window); w.After(p.start) {
		p.start = w
		p.newWindow()
		p.postpone()
	}
}

func (p *Plan) newWindow() {
	p.epoch++
	p.seen = append(p.seen, 0)
	p.used, p.held = 0, 0
	p.routes, p.full, p.tenant = nil, nil, 0
	if p.changed != nil {
		close(p.changed)
		p.changed = nil
	}
}

// ending tells whether a real-clock window ends within the margin.
// Callers hold mu.
func (p *Plan) ending() bool {
	return p.Advance == nil && p.start.Add(Window).Sub(p.targetNow()) < p.Margin
}

// Reset starts fresh ledgers: the caller moved a virtual clock to a new
// window itself.
func (p *Plan) Reset() {
	p.mu.Lock()
	p.newWindow()
	p.mu.Unlock()
}

// Windows is how many times the plan waited for a fresh window.
func (p *Plan) Windows() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.windows
}

// Waiting says what the run is waiting for and for how long, or "" when
// it is not waiting.
func (p *Plan) Waiting() (what string, left time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.waitWhat == "" {
		return "", 0
	}
	return p.waitWhat, max(0, p.waitUntil.Sub(p.Now()))
}

// advanceVirtual moves a virtual clock to the next window and starts it
// there; when another caller is already moving it, it waits for that move
// instead (one minute, however many wait). p.mu is held on entry and
// released on return.
func (p *Plan) advanceVirtual(ctx context.Context) error {
	if p.advancing {
		ch := p.changedChan()
		p.mu.Unlock()
		select {
		case <-ch:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	epoch := p.epoch
	p.advancing = true
	p.mu.Unlock()
	err := p.Advance(ctx)
	p.mu.Lock()
	p.advancing = false
	switch {
	case err != nil:
		if p.changed != nil { // waiters try again themselves
			close(p.changed)
			p.changed = nil
		}
	case p.epoch == epoch:
		p.newWindow()
		p.windows++
	}
	p.mu.Unlock()
	return err
}

// changedChan is closed at the next window change. Callers hold mu.
func (p *Plan) changedChan() chan struct{} {
	if p.changed == nil {
		p.changed = make(chan struct{})
	}
	return p.changed
}

// NextWindow waits for the next window (advances a virtual clock), showing
// what through Waiting meanwhile.
func (p *Plan) NextWindow(ctx context.Context, what string) error {
	p.mu.Lock()
	p.roll()
	return p.waitNext(ctx, what)
}

// waitNext waits for the window after the current one. p.mu is held on
// entry and released on return.
func (p *Plan) waitNext(ctx context.Context, what string) error {
	if p.Advance != nil {
		return p.advanceVirtual(ctx)
	}
	until := p.start.Add(Window + p.Margin)
	p.waitWhat, p.waitUntil = what, p.Now().Add(until.Sub(p.targetNow()))
	d := until.Sub(p.targetNow())
	p.windows++
	return p.sleepLocked(ctx, d)
}

// sleepLocked sleeps d with p.mu released, counting the wait. p.mu is held
// on entry and released on return.
func (p *Plan) sleepLocked(ctx context.Context, d time.Duration) error {
	// Waited is wall time during which anyone waited (the union of the
	// sleeps, not their sum: several workers wait for one window).
	if p.sleepers == 0 {
		p.sleepSince = p.Now()
	}
	p.sleepers++
	p.mu.Unlock()
	w := waitsOf(ctx)
	w.begin()
	err := p.Sleep(ctx, d)
	w.end()
	p.mu.Lock()
	if p.sleepers--; p.sleepers == 0 {
		p.waited += p.Now().Sub(p.sleepSince)
	}
	p.waitWhat = ""
	p.roll()
	p.mu.Unlock()
	return err
}

// Own marks the plan owned by a check that probes a budget on purpose (it
// runs alone): until release is called, requests are counted but never
// held, and a 429 is the check's to judge, not waited out.
func (p *Plan) Own() (release func()) {
	p.mu.Lock()
	p.owners++
	p.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			p.mu.Lock()
			p.owners--
			p.mu.Unlock()
		})
	}
}

func (p *Plan) owned() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.owners > 0
}

// Stats is what the plan saw, for the run's closing line.
type Stats struct {
	Sent         int           // requests sent
	FailedAuth   int           // failed authentications caused
	Windows      int           // waits for a fresh window
	Waited429    int           // 429s the plan waited out
	Waited       time.Duration // wall time the run waited for fresh windows and resent
	Busiest      Bucket        // the route bucket with most requests in the run
	BusiestCount int
	// PerWindow is the failed authentications seen in each window since
	// the first the plan knew, the current one last: on a real clock a
	// window with fewer than the budget is time the run could have saved.
	PerWindow []int
}

// Stats reports what the plan saw so far.
func (p *Plan) Stats() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := Stats{Sent: p.sent, FailedAuth: p.total, Windows: p.windows, Waited429: p.held429, Waited: p.waited, PerWindow: slices.Clone(p.seen)}
	for b, n := range p.busiest {
		if n > s.BusiestCount || (n == s.BusiestCount && b.String() < s.Busiest.String()) {
			s.Busiest, s.BusiestCount = b, n
		}
	}
	return s
}

func (s Stats) String() string {
	out := fmt.Sprintf("%d requests, %d failed authentications, %d window waits (%s)", s.Sent, s.FailedAuth, s.Windows, s.Waited.Round(time.Second))
	if s.Waited429 > 0 {
		out += fmt.Sprintf(", %d 429s waited out", s.Waited429)
	}
	if len(s.PerWindow) > 1 {
		out += fmt.Sprintf("; failed authentications per clock minute %v (at most %d)", s.PerWindow, FailedAuthBudget)
	}
	return out
}

// spends tells whether a request spends the route and tenant budgets: it
// targets the API, carries a key the target issued and is not sent to be
// refused at the key step.
func (p *Plan) spends(req *http.Request, b Bucket) bool {
	if !strings.HasPrefix(b.Template, "/api/") || b.Key == "-" || keyRefusalExpected(req.Context()) {
		return false
	}
	return p.ValidKey == nil || p.ValidKey(keyOf(req.Header))
}

type keyRefusalKey struct{}

// ExpectKeyRefusal marks ctx's requests as sent to be refused at the key
// step: a key lacking the route's scope (403), or one the target issued
// in a state it refuses (401). Document 2, Check order puts the key step
// (3) before the rate limits (4), so on a conformant target such a
// request spends no route or tenant budget: the plan neither counts it
// nor holds it behind a probe that owns its route or the tenant's minute.
// It still fails authentication, so the failed-auth budget counts it as
// any other (the sender's ticket reserves it). A target that refuses it
// later than the key step spends budget the plan did not count; the 429
// that may follow is waited out like any the plan did not expect.
func ExpectKeyRefusal(ctx context.Context) context.Context {
	return context.WithValue(ctx, keyRefusalKey{}, true)
}

func keyRefusalExpected(ctx context.Context) bool {
	v, _ := ctx.Value(keyRefusalKey{}).(bool)
	return v
}
