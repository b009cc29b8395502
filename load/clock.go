package load

import (
	"context"
	"math"
	"time"

	"github.com/touchstone-harness/touchstone/internal/control"
	"github.com/touchstone-harness/touchstone/internal/traffic"
)

// Clock is the server's clock as a probe sees it: a virtual sandbox clock it
// moves through the control API, or a real one it waits on. Probes are
// written once against it.
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

// RealClock is a server's wall clock as the run's traffic plan knows it
// from the Date of every answer (check.T.Clock makes it tight first).
type RealClock struct{ Plan *traffic.Plan }

func (r RealClock) Now(context.Context) (time.Time, error) { return r.Plan.TargetNow(), nil }

func (r RealClock) To(ctx context.Context, sec float64, next bool) (time.Time, error) {
	now := r.Plan.TargetNow()
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
	return r.Plan.TargetNow(), nil
}

func (r RealClock) Offset() time.Duration { return r.Plan.ClockOffset() }
func (RealClock) Virtual() bool           { return false }

// secondsLeft is the whole seconds to the end of the clock minute of at,
// rounded up.
func secondsLeft(at time.Time) float64 {
	return math.Ceil(at.Truncate(time.Minute).Add(time.Minute).Sub(at).Seconds())
}
