package traffic

import (
	"context"
	"sync"
	"time"
)

// Waits is how long one check has waited for the plan (fresh windows,
// 429s waited out): its deadline counts only the rest, so that a check
// waiting its turn in the budgets on a real clock is not cut off as if the
// target had stalled.
type Waits struct {
	mu    sync.Mutex
	total time.Duration
	n     int       // sleeps under way
	since time.Time // start of the current sleeps
}

type waitsKey struct{}

// WithWaits returns ctx carrying w: the plan adds to w the waits of every
// request sent with ctx.
func WithWaits(ctx context.Context, w *Waits) context.Context {
	return context.WithValue(ctx, waitsKey{}, w)
}

func waitsOf(ctx context.Context) *Waits {
	w, _ := ctx.Value(waitsKey{}).(*Waits)
	return w
}

// begin and end read the wall clock, as the check's deadline does: the
// plan's clock may be the target's (offset from ours) or a test's.
func (w *Waits) begin() {
	if w == nil {
		return
	}
	now := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.n == 0 {
		w.since = now
	}
	w.n++
}

func (w *Waits) end() {
	if w == nil {
		return
	}
	now := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.n--; w.n == 0 {
		w.total += now.Sub(w.since)
	}
}

// Total is how long the check has waited so far, a wait under way
// included.
func (w *Waits) Total(now time.Time) time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	t := w.total
	if w.n > 0 {
		t += now.Sub(w.since)
	}
	return t
}

// WaitFor sleeps d (or until ctx ends) and counts it in ctx's Waits: a
// probe waiting for its second of the clock minute, or for the minute the
// timetable gives it, waits its turn like a request the plan holds.
func WaitFor(ctx context.Context, d time.Duration) error {
	w := waitsOf(ctx)
	w.begin()
	defer func() { w.end() }()
	return sleep(ctx, d)
}
