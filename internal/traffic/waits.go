package traffic

import (
	"context"
	"sync"
	"time"
)

// Waits is how long one check has waited for the plan (its turn in the
// budgets, a probe's minute, a 429 waited out), on the wall clock, waits
// that overlap counted once: the check's deadline counts only the rest, so
// a check waiting its turn is not cut off as if the target had stalled.
type Waits struct {
	mu    sync.Mutex
	total time.Duration
	n     int       // waits under way
	since time.Time // start of the waits under way
}

type waitsKey struct{}

// WithWaits returns ctx carrying w, which the plan adds the waits of ctx's
// requests to.
func WithWaits(ctx context.Context, w *Waits) context.Context {
	return context.WithValue(ctx, waitsKey{}, w)
}

func waitsOf(ctx context.Context) *Waits {
	w, _ := ctx.Value(waitsKey{}).(*Waits)
	return w
}

func (w *Waits) begin() {
	if w != nil {
		w.mu.Lock()
		if w.n++; w.n == 1 {
			w.since = time.Now()
		}
		w.mu.Unlock()
	}
}

func (w *Waits) end() {
	if w != nil {
		w.mu.Lock()
		if w.n--; w.n == 0 {
			w.total += time.Since(w.since)
		}
		w.mu.Unlock()
	}
}

// Total is how long the check has waited so far, a wait under way included.
func (w *Waits) Total(now time.Time) time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.n > 0 {
		return w.total + now.Sub(w.since)
	}
	return w.total
}

// WaitFor sleeps d (or until ctx ends), counted in ctx's Waits: a probe
// waiting for its second of a clock minute waits like a request held.
func WaitFor(ctx context.Context, d time.Duration) error {
	w := waitsOf(ctx)
	w.begin()
	defer w.end()
	return sleep(ctx, d)
}
