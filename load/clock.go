package load

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"time"

	"github.com/touchstone-harness/touchstone/internal/control"
	"github.com/touchstone-harness/touchstone/internal/traffic"
)

// Clock is the server's clock as a probe sees it: a virtual sandbox clock it
// moves through the control API, or a real one it estimates from Date and
// waits on. Probes are written once against it.
type Clock interface {
	// Now is the server's time.
	Now(ctx context.Context) (time.Time, error)
	// To moves to second sec of the current minute (next: of the next
	// minute); a real clock waits, a virtual one is set.
	To(ctx context.Context, sec float64, next bool) (time.Time, error)
	// Offset turns local timestamps into server time (0 for a virtual clock,
	// whose time stands still during a burst).
	Offset() time.Duration
	Virtual() bool
}

// VirtualClock drives the sandbox's control clock.
type VirtualClock struct{ C *control.Client }

func (v VirtualClock) Now(ctx context.Context) (time.Time, error) {
	c, err := v.C.Clock(ctx)
	return c.Now, err
}

func (v VirtualClock) To(ctx context.Context, sec float64, next bool) (time.Time, error) {
	if next {
		c, err := v.C.NextMinute(ctx, time.Duration(sec*float64(time.Second)))
		return c.Now, err
	}
	now, err := v.Now(ctx)
	if err != nil {
		return now, err
	}
	want := now.Truncate(time.Minute).Add(time.Duration(sec * float64(time.Second)))
	if !want.After(now) {
		return now, nil
	}
	c, err := v.C.Advance(ctx, want.Sub(now))
	return c.Now, err
}

func (VirtualClock) Offset() time.Duration { return 0 }
func (VirtualClock) Virtual() bool         { return true }

// RealClock is a server's wall clock, estimated from its Date header.
type RealClock struct {
	off time.Duration
}

// EstimateRealClock reads the server's Date across a second boundary: it
// polls url (with header: a key, so that no poll is a failed
// authentication) until Date changes, so the offset is known to a few
// milliseconds plus the request's half round trip. Bounded to 3 s of
// polling, about 50 requests.
func EstimateRealClock(ctx context.Context, hc *http.Client, url string, header http.Header) (*RealClock, error) {
	var last time.Time
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		sent := time.Now()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return nil, err
		}
		req.Header = header.Clone()
		resp, err := hc.Do(req)
		if err != nil {
			return nil, err
		}
		resp.Body.Close()
		got := time.Now()
		d, err := http.ParseTime(resp.Header.Get("Date"))
		if err != nil {
			return nil, fmt.Errorf("server clock: Date header %q: %v", resp.Header.Get("Date"), err)
		}
		if !last.IsZero() && !d.Equal(last) {
			// The server's second ticked between the two requests: d is
			// (about) the server time at the middle of this request.
			mid := sent.Add(got.Sub(sent) / 2)
			return &RealClock{off: d.Sub(mid)}, nil
		}
		last = d
		time.Sleep(20 * time.Millisecond)
	}
	return nil, fmt.Errorf("server clock: Date did not change within 3 s")
}

func (r *RealClock) Now(context.Context) (time.Time, error) { return time.Now().Add(r.off), nil }

func (r *RealClock) To(ctx context.Context, sec float64, next bool) (time.Time, error) {
	now := time.Now().Add(r.off)
	want := now.Truncate(time.Minute).Add(time.Duration(sec * float64(time.Second)))
	if next {
		want = want.Add(time.Minute)
	}
	if d := want.Sub(now); d > 0 {
		// A wait for the clock, not the probe's own time: it does not
		// count against the check's deadline.
		if err := traffic.WaitFor(ctx, d); err != nil {
			return now, err
		}
	}
	return time.Now().Add(r.off), nil
}

func (r *RealClock) Offset() time.Duration { return r.off }
func (*RealClock) Virtual() bool           { return false }

// secondsLeft is the whole seconds to the end of the clock minute of at,
// rounded up.
func secondsLeft(at time.Time) float64 {
	return math.Ceil(at.Truncate(time.Minute).Add(time.Minute).Sub(at).Seconds())
}
