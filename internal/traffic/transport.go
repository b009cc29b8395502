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
		retryAfter, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
		if err := p.waitOut(req.Context(), b, budgeted, time.Duration(retryAfter)*time.Second); err != nil {
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

// waitOut is the one rule for a 429 the plan did not ask for (another
// run's traffic, a target counting more than the plan does), whatever
// budget it names: that budget is spent in the target's current minute, so
// the plan marks it spent (a request that passes the key step spent its
// route's; one sent to be refused, the source IP's failed
// authentications: document 2, Check order puts the key step before the
// rate limits), waits for Retry-After (a virtual clock is moved to its
// next minute instead) and lets RoundTrip admit and send the request
// again, at most maxResends times. A 429 is answered before the operation
// runs, so sending it again changes nothing on the target.
func (p *Plan) waitOut(ctx context.Context, b Bucket, budgeted bool, retryAfter time.Duration) error {
	p.mu.Lock()
	p.roll()
	p.held429++
	if budgeted {
		if p.full == nil {
			p.full = map[Bucket]bool{}
		}
		p.full[b] = true
	} else {
		p.used = FailedAuthBudget
		if tc, ok := ctx.Value(ticketKey{}).(ticketCtx); ok && tc.t != nil {
			// What the sender holds in this window is void: it is
			// reserved again where the request goes out next.
			tc.t.mu.Lock()
			tc.t.giveBack()
			tc.t.mu.Unlock()
		}
	}
	if p.Advance != nil {
		return p.advanceVirtual(ctx)
	}
	until := p.Now().Add(max(retryAfter, time.Second) + p.Margin)
	p.waitWhat = fmt.Sprintf("the target answered 429 to %s %s: waiting out its Retry-After of %s", b.Method, b.Template, retryAfter)
	p.waitUntil = until
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
