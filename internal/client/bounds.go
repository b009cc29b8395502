package client

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"

	"github.com/touchstone-harness/touchstone/internal/profile"
)

// MaxBody bounds every response body the harness reads (client, OpenAPI
// documents, control API): an endless or huge body is refused with
// ErrBodyTooLarge instead of exhausting memory. The runner sets it from
// the run's bounds (check.Bounds.MaxBody).
var MaxBody int64 = 16 << 20

// ErrBodyTooLarge is returned when a body exceeds MaxBody.
var ErrBodyTooLarge = errors.New("response body too large")

// ReadBody reads at most MaxBody bytes; a longer body returns the first
// MaxBody bytes and an error wrapping ErrBodyTooLarge.
func ReadBody(r io.Reader) ([]byte, error) {
	limit := MaxBody
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if int64(len(b)) > limit {
		return b[:limit], fmt.Errorf("%w: more than %d bytes (the harness reads at most %d MiB)", ErrBodyTooLarge, limit, max(limit>>20, 1))
	}
	return b, err
}

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
