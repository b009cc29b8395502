package traffic

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// maxResends bounds how often one request is sent again after a 429 the
// plan waited out.
const maxResends = 3

// Transport is the http.RoundTripper every request of a run goes through:
// it admits each request into its budgets (waiting for the next window
// when one is spent), learns the target's clock from each answer's Date,
// and waits out a 429 the harness did not ask for, then sends the request
// again. A 429 is answered before the operation runs (document 2, Check
// order: rate limits and the failed-auth budget come before idempotency and
// the operation), so sending it again changes nothing on the target.
type Transport struct {
	Plan *Plan
	Next http.RoundTripper
	// Timeout bounds each attempt (sending, waiting for the answer and
	// reading its body), never the plan's waits for a fresh window: the
	// HTTP client's own Timeout would cut those short.
	Timeout time.Duration
}

// Admit counts a request sent outside the transport (written byte for
// byte on a connection of its own) into its budgets, waiting as RoundTrip
// would.
func (tr *Transport) Admit(req *http.Request) error {
	b := BucketOf(req)
	if !tr.Plan.spends(req, b) {
		return nil
	}
	if _, err := tr.Plan.admit(req.Context(), b, ClaimOf(req.Context())); err != nil {
		return err
	}
	spendsBudget(req.Context())
	if tr.Plan.OnSend != nil {
		tr.Plan.OnSend(req, b)
	}
	return nil
}

// RoundTrip implements http.RoundTripper.
func (tr *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	p := tr.Plan
	b := BucketOf(req)
	budgeted := p.spends(req, b)
	for resend := 0; ; resend++ {
		// The holder's pending failed authentications are reserved in the
		// window the request goes out in (a request refused at the key
		// step spends no route budget, but it is the one that fails):
		// when admission waited into another window, they are reserved
		// there again.
		//
		// Admission comes first: while it waits (for a probe's release or
		// a fresh window) the holder lends its reservation to the run, so
		// that a check waiting for budgets keeps no failed-auth window
		// idle; what it is still to cause is reserved again after.
		if strings.HasPrefix(b.Template, "/api/") {
			for {
				admitted := 0
				if budgeted {
					e, err := p.admit(req.Context(), b, ClaimOf(req.Context()))
					if err != nil {
						return nil, err
					}
					admitted = e
				}
				epoch, err := p.ensure(req.Context())
				if err != nil {
					return nil, err
				}
				now := p.epochNow()
				if (!budgeted || admitted == now) && (epoch == 0 || epoch == now) {
					break
				}
			}
		}
		if budgeted {
			spendsBudget(req.Context())
			if p.OnSend != nil {
				p.OnSend(req, b)
			}
		}
		sent := p.Now()
		resp, err := tr.attempt(req)
		if err != nil {
			return resp, err
		}
		p.observeRTT(p.Now().Sub(sent))
		p.observeDate(resp.Header.Get("Date"), sent, p.Now())
		if resp.StatusCode != http.StatusTooManyRequests || p.owned() || ClaimOf(req.Context()) != nil || resend >= maxResends ||
			(req.Body != nil && req.GetBody == nil) || !strings.HasPrefix(b.Template, "/api/") {
			return resp, nil
		}
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(body))
		if !isRateLimited(body) {
			return resp, nil
		}
		failedAuth := bytes.Contains(bytes.ToLower(body), []byte("failed authentication"))
		retryAfter, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
		if failedAuth {
			err = p.resendFailedAuth(req.Context(), time.Duration(retryAfter)*time.Second)
		} else {
			err = p.waitOut(req.Context(), b, time.Duration(retryAfter)*time.Second)
		}
		if err != nil {
			return resp, nil // the caller's context ended: it judges the 429
		}
		next := req.Clone(req.Context())
		if req.GetBody != nil {
			if next.Body, err = req.GetBody(); err != nil {
				return resp, nil
			}
		}
		req = next
	}
}

// isRateLimited tells whether a 429's body is the documented problem
// (code rate_limited, or no parseable body at all, as a proxy might
// answer).
func isRateLimited(body []byte) bool {
	var m struct {
		Code any `json:"code"`
	}
	if json.Unmarshal(body, &m) != nil {
		return true
	}
	c, _ := m.Code.(string)
	return c == "" || c == "rate_limited"
}

// admit counts one request into its bucket and the tenant's, waiting for
// the next window while either is spent, and tells the window it counted
// it in. A request sent under a claim (c) is never held; any other waits
// while a claim owns its bucket or the tenant's window, lending its
// holder's failed-auth reservation to the run meanwhile (lend).
func (p *Plan) admit(ctx context.Context, b Bucket, c *Claim) (int, error) {
	p.mu.Lock()
	for {
		p.roll()
		if c == nil && p.owners == 0 {
			if who := p.heldOff(b); who != "" {
				p.lend(ctx)
				ch := p.releasedChan()
				p.waitWhat, p.waitUntil = "the end of "+who, p.Now()
				p.mu.Unlock()
				if err := p.waitRelease(ctx, ch); err != nil {
					return 0, err
				}
				p.mu.Lock()
				p.waitWhat = ""
				continue
			}
		}
		if c != nil || p.owners > 0 || p.fits(b) {
			if c != nil {
				c.sent++
			}
			if p.routes == nil {
				p.routes, p.busiest = map[Bucket]int{}, mapOr(p.busiest)
			}
			p.routes[b]++
			p.busiest[b]++
			p.tenant++
			p.sent++
			epoch := p.epoch
			p.mu.Unlock()
			return epoch, nil
		}
		p.lend(ctx)
		what := fmt.Sprintf("a fresh rate-limit window for %s %s (%d of %d spent this minute; tenant %d of %d)",
			b.Method, b.Template, p.routes[b], RouteBudget, p.tenant, TenantBudget)
		if err := p.waitNext(ctx, what); err != nil {
			return 0, err
		}
		p.mu.Lock()
	}
}

func mapOr(m map[Bucket]int) map[Bucket]int {
	if m == nil {
		return map[Bucket]int{}
	}
	return m
}

// fits tells whether one more request to b stays inside the budgets (less
// the headroom and what held claims may still send). Callers hold mu.
func (p *Plan) fits(b Bucket) bool {
	return !p.full[b] && p.routes[b] < RouteBudget-routeHeadroom && p.tenant+p.reservedLeft(nil) < TenantBudget-tenantHeadroom
}

// waitRelease waits for ch (closed at a claim's release: only a release
// lets a held request through). The wait is the check's turn in the
// budgets, counted in its Waits, not against its deadline.
func (p *Plan) waitRelease(ctx context.Context, ch chan struct{}) error {
	w := waitsOf(ctx)
	w.begin()
	defer func() { w.end() }()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// waitOut handles a 429 for a route's or the tenant's budget that the
// plan did not expect: the budget it names is spent in this window (by
// traffic the plan did not see: another run, a target counting
// differently), so mark it so and wait for the next window, or for
// Retry-After when that is later.
func (p *Plan) waitOut(ctx context.Context, b Bucket, retryAfter time.Duration) error {
	p.mu.Lock()
	p.roll()
	p.held429++
	if p.full == nil {
		p.full = map[Bucket]bool{}
	}
	p.full[b] = true
	what := fmt.Sprintf("the target answered 429 to %s %s: waiting for a fresh window", b.Method, b.Template)
	if p.retryAfterLater(retryAfter) {
		return p.sleepRetryAfter(ctx, what, retryAfter)
	}
	return p.waitNext(ctx, what)
}

// resendFailedAuth handles a 429 for the failed-authentication budget:
// the window is spent (by traffic the plan did not see: the run before
// this one in the same minute, another caller from this address), and the
// request, sent again, fails authentication again. It waits for a fresh
// window in line from the moment of the 429, ahead of the checks started
// meanwhile, with its room reserved on its sender's ticket: the ticket
// lends it back should the request then wait for another budget, and
// counts the failure when it comes. (Resends that joined the line only
// when they woke, 2 s into the next window, found it taken by the checks
// started at its first second and waited one more; counted as spent when
// they woke, those held behind a probe's claim left 8 of a measured
// window's 20 unused.) A request outside any check (the start-up probe, a
// replay) takes its place in the window itself (takeFailedAuth).
func (p *Plan) resendFailedAuth(ctx context.Context, retryAfter time.Duration) error {
	tc, ok := ctx.Value(ticketKey{}).(ticketCtx)
	p.mu.Lock()
	p.roll()
	p.held429++
	p.used = FailedAuthBudget
	if ok && tc.t != nil {
		// What the sender holds in this window is void: it is spent.
		tc.t.mu.Lock()
		tc.t.giveBack()
		tc.t.mu.Unlock()
	}
	if p.retryAfterLater(retryAfter) {
		if err := p.sleepRetryAfter(ctx, "the target answered 429 to a failed authentication: waiting for its Retry-After", retryAfter); err != nil {
			return err
		}
	} else {
		p.mu.Unlock()
	}
	if !ok || tc.t == nil {
		return p.takeFailedAuth(ctx)
	}
	n := 1
	if tc.want != nil {
		n = max(n, min(tc.want(), FailedAuthBudget))
	}
	return tc.t.ReserveFirst(ctx, n)
}

// retryAfterLater tells whether a 429's Retry-After reaches past the
// current window's end (a real clock only). Callers hold mu.
func (p *Plan) retryAfterLater(retryAfter time.Duration) bool {
	return p.Advance == nil && retryAfter > 0 && retryAfter > p.start.Add(Window).Sub(p.targetNow())
}

// sleepRetryAfter sleeps out a Retry-After (and the margin). p.mu is held
// on entry and released on return.
func (p *Plan) sleepRetryAfter(ctx context.Context, what string, retryAfter time.Duration) error {
	until := p.Now().Add(retryAfter + p.Margin)
	p.waitWhat, p.waitUntil = what, until
	p.windows++
	return p.sleepLocked(ctx, until.Sub(p.Now()))
}

// observeDate lets the plan learn the target's clock from one answer.
func (p *Plan) observeDate(date string, sent, received time.Time) {
	if date == "" {
		return
	}
	p.mu.Lock()
	p.clock.observe(date, sent, received)
	p.mu.Unlock()
}

// takeFailedAuth counts one failed authentication about to be caused
// outside any ticket (a resend of the start-up probe, a replay), waiting
// for a window with room. A resend is first in line: while it waits, new
// reservations leave it room (resending), so that checks starting
// meanwhile cannot keep it out of window after window.
func (p *Plan) takeFailedAuth(ctx context.Context) error {
	p.mu.Lock()
	p.resending++
	defer func() { p.mu.Lock(); p.resending--; p.mu.Unlock() }()
	for {
		p.roll()
		if p.used+p.held < FailedAuthBudget && !p.ending() {
			p.used++
			p.mu.Unlock()
			return nil
		}
		if err := p.waitNext(ctx, "a fresh failed-auth window to send again what the target refused as over budget"); err != nil {
			return err
		}
		p.mu.Lock()
	}
}

// attempt sends req once within the attempt timeout; the deadline holds
// until the body is closed, so a body that never ends is cut too.
func (tr *Transport) attempt(req *http.Request) (*http.Response, error) {
	if tr.Timeout <= 0 {
		return tr.Next.RoundTrip(req)
	}
	ctx, cancel := context.WithTimeout(req.Context(), tr.Timeout)
	resp, err := tr.Next.RoundTrip(req.WithContext(ctx))
	if err != nil {
		cancel()
		if ctx.Err() == context.DeadlineExceeded && req.Context().Err() == nil {
			return nil, fmt.Errorf("no answer within %s (Client.Timeout exceeded): %w", tr.Timeout, err)
		}
		return nil, err
	}
	resp.Body = CancelOnClose(resp.Body, cancel)
	return resp, nil
}

// CancelOnClose is body that ends its request's context (cancel) when it
// is closed, so that a deadline holds until the body is read.
func CancelOnClose(body io.ReadCloser, cancel context.CancelFunc) io.ReadCloser {
	return &cancelOnClose{ReadCloser: body, cancel: cancel}
}

type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (c *cancelOnClose) Close() error {
	err := c.ReadCloser.Close()
	c.cancel()
	return err
}

// observeRTT keeps the last round trips (answer headers received), for
// RoundTrip.
func (p *Plan) observeRTT(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.rtts) < rttSamples {
		p.rtts = append(p.rtts, d)
	} else {
		p.rtts[p.rttNext] = d
	}
	p.rttNext = (p.rttNext + 1) % rttSamples
}

const rttSamples = 64

// RoundTrip is the median of the target's recent round trips (0 before
// any): what one request in a sequence costs.
func (p *Plan) RoundTrip() time.Duration {
	if p == nil {
		return 0
	}
	p.mu.Lock()
	s := append([]time.Duration(nil), p.rtts...)
	p.mu.Unlock()
	if len(s) == 0 {
		return 0
	}
	slices.Sort(s)
	return s[len(s)/2]
}

// InFlight is how many requests a burst keeps in flight against this
// target: base (what a loopback target on two cores takes, about 600
// requests a second) while the round trip is short, more in proportion to
// a longer one (Little's law: the same rate needs rtt × rate in flight),
// at most maxInFlight.
func (p *Plan) InFlight(base int) int {
	rtt := p.RoundTrip()
	if rtt <= shortRoundTrip {
		return base
	}
	return min(maxInFlight, max(base, int(int64(base)*int64(rtt)/int64(shortRoundTrip))))
}

const (
	shortRoundTrip = 2 * time.Millisecond
	maxInFlight    = 64
)
