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

// Admit admits a request sent outside the transport (written byte for
// byte on a connection of its own), waiting as RoundTrip would.
func (tr *Transport) Admit(req *http.Request) error {
	return tr.Plan.admit(req.Context(), tr.Plan.KindOf(req))
}

// RoundTrip implements http.RoundTripper: it admits the request, sends it,
// and waits out a 429 it did not ask for. A 429 is answered before the
// operation runs (document 2, Check order: rate limits and the failed-auth
// budget come before idempotency and the operation), so sending it again
// changes nothing on the target. A probe's own requests (AsProbe) are
// neither held nor sent again: their 429s are theirs to judge.
func (tr *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	p := tr.Plan
	k := p.KindOf(req)
	probe := IsProbe(req.Context())
	for resend := 0; ; resend++ {
		if err := p.admit(req.Context(), k); err != nil {
			return nil, err
		}
		sent := p.Now()
		resp, err := tr.attempt(req)
		if err != nil {
			return resp, err
		}
		var body []byte
		read := false
		code := func() string {
			if !read {
				body, _ = io.ReadAll(io.LimitReader(resp.Body, 64<<10))
				resp.Body.Close()
				resp.Body = io.NopCloser(bytes.NewReader(body))
				read = true
			}
			return problemCode(body)
		}
		p.observe(req, k, resp, sent, code)
		if resp.StatusCode != http.StatusTooManyRequests || probe || resend >= maxResends ||
			(req.Body != nil && req.GetBody == nil) || (!k.Budgets && !k.FailedAuth) {
			return resp, nil
		}
		if c := code(); c != "" && c != "rate_limited" {
			return resp, nil
		}
		// The one 429 rule: wait for Retry-After (a virtual clock: its
		// next minute), then send again.
		p.mu.Lock()
		p.stats.Waited429++
		p.mu.Unlock()
		if p.Advance != nil {
			err = p.nextMinute(req.Context())
		} else {
			err = p.wait(req.Context(), "the Retry-After of a 429 to "+k.String(), retryAfter(resp.Header.Get("Retry-After")))
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

// retryAfter is how long to wait before sending a 429'd request again: its
// Retry-After (delay-seconds) and half a second more (the target rounds it
// up to a second of its own clock), or a whole window when it gives none.
func retryAfter(h string) time.Duration {
	n, err := strconv.Atoi(strings.TrimSpace(h))
	if err != nil || n < 0 || n > 3600 {
		return Window
	}
	return time.Duration(n)*time.Second + 500*time.Millisecond
}

// problemCode is a problem body's code ("" when it has none).
func problemCode(body []byte) string {
	var m struct {
		Code any `json:"code"`
	}
	if json.Unmarshal(body, &m) != nil {
		return ""
	}
	c, _ := m.Code.(string)
	return c
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

// rtt keeps the last round trips (answer headers received), for
// RoundTrip. Callers hold mu.
func (p *Plan) rtt(d time.Duration) {
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
