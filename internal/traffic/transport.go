package traffic

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Transport is the http.RoundTripper every request of a run goes through.
type Transport struct {
	Plan *Plan
	Next http.RoundTripper
}

// Admit admits a request sent outside the transport (written byte for
// byte on a connection of its own), waiting as RoundTrip would.
func (tr *Transport) Admit(req *http.Request) error {
	return tr.Plan.admit(req.Context(), tr.Plan.KindOf(req))
}

// RoundTrip admits the request, sends it, learns from the answer, and
// waits out a 429 it did not ask for: Retry-After and half a second (on a
// virtual clock: its next minute), then sends it again, at most three
// times. A 429 is answered before the operation runs (document 2, Check
// order), so sending again changes nothing on the target. A probe's own
// requests are neither held nor sent again: their 429s are theirs to judge.
func (tr *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	p := tr.Plan
	k := p.KindOf(req)
	for resend := 0; ; resend++ {
		if err := p.admit(req.Context(), k); err != nil {
			return nil, err
		}
		sent := p.Now()
		resp, err := tr.Next.RoundTrip(req)
		if err != nil {
			return resp, err
		}
		var body []byte
		code := func() string {
			if body == nil {
				body, _ = io.ReadAll(io.LimitReader(resp.Body, 64<<10))
				resp.Body.Close()
				resp.Body = io.NopCloser(bytes.NewReader(body))
			}
			var m struct{ Code any }
			json.Unmarshal(body, &m)
			c, _ := m.Code.(string)
			return c
		}
		p.observe(req, k, resp, sent, code)
		if resp.StatusCode != http.StatusTooManyRequests || IsProbe(req.Context()) || resend == 3 ||
			(req.Body != nil && req.GetBody == nil) || (!k.Budgets && !k.FailedAuth) {
			return resp, nil
		}
		if c := code(); c != "" && c != "rate_limited" {
			return resp, nil
		}
		p.mu.Lock()
		p.stats.Waited429++
		p.mu.Unlock()
		if p.Advance != nil {
			err = p.Fresh(req.Context())
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
// Retry-After (delay-seconds, of the target's clock) and half a second, or
// a whole window when it gives none.
func retryAfter(h string) time.Duration {
	n, err := strconv.Atoi(strings.TrimSpace(h))
	if err != nil || n < 0 || n > 3600 {
		return Window
	}
	return time.Duration(n)*time.Second + 500*time.Millisecond
}

// RoundTrip is the median of the target's recent round trips (0 before
// any): what one request in a sequence costs.
func (p *Plan) RoundTrip() time.Duration {
	if p == nil {
		return 0
	}
	p.mu.Lock()
	s := slices.Clone(p.rtts)
	p.mu.Unlock()
	if len(s) == 0 {
		return 0
	}
	slices.Sort(s)
	return s[len(s)/2]
}

// InFlight is how many requests a burst keeps in flight against this
// target: base (what a loopback target on two cores takes, about 600 a
// second) while the round trip is under 2 ms, more in proportion to a
// longer one (Little's law), at most 64.
func (p *Plan) InFlight(base int) int {
	const short = 2 * time.Millisecond
	if rtt := p.RoundTrip(); rtt > short {
		return min(64, max(base, int(int64(base)*int64(rtt)/int64(short))))
	}
	return base
}
