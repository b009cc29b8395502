package check

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/touchstone-harness/touchstone/internal/client"
)

func TestRunStopsOnceTheTargetStoppedAnswering(t *testing.T) {
	tgt := wrongServer(t)
	tgt.Profile.BaseURL = "http://127.0.0.1:1" // nothing answers
	calls := 0
	c := &Check{ID: "demo/s", Title: "t", Rules: []string{"X-001"}, Run: func(t *T) {
		calls++
		t.Do(t.Anonymous(), client.Request{Method: "GET", Path: "/"})
	}}
	for i := 0; i < StallLimit+3; i++ {
		res := Run(context.Background(), tgt, c)
		if res.Status != Error {
			t.Fatalf("run %d: status %s", i, res.Status)
		}
		if i >= StallLimit && (!res.NotRun || !strings.Contains(res.Error, "stopped answering")) {
			t.Fatalf("run %d after %d transport failures: not_run=%v error %q", i, StallLimit, res.NotRun, res.Error)
		}
	}
	if calls != StallLimit {
		t.Errorf("the check ran %d times, want %d then no more", calls, StallLimit)
	}
	if Stopped(tgt) == "" {
		t.Error("Stopped does not say why")
	}
}

func TestCheckDeadlineEndsAStalledCheck(t *testing.T) {
	c := &Check{ID: "demo/slow", Title: "t", Rules: []string{"X-001"}, Run: func(t *T) {
		<-t.Context().Done()
		t.NoVerdict(t.Context().Err())
	}}
	start := time.Now()
	tgt := wrongServer(t)
	tgt.Bounds.Check = 200 * time.Millisecond
	res := Run(context.Background(), tgt, c)
	if res.Status != Error || time.Since(start) > 5*time.Second {
		t.Fatalf("status %s after %s", res.Status, time.Since(start))
	}
}

// A check's deadline counts its own time, not its waits for the traffic
// plan: a real-clock run's failed-auth checks wait whole windows for
// their turn and were cut off at 3 minutes (then read as a stalled
// target).
func TestDeadlineLeavesOutThePlansWaits(t *testing.T) {
	tgt := wrongServer(t)
	tgt.Bounds.Check = 300 * time.Millisecond
	tgt.Plan().Sleep = func(context.Context, time.Duration) error { time.Sleep(time.Second); return nil }
	c := &Check{ID: "demo/waits", Title: "t", Rules: []string{"X-001"}, Run: func(t *T) {
		if err := t.Target().Plan().NextWindow(t.Context(), "a fresh window"); err != nil {
			t.NoVerdict(err)
		}
		if err := t.Context().Err(); err != nil {
			t.NoVerdict(err)
		}
	}}
	if res := Run(context.Background(), tgt, c); res.Status != Passed {
		t.Fatalf("status %s (%s): the wait for a window counted against the check's deadline", res.Status, res.Error)
	}
}
