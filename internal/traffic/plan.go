// Package traffic is a run's traffic plan: every request the harness sends
// to a target (checks, properties, load probes, the start-up probe,
// replays) passes one Plan, which keeps the run inside the three
// documented budgets (document 2, Limits):
//
//   - per API key, HTTP method and route template: 600 per clock minute
//     (RouteBudget);
//   - per tenant, across every key: 6,000 per clock minute (TenantBudget);
//   - failed authentications per source IP: 20 per 60 seconds
//     (FailedAuthBudget).
//
// When may a request go out? Four functions answer it:
//
//   - Transport.RoundTrip sorts the request (Kind: it spends the route and
//     tenant budgets, or it is sent to be refused at the key step and
//     spends a failed authentication, or neither) and sends it once
//     admitted; a 429 it did not ask for is waited out (Retry-After) and
//     the request sent again, at most three times.
//   - Plan.admit waits until the timetable lets the kind out and the
//     limiters grant it.
//   - Timetable.heldUntil says when a minute a budget probe owns ends.
//   - limiters.take counts it on its limiters, or says how long to wait.
//
// The limiters (golang.org/x/time/rate, one per route budget, one for the
// tenant, one for failed authentications) are set so that no 60-second
// span carries more than a budget: then no clock minute does, wherever
// the target's minute starts, and ordinary traffic needs no estimate of
// the target's clock. Only the probes read it: a check that probes a
// budget on purpose owns that budget for the clock minutes the timetable
// gives it (built before the run from the probes' declarations), its
// requests are never held, and its 429s are its own to judge.
//
// On a virtual clock (the embedded sandbox) the target's minute moves only
// when told: the limiters' time is then the count of minutes the plan has
// moved the clock, and a request that finds a budget spent moves it to the
// next minute (Advance) instead of sleeping.
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
	Window           = time.Minute
)

// Plan is the ledger of one run's traffic to one target.
type Plan struct {
	// Advance moves a virtual clock to the next minute; nil means the
	// clock is real.
	Advance func(context.Context) error
	// Now and Sleep are the wall clock (tests replace them).
	Now   func() time.Time
	Sleep func(context.Context, time.Duration) error
	// ValidKey, when set, tells whether a key is one the target issued and
	// lets past the key step (the profile's, less those in a refused
	// state). A request with another key, or none, is refused at the key
	// step, before the rate limits (document 2, Check order): it spends a
	// failed authentication, not a route's or the tenant's budget.
	ValidKey func(key string) bool
	// OnAnswer, when set before the run, hears each API request the plan
	// admitted with the answer's status and problem code (the
	// declarations are measured with it).
	OnAnswer func(r *http.Request, k Kind, status int, code string)
	// Table is the minutes the budget probes own (real clock only).
	Table *Timetable

	lim   limiters
	clock dateClock

	mu       sync.Mutex
	waitWhat string
	waitEnd  time.Time
	stats    Stats
	perMin   map[time.Time]int // failed authentications seen per target minute
	sleepers int
	since    time.Time
	rtts     []time.Duration
	rttNext  int
}

// New returns a plan on the wall clock; advance is nil for a real clock.
func New(advance func(context.Context) error) *Plan {
	p := &Plan{Advance: advance, Now: time.Now, Sleep: sleep, Table: &Timetable{}}
	p.lim.init(advance != nil)
	return p
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

// Kind is what one request spends.
type Kind struct {
	Bucket Bucket
	// Budgets: the route's and the tenant's (an API request with a key
	// that passes the key step).
	Budgets bool
	// FailedAuth: the request is refused at the key step (no key, a key
	// the target never issued or refuses, or marked so where it was built:
	// ExpectKeyRefusal).
	FailedAuth bool
}

// KindOf sorts a request.
func (p *Plan) KindOf(req *http.Request) Kind {
	k := Kind{Bucket: BucketOf(req)}
	// A CORS preflight is no API call: it fails, when it does, "at the
	// CORS preflight with no API error" (document 2, Authentication 7).
	if !strings.HasPrefix(k.Bucket.Template, "/api/") || req.Method == http.MethodOptions {
		return k
	}
	key := keyOf(req.Header)
	if key == "" || keyRefusalExpected(req.Context()) || (p.ValidKey != nil && !p.ValidKey(key)) {
		k.FailedAuth = true
	} else {
		k.Budgets = true
	}
	return k
}

// admit waits until a request of kind k may go out: outside the minutes a
// probe owns what it spends, and within the limiters. A probe's own
// requests (AsProbe) go at once.
func (p *Plan) admit(ctx context.Context, k Kind) error {
	if (!k.Budgets && !k.FailedAuth) || IsProbe(ctx) {
		return nil
	}
	for {
		if p.Advance == nil {
			if end, who := p.Table.heldUntil(k, p.TargetNow(), p.clockKnown()); !end.IsZero() {
				if err := p.wait(ctx, "the minute "+who+" owns", end.Sub(p.TargetNow())); err != nil {
					return err
				}
				continue
			}
		}
		d, minute := p.lim.take(k, p.limNow())
		if d <= 0 {
			p.count(k)
			return nil
		}
		if p.Advance != nil {
			// A virtual clock: move the target to its next minute.
			if err := p.lim.advance(ctx, p.Advance, minute); err != nil {
				return err
			}
			continue
		}
		// A real clock: wait for the limiters' turn, then ask again (the
		// timetable first: the turn may fall in a probe's minute).
		if err := p.wait(ctx, fmt.Sprintf("the budgets' turn for %s", k), d); err != nil {
			return err
		}
	}
}

func (k Kind) String() string {
	if k.FailedAuth {
		return "a failed authentication (" + k.Bucket.Method + " " + k.Bucket.Template + ")"
	}
	return k.Bucket.String()
}

// limNow is the limiters' time: the wall clock, or on a virtual clock the
// minutes the plan moved it.
func (p *Plan) limNow() time.Time {
	if p.Advance != nil {
		return p.lim.virtualNow()
	}
	return p.Now()
}

// nextMinute moves a virtual clock to its next minute, once for every
// request that waits for it meanwhile.
func (p *Plan) nextMinute(ctx context.Context) error {
	return p.lim.advance(ctx, p.Advance, p.lim.minute())
}

// Fresh starts a fresh minute: on a virtual clock it moves the target to
// its next minute (every budget untouched); on a real clock it does
// nothing.
func (p *Plan) Fresh(ctx context.Context) error {
	if p.Advance == nil {
		return nil
	}
	return p.nextMinute(ctx)
}

// Reset tells the plan that the caller moved a virtual clock to a new
// minute itself: the limiters start fresh.
func (p *Plan) Reset() { p.lim.bump() }

// wait sleeps d (what says what for, in Waiting), counted in ctx's Waits.
func (p *Plan) wait(ctx context.Context, what string, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	p.mu.Lock()
	p.waitWhat, p.waitEnd = what, p.Now().Add(d)
	if p.sleepers == 0 {
		p.since = p.Now()
	}
	p.sleepers++
	p.mu.Unlock()
	w := waitsOf(ctx)
	w.begin()
	err := p.Sleep(ctx, d)
	w.end()
	p.mu.Lock()
	if p.sleepers--; p.sleepers == 0 {
		p.stats.Waited += p.Now().Sub(p.since)
		p.waitWhat = ""
	}
	p.mu.Unlock()
	return err
}

// Waiting says what the run is waiting for and for how long, or "" when
// it is not waiting.
func (p *Plan) Waiting() (what string, left time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.waitWhat == "" {
		return "", 0
	}
	return p.waitWhat, max(0, p.waitEnd.Sub(p.Now()))
}

// Stats is what the plan saw, for the run's closing line.
type Stats struct {
	Sent       int           // API requests admitted that spend the route and tenant budgets
	FailedAuth int           // failed authentications the target answered
	Unmarked   int           // of them, to requests not sorted as failed authentications
	Waited429  int           // 429s waited out
	Waited     time.Duration // wall time anyone waited for the budgets
	// PerMinute is the failed authentications answered in each of the
	// target's clock minutes, from the first with one.
	PerMinute []int
}

// Stats reports what the plan saw so far.
func (p *Plan) Stats() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.stats
	var mins []time.Time
	for m := range p.perMin {
		mins = append(mins, m)
	}
	slices.SortFunc(mins, func(a, b time.Time) int { return a.Compare(b) })
	if len(mins) > 0 {
		for m := mins[0]; !m.After(mins[len(mins)-1]); m = m.Add(Window) {
			s.PerMinute = append(s.PerMinute, p.perMin[m])
		}
	}
	return s
}

func (s Stats) String() string {
	out := fmt.Sprintf("%d requests, %d failed authentications, waited %s for the budgets", s.Sent, s.FailedAuth, s.Waited.Round(time.Second))
	if s.Unmarked > 0 {
		out += fmt.Sprintf(" (%d failed authentications to requests not sent to be refused)", s.Unmarked)
	}
	if s.Waited429 > 0 {
		out += fmt.Sprintf(", %d 429s waited out", s.Waited429)
	}
	if len(s.PerMinute) > 1 {
		out += fmt.Sprintf("; failed authentications per clock minute %v (at most %d)", s.PerMinute, FailedAuthBudget)
	}
	return out
}

// count records an admitted request.
func (p *Plan) count(k Kind) {
	if k.Budgets {
		p.mu.Lock()
		p.stats.Sent++
		p.mu.Unlock()
	}
}

// observe records one answer: the target's clock from its Date, its round
// trip, and a failed authentication.
func (p *Plan) observe(req *http.Request, k Kind, resp *http.Response, sent time.Time, code func() string) {
	now := p.Now()
	p.mu.Lock()
	if date := resp.Header.Get("Date"); date != "" {
		p.clock.observe(date, sent, now)
	}
	p.rtt(now.Sub(sent))
	failed := (resp.StatusCode == 401 || resp.StatusCode == 403) && IsFailedAuth(resp.StatusCode, code())
	if failed {
		p.stats.FailedAuth++
		if !k.FailedAuth {
			p.stats.Unmarked++
		}
		if p.perMin == nil {
			p.perMin = map[time.Time]int{}
		}
		p.perMin[p.clock.at(now).Truncate(Window)]++
	}
	p.mu.Unlock()
	if p.OnAnswer != nil && (k.Budgets || k.FailedAuth) {
		c := ""
		if resp.StatusCode == 401 || resp.StatusCode == 403 {
			c = code()
		}
		p.OnAnswer(req, k, resp.StatusCode, c)
	}
}

// Codes of the answers that spend the failed-auth budget (document 2,
// Authentication 9).
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
	return status == 401 || (status == 403 && code == CodeNotAuthorized)
}

type keyRefusalKey struct{}

// ExpectKeyRefusal marks ctx's requests as sent to be refused at the key
// step with a key the target issued: a key lacking the route's scope
// (403). Document 2, Check order puts the key step (3) before the rate
// limits (4), so such a request spends a failed authentication, not a
// route's or the tenant's budget. Keys the target refuses whatever the
// route (revoked, expired, ...) need no mark: ValidKey knows them.
func ExpectKeyRefusal(ctx context.Context) context.Context {
	return context.WithValue(ctx, keyRefusalKey{}, true)
}

func keyRefusalExpected(ctx context.Context) bool {
	v, _ := ctx.Value(keyRefusalKey{}).(bool)
	return v
}

type probeKey struct{}

// AsProbe marks ctx's requests as a budget probe's own: never held, and
// their 429s are the probe's to judge. s is the probe's place in the
// timetable (nil on a virtual clock, where the probe runs alone).
func AsProbe(ctx context.Context, s *Slot) context.Context {
	return context.WithValue(ctx, probeKey{}, probeCtx{s})
}

type probeCtx struct{ s *Slot }

// IsProbe tells whether ctx's requests are a probe's own.
func IsProbe(ctx context.Context) bool {
	_, ok := ctx.Value(probeKey{}).(probeCtx)
	return ok
}

// SlotOf is the timetable slot of ctx's probe, or nil.
func SlotOf(ctx context.Context) *Slot {
	pc, _ := ctx.Value(probeKey{}).(probeCtx)
	return pc.s
}
