// Package traffic is a run's traffic plan: every request the harness sends
// a target passes one Plan, which keeps the run inside the three documented
// budgets (document 2, Limits): 600 per API key, method and route template
// per clock minute; 6,000 per tenant per clock minute; 20 failed
// authentications per source IP per 60 s.
//
// When may a request go out? Four functions answer it:
//
//   - Transport.RoundTrip sorts the request (Plan.KindOf), sends it once
//     admitted, and waits out a 429 it did not ask for (at most three
//     times);
//   - Plan.admit waits until the timetable and the limiters let it out;
//   - Timetable.heldUntil says until when a budget probe owns what it spends;
//   - limiters.take counts it on its token buckets, or says how long to wait.
//
// The buckets let no 60-second span carry more than a budget, so no clock
// minute of the target does, wherever it starts: ordinary traffic needs no
// estimate of the target's clock. Only the budget probes read it: each owns
// what it spends for the clock minutes the timetable gives it, its requests
// are never held and its 429s are its own to judge. On a virtual clock the
// buckets' time is the minutes the plan moved the target's clock, and a
// spent budget moves it (Advance) instead of sleeping.
package traffic

import (
	"context"
	"fmt"
	"net/http"
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
	// Advance moves a virtual clock to its next minute; nil: a real clock.
	Advance func(context.Context) error
	// Now and Sleep are the wall clock (tests replace them).
	Now   func() time.Time
	Sleep func(context.Context, time.Duration) error
	// ValidKey tells whether the target lets a key past the key step (the
	// profile's keys, less those in a refused state). Another key, or
	// none, is refused before the rate limits (document 2, Check order).
	ValidKey func(key string) bool
	// OnAnswer, when set before the run, hears each API request admitted,
	// with its answer's status and, for a 401 or 403, problem code.
	OnAnswer func(r *http.Request, k Kind, status int, code string)
	// Table is the minutes the budget probes own (a real clock).
	Table *Timetable

	lim   limiters
	mu    sync.Mutex
	clock dateClock
	stats Stats
	rtts  []time.Duration // the last 64 round trips
	// what the run waits for (Waiting), until when, how many wait, since
	waitWhat       string
	waitEnd, since time.Time
	sleepers       int
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

// Kind is what one request spends: its route's and the tenant's budgets
// (Budgets), or a failed authentication (FailedAuth), or neither (no API
// call: the OpenAPI document, a CORS preflight, the control API).
type Kind struct {
	Bucket              Bucket
	Budgets, FailedAuth bool
}

// KindOf sorts a request. A CORS preflight fails, when it does, "at the
// CORS preflight with no API error" (document 2, Authentication 7).
func (p *Plan) KindOf(req *http.Request) Kind {
	k := Kind{Bucket: BucketOf(req)}
	if !strings.HasPrefix(k.Bucket.Template, "/api/") || req.Method == http.MethodOptions {
		return k
	}
	key := keyOf(req.Header)
	k.FailedAuth = key == "" || req.Context().Value(keyRefusalKey{}) != nil || (p.ValidKey != nil && !p.ValidKey(key))
	k.Budgets = !k.FailedAuth
	return k
}

func (k Kind) String() string {
	if k.FailedAuth {
		return "a failed authentication (" + k.Bucket.Method + " " + k.Bucket.Template + ")"
	}
	return k.Bucket.String()
}

// admit waits until a request of kind k may go out: outside the minutes a
// probe owns what it spends, and within the limiters. A probe's own
// requests go at once.
func (p *Plan) admit(ctx context.Context, k Kind) error {
	if (!k.Budgets && !k.FailedAuth) || IsProbe(ctx) {
		return nil
	}
	for {
		if p.Advance == nil {
			_, known := p.ClockWithin()
			if end, who := p.Table.heldUntil(k, p.TargetNow(), known); !end.IsZero() {
				if err := p.wait(ctx, "the minute "+who+" owns", end.Sub(p.TargetNow())); err != nil {
					return err
				}
				continue
			}
		}
		d, minute := p.lim.take(k, p.Now())
		switch {
		case d <= 0:
			if k.Budgets {
				p.mu.Lock()
				p.stats.Sent++
				p.mu.Unlock()
			}
			return nil
		case p.Advance != nil: // a virtual clock: move the target to its next minute
			if err := p.lim.advance(ctx, p.Advance, minute); err != nil {
				return err
			}
		default: // wait for the limiters' turn, then ask the timetable again
			if err := p.wait(ctx, "the budgets' turn for "+k.String(), d); err != nil {
				return err
			}
		}
	}
}

// Fresh moves a virtual clock to its next minute, every budget untouched
// (once for every caller waiting for it meanwhile); on a real clock it does
// nothing.
func (p *Plan) Fresh(ctx context.Context) error {
	if p.Advance == nil {
		return nil
	}
	return p.lim.advance(ctx, p.Advance, -1)
}

// Reset tells the plan that the caller moved a virtual clock to a new
// minute itself: the limiters start fresh.
func (p *Plan) Reset() {
	p.lim.mu.Lock()
	p.lim.minutes++
	p.lim.mu.Unlock()
}

// wait sleeps d for what (shown by Waiting), counted in ctx's Waits.
func (p *Plan) wait(ctx context.Context, what string, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	p.mu.Lock()
	p.waitWhat, p.waitEnd = what, p.Now().Add(d)
	if p.sleepers++; p.sleepers == 1 {
		p.since = p.Now()
	}
	p.mu.Unlock()
	err := waiting(ctx, func() error { return p.Sleep(ctx, d) })
	p.mu.Lock()
	if p.sleepers--; p.sleepers == 0 {
		p.stats.Waited += p.Now().Sub(p.since)
		p.waitWhat = ""
	}
	p.mu.Unlock()
	return err
}

// Waiting says what the run waits for and for how long ("" when nothing).
func (p *Plan) Waiting() (what string, left time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.waitWhat, max(0, p.waitEnd.Sub(p.Now()))
}

// Stats is what the plan saw, for the run's closing line.
type Stats struct {
	Sent       int           // API requests admitted that spend the route and tenant budgets
	FailedAuth int           // failed authentications the target answered
	Unmarked   int           // of them, to requests not sorted as failed authentications
	Waited429  int           // 429s waited out
	Waited     time.Duration // wall time anyone waited for the budgets
}

// Stats reports what the plan saw so far.
func (p *Plan) Stats() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stats
}

func (s Stats) String() string {
	out := fmt.Sprintf("%d requests, %d failed authentications, waited %s for the budgets", s.Sent, s.FailedAuth, s.Waited.Round(time.Second))
	if s.Unmarked > 0 {
		out += fmt.Sprintf(" (%d failed authentications to requests not sent to be refused)", s.Unmarked)
	}
	if s.Waited429 > 0 {
		out += fmt.Sprintf(", %d 429s waited out", s.Waited429)
	}
	return out
}

// observe records one answer: the target's clock (Date), the round trip,
// a failed authentication.
func (p *Plan) observe(req *http.Request, k Kind, resp *http.Response, sent time.Time, code func() string) {
	now, c := p.Now(), ""
	if resp.StatusCode == 401 || resp.StatusCode == 403 {
		c = code()
	}
	p.mu.Lock()
	p.clock.observe(resp.Header.Get("Date"), sent, now)
	p.rtts = append(p.rtts[max(0, len(p.rtts)-63):], now.Sub(sent))
	if IsFailedAuth(resp.StatusCode, c) {
		p.stats.FailedAuth++
		if !k.FailedAuth {
			p.stats.Unmarked++
		}
	}
	p.mu.Unlock()
	if p.OnAnswer != nil && (k.Budgets || k.FailedAuth) {
		p.OnAnswer(req, k, resp.StatusCode, c)
	}
}

// Codes of the answers that spend the failed-auth budget (document 2,
// Authentication 9).
const (
	CodeAuthenticationFailed = "api_key_authentication_failed"
	CodeNotAuthorized        = "api_key_not_authorized"
)

// IsFailedAuth classifies an answer: any 401 (a target that says 401
// counted a failure), and a 403 api_key_not_authorized (missing scope, IP
// outside the allowlist); other 403s are not authentication failures.
func IsFailedAuth(status int, code string) bool {
	return status == 401 || (status == 403 && code == CodeNotAuthorized)
}

type keyRefusalKey struct{}

// ExpectKeyRefusal marks ctx's requests as sent to be refused at the key
// step with a key the target issued (lacking the route's scope: 403), so a
// failed authentication. Keys refused whatever the route (revoked,
// expired, ...) need no mark: ValidKey knows them.
func ExpectKeyRefusal(ctx context.Context) context.Context {
	return context.WithValue(ctx, keyRefusalKey{}, true)
}

type probeKey struct{}

// AsProbe marks ctx's requests as a budget probe's own: never held, their
// 429s the probe's to judge. s is its timetable slot (nil on a virtual
// clock, where the probe runs alone).
func AsProbe(ctx context.Context, s *Slot) context.Context {
	return context.WithValue(ctx, probeKey{}, s)
}

// IsProbe tells whether ctx's requests are a probe's own.
func IsProbe(ctx context.Context) bool {
	_, ok := ctx.Value(probeKey{}).(*Slot)
	return ok
}

// SlotOf is the timetable slot of ctx's probe, or nil.
func SlotOf(ctx context.Context) *Slot {
	s, _ := ctx.Value(probeKey{}).(*Slot)
	return s
}
