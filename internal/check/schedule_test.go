package check

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The pool runs checks side by side, an alone check by itself, never two
// of one serial group at once, and hands results out in the checks'
// order whatever order they finish in.
func TestScheduleKeepsItsPromises(t *testing.T) {
	tgt := wrongServer(t)
	var running, groupRunning atomic.Int32
	var peak atomic.Int32
	var mu sync.Mutex
	var violations []string
	note := func(format string, args ...any) {
		mu.Lock()
		violations = append(violations, fmt.Sprintf(format, args...))
		mu.Unlock()
	}
	var cs []*Check
	for i := 0; i < 24; i++ {
		c := &Check{ID: fmt.Sprintf("demo/c%02d", i), Title: "t", Rules: []string{"X-001"}}
		switch {
		case i%8 == 3:
			c.Labels = []string{Alone}
			c.Run = func(*T) {
				if n := running.Add(1); n != 1 {
					note("%s ran beside %d others", c.ID, n-1)
				}
				time.Sleep(5 * time.Millisecond)
				running.Add(-1)
			}
		case i%4 == 1:
			c.SerialGroup = "fiat balances"
			c.Run = func(*T) {
				running.Add(1)
				if groupRunning.Add(1) != 1 {
					note("%s overlapped another of its group", c.ID)
				}
				time.Sleep(3 * time.Millisecond)
				groupRunning.Add(-1)
				running.Add(-1)
			}
		default:
			c.Run = func(*T) {
				n := running.Add(1)
				for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
				}
				time.Sleep(time.Duration(24-len(c.ID)%7) * time.Millisecond)
				running.Add(-1)
			}
		}
		cs = append(cs, c)
	}
	s := NewSchedule(tgt, cs, 6)
	var order []string
	s.OnResult = func(r *Result) { order = append(order, r.ID) }
	s.Start(context.Background())
	s.Wait()
	for _, v := range violations {
		t.Error(v)
	}
	for i, c := range cs {
		if i >= len(order) || order[i] != c.ID {
			t.Fatalf("results out of order: %v", order)
		}
	}
	if peak.Load() < 2 {
		t.Errorf("never more than %d checks at once with 6 workers", peak.Load())
	}
}
