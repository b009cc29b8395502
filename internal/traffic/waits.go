package traffic

import (
	"context"
	"sync/atomic"
	"time"
)

// Waits counts the waits for the plan under way in one check (its turn in
// the budgets, a probe's minute, a 429 waited out): the check's deadline
// runs only while none is, so a check waiting its turn is not cut off as
// if the target had stalled.
type Waits struct{ n atomic.Int32 }

type waitsKey struct{}

// WithWaits returns ctx carrying w, which counts the waits of ctx's
// requests.
func WithWaits(ctx context.Context, w *Waits) context.Context {
	return context.WithValue(ctx, waitsKey{}, w)
}

// Waiting tells whether a wait is under way.
func (w *Waits) Waiting() bool { return w.n.Load() > 0 }

// WaitFor sleeps d (or until ctx ends), counted in ctx's Waits: a probe
// waiting for its second of a clock minute waits like a request held.
func WaitFor(ctx context.Context, d time.Duration) error {
	return waiting(ctx, func() error { return sleep(ctx, d) })
}

func waiting(ctx context.Context, f func() error) error {
	if w, _ := ctx.Value(waitsKey{}).(*Waits); w != nil {
		w.n.Add(1)
		defer w.n.Add(-1)
	}
	return f()
}
