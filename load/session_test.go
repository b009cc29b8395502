package load_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/profile"
	"github.com/touchstone-harness/touchstone/load"
)

func readSummary(t *testing.T, path string) *load.Summary {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var s load.Summary
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return &s
}

// Two runs side by side in one process, each on its own target with its
// own options (as the fault proof runs targets in parallel): each run's
// probes read its options, file their summaries in its session and its
// directory, and amending one run's verdict leaves the other's alone.
// (With process-wide options the last run configured set both: route-budget
// of the run allowed 10,000 requests met the other's --max-requests 100.)
func TestSessionsOfTwoRunsAreTheirOwn(t *testing.T) {
	tgtA, tgtB := startSandbox(t, ""), startSandbox(t, "")
	dirA, dirB := t.TempDir(), t.TempDir()
	oA, oB := load.DefaultOptions(), load.DefaultOptions()
	oA.OutDir, oA.LatencyRate, oA.LatencyDuration = dirA, 20, time.Second
	oB.OutDir, oB.LatencyRate, oB.LatencyDuration, oB.MaxRequests = dirB, 40, time.Second, 100
	// Both runs are set up before either probes.
	sA, sB := load.Attach(tgtA, oA), load.Attach(tgtB, oB)
	if sA.Options() != oA || sB.Options() != oB {
		t.Fatalf("options: %+v and %+v, want %+v and %+v", sA.Options(), sB.Options(), oA, oB)
	}

	results := map[*check.Target]map[string]*check.Result{tgtA: {}, tgtB: {}}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, tgt := range []*check.Target{tgtA, tgtB} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, name := range []string{"route-budget", "latency"} {
				r := check.Run(context.Background(), tgt, load.Check(name))
				mu.Lock()
				results[tgt][name] = r
				mu.Unlock()
			}
		}()
	}
	wg.Wait()

	if r := results[tgtA]["route-budget"]; r.Status != check.Passed {
		t.Errorf("route-budget of run A (--max-requests 10000): %s\n%s", r.Status, r.Summary())
	}
	if r := results[tgtB]["route-budget"]; r.Status != check.Error || !strings.Contains(r.Error, "--max-requests is 100") {
		t.Errorf("route-budget of run B (--max-requests 100): %s %q, want no verdict: the burst needs more requests", r.Status, r.Error)
	}
	for _, tgt := range []*check.Target{tgtA, tgtB} {
		if r := results[tgt]["latency"]; r.Status != check.Passed {
			t.Errorf("latency: %s\n%s", r.Status, r.Summary())
		}
	}

	for _, c := range []struct {
		run  string
		sess *load.Session
		dir  string
		rate float64
	}{{"A", sA, dirA, 20}, {"B", sB, dirB, 40}} {
		sums := c.sess.Summaries()
		if s := sums["latency"]; s == nil || s.RequestedRate != c.rate {
			t.Errorf("run %s: latency summary %+v, want its own (requested rate %v)", c.run, s, c.rate)
		}
		if s := sums["route-budget"]; s == nil {
			t.Errorf("run %s: no route-budget summary", c.run)
		}
		if s := readSummary(t, filepath.Join(c.dir, "latency.json")); s.RequestedRate != c.rate {
			t.Errorf("run %s: %s/latency.json has requested rate %v, want %v", c.run, c.dir, s.RequestedRate, c.rate)
		}
	}
	if _, err := os.Stat(filepath.Join(dirB, "route-budget.json")); err != nil {
		t.Errorf("run B's route-budget summary is not in its directory: %v", err)
	}

	verdictA := &check.Result{ID: "load/latency", Status: check.Failed, Failures: []check.Failure{{Rule: "X", Message: "run A's verdict"}}}
	if s := sA.Judged(verdictA); s == nil || s.Outcome != "failed" || len(s.Failures) != 1 || s.Failures[0] != "[X] run A's verdict" {
		t.Fatalf("Judged in run A: %+v", s)
	}
	if s := readSummary(t, filepath.Join(dirA, "latency.json")); s.Outcome != "failed" {
		t.Errorf("run A's latency.json after Judged: outcome %q", s.Outcome)
	}
	if s := sB.Summaries()["latency"]; s.Outcome == "failed" || len(s.Failures) > 0 {
		t.Errorf("run A's verdict reached run B's summary: %q %v", s.Outcome, s.Failures)
	}
	if s := readSummary(t, filepath.Join(dirB, "latency.json")); s.Outcome == "failed" || len(s.Failures) > 0 {
		t.Errorf("run A's verdict rewrote run B's latency.json: %q %v", s.Outcome, s.Failures)
	}
	if s := sB.Judged(&check.Result{ID: "load/access-requests", Status: check.Passed}); s != nil {
		t.Errorf("Judged of a probe run B never ran: %+v", s)
	}
}

// A run estimates its target's real clock for itself: another run's
// estimate, made earlier in the process for the same base URL, is not
// reused (the target behind a URL may be another server with another
// clock by then, here one whose Date runs an hour ahead).
func TestClockEstimateIsTheRunsOwn(t *testing.T) {
	var mu sync.Mutex
	var ahead time.Duration
	polls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		off := ahead
		if r.URL.Path == "/openapi/v1.json" {
			polls++
		}
		mu.Unlock()
		w.Header().Set("Date", time.Now().Add(off).UTC().Format(http.TimeFormat))
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"data":{}}`))
	}))
	defer srv.Close()
	target := func() *check.Target {
		p := &profile.Profile{Name: "real-clock", BaseURL: srv.URL}
		p.Keys.Tenant, p.Keys.Subject = "ts_test_a.notasecret", "ts_test_b.notasecret"
		tgt, err := check.NewTarget(context.Background(), p, false)
		if err != nil {
			t.Fatal(err)
		}
		return tgt
	}
	tgtA, tgtB := target(), target()
	o := load.DefaultOptions()
	o.LatencyRate, o.LatencyDuration = 20, time.Second
	sA, sB := load.Attach(tgtA, o), load.Attach(tgtB, o)

	run := func(tgt *check.Target) int {
		mu.Lock()
		before := polls
		mu.Unlock()
		if r := check.Run(context.Background(), tgt, load.Check("latency")); r.Status != check.Passed {
			t.Fatalf("latency on a real clock: %s\n%s", r.Status, r.Summary())
		}
		mu.Lock()
		defer mu.Unlock()
		return polls - before
	}
	if n := run(tgtA); n < 2 {
		t.Fatalf("run A polled the clock %d times: no estimate", n)
	}
	mu.Lock()
	ahead = time.Hour
	mu.Unlock()
	if n := run(tgtB); n < 2 {
		t.Errorf("run B polled the clock %d times: it took run A's estimate", n)
	}
	near := func(d, want time.Duration) bool { return d > want-2*time.Second && d < want+2*time.Second }
	for _, c := range []struct {
		run  string
		sess *load.Session
		want time.Duration
	}{{"A", sA, 0}, {"B", sB, time.Hour}} {
		s := c.sess.Summaries()["latency"]
		if s == nil {
			t.Errorf("run %s: no latency summary", c.run)
			continue
		}
		if !near(s.ClockOffset, c.want) {
			t.Errorf("run %s's clock offset: %v, want about %v (the server's Date then)", c.run, s.ClockOffset, c.want)
		}
	}
}
