package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/touchstone-harness/touchstone/internal/profile"
)

// DefaultMaxBody is the bound on a response body the harness reads when
// the run names none (check.Bounds.MaxBody).
const DefaultMaxBody int64 = 16 << 20

// ErrBodyTooLarge is returned when a body exceeds its client's bound.
var ErrBodyTooLarge = errors.New("response body too large")

// bodyBound is the innermost RoundTripper of a client built by Transport:
// every response body it returns stops with ErrBodyTooLarge past Max
// bytes, so an endless or huge body is refused instead of exhausting
// memory, whoever reads it (client, OpenAPI documents, control API).
type bodyBound struct {
	Next http.RoundTripper
	Max  int64
}

func (b *bodyBound) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := b.Next.RoundTrip(req)
	if resp != nil && resp.Body != nil {
		resp.Body = &boundedBody{ReadCloser: resp.Body, max: b.Max}
	}
	return resp, err
}

// boundedBody reads up to max bytes, then fails if one more remains.
type boundedBody struct {
	io.ReadCloser
	n, max int64
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.n >= b.max {
		var one [1]byte
		k, err := b.ReadCloser.Read(one[:])
		if k > 0 {
			return 0, fmt.Errorf("%w: more than %d bytes (the harness reads at most %d MiB)", ErrBodyTooLarge, b.max, max(b.max>>20, 1))
		}
		return 0, err
	}
	if rest := b.max - b.n; int64(len(p)) > rest {
		p = p[:rest]
	}
	k, err := b.ReadCloser.Read(p)
	b.n += int64(k)
	return k, err
}

// AttemptBound bounds each attempt of a request (sending it, waiting for
// its answer, reading its body) by Timeout; it sits inside the traffic
// plan's transport, so it never cuts the plan's waits around an attempt.
type AttemptBound struct {
	Next    http.RoundTripper
	Timeout time.Duration
}

func (a *AttemptBound) RoundTrip(req *http.Request) (*http.Response, error) {
	if a.Timeout <= 0 {
		return a.Next.RoundTrip(req)
	}
	ctx, cancel := context.WithTimeout(req.Context(), a.Timeout)
	resp, err := a.Next.RoundTrip(req.WithContext(ctx))
	if err != nil {
		cancel()
		if ctx.Err() == context.DeadlineExceeded && req.Context().Err() == nil {
			return nil, fmt.Errorf("no answer within %s (Client.Timeout exceeded): %w", a.Timeout, err)
		}
		return nil, err
	}
	resp.Body = &cancelOnClose{ReadCloser: resp.Body, cancel: cancel}
	return resp, nil
}

// cancelOnClose ends its request's context when closed, so that the
// attempt's deadline holds until the body is read.
type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (c *cancelOnClose) Close() error {
	err := c.ReadCloser.Close()
	c.cancel()
	return err
}

// ReadBody reads a response body whole. A body from a client built by
// Transport is bounded there: past the bound it returns the first bytes
// and an error wrapping ErrBodyTooLarge.
func ReadBody(r io.Reader) ([]byte, error) { return io.ReadAll(r) }

// LiveWriteError refuses a request that would change state with a live key.
type LiveWriteError struct{ Method, KeyPrefix string }

func (e *LiveWriteError) Error() string {
	return fmt.Sprintf("refused to send %s with live key %s: writes on live keys need --allow-live", e.Method, e.KeyPrefix)
}

// LiveGuard is the RoundTripper every harness HTTP client uses: no request
// whose method is not GET, HEAD or OPTIONS leaves the harness carrying a
// live key (in X-Api-Key or Authorization, any scheme) unless Allow is set.
// It guards at the client, whatever a check's labels say.
type LiveGuard struct {
	Next  http.RoundTripper
	allow atomic.Bool
}

// SetAllow opts in (--allow-live) or out.
func (g *LiveGuard) SetAllow(v bool) { g.allow.Store(v) }

// Allowed tells whether live writes are allowed.
func (g *LiveGuard) Allowed() bool { return g.allow.Load() }

// RoundTrip implements http.RoundTripper.
func (g *LiveGuard) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := g.permit(req.Method, req.Header); err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err
	}
	return g.Next.RoundTrip(req)
}

func (g *LiveGuard) permit(method string, h http.Header) error {
	if g == nil || g.Allowed() || SafeMethod(method) {
		return nil
	}
	if k := LiveKeyIn(h); k != "" {
		return &LiveWriteError{Method: method, KeyPrefix: k}
	}
	return nil
}

// SafeMethod tells whether a method cannot change state.
func SafeMethod(m string) bool {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return true
	}
	return false
}

// LiveKeyIn returns the public prefix of a live key found in any
// credential-bearing header, or "".
func LiveKeyIn(h http.Header) string {
	for name, vs := range h {
		if !CredentialHeader(name) {
			continue
		}
		for _, v := range vs {
			for _, tok := range credentialTokens(v) {
				if profile.IsLive(strings.TrimSpace(tok)) {
					p, _, _ := strings.Cut(tok, ".")
					return p
				}
			}
		}
	}
	return ""
}
