package check

import (
	"context"
	"fmt"
	"github.com/touchstone-harness/touchstone/internal/traffic"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
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
	// The wait is three times the deadline, and the check's own work a
	// small part of it: on a loaded machine (a 300 ms deadline was seen
	// spent by scheduling alone) the test still tells the two apart.
	tgt.Bounds.Check = time.Second
	// The plan's clock (the target's) runs ahead of ours: the deadline
	// reads the wall clock, and so must the waits it leaves out (they
	// once read the plan's, and this test failed in the first 10 s of
	// every minute, where wrongServer's clock is ahead).
	tgt.Plan().Now = func() time.Time { return time.Now().Add(10 * time.Second) }
	tgt.Plan().Sleep = func(context.Context, time.Duration) error { time.Sleep(3 * time.Second); return nil }
	tgt.HTTP = &http.Client{Transport: &traffic.Transport{Plan: tgt.Plan(), Next: tgt.HTTP.Transport}}
	c := &Check{ID: "demo/waits", Title: "t", Rules: []string{"X-001"}, Run: func(t *T) {
		// Two failed authentications: the second waits its turn (60/19 s
		// after the first on a real clock).
		for range 2 {
			t.Do(t.Anonymous(), client.Request{Method: http.MethodGet, Path: "/api/v1/partner/me"})
		}
		if err := t.Context().Err(); err != nil {
			t.NoVerdict(err)
		}
	}}
	if res := Run(context.Background(), tgt, c); res.Status != Passed {
		t.Fatalf("status %s (%s): the wait for a window counted against the check's deadline", res.Status, res.Error)
	}
}

// stallingServer answers /ok with 200 {}, drops the connection of
// /refuse (a transport failure at once) and holds every other request
// open, unanswered, until the client gives up.
func stallingServer(t *testing.T) *Target {
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/ok":
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{}`))
		case "/refuse":
			if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
				conn.Close()
			}
		default:
			select {
			case <-r.Context().Done():
			case <-stop:
			}
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(srv.CloseClientConnections)
	t.Cleanup(func() { close(stop) })
	tgt := wrongServer(t)
	tgt.Profile.BaseURL = srv.URL
	return tgt
}

// Once StallLimit checks in a row (in the order they finish, whatever the
// pool's size) ended on a transport failure, the pool stops: a check in
// flight on a request the target never answers, and one waiting for the
// plan's next failed-auth window, end at once, cut short; the checks not
// yet started do not start and are reported as not run, with the reason.
func TestSchedulesPoolStopsWhenTheTargetStops(t *testing.T) {
	tgt := stallingServer(t)
	var started atomic.Int32
	cs := []*Check{
		{ID: "demo/hangs", Title: "t", Rules: []string{"X-001"}, Run: func(t *T) {
			t.Do(t.Anonymous(), client.Request{Method: "GET", Path: "/hang"})
		}},
		{ID: "demo/waits-for-a-window", Title: "t", Rules: []string{"X-001"}, Run: func(t *T) {
			// Its turn in the budgets comes in an hour.
			if err := traffic.WaitFor(t.Context(), time.Hour); err != nil {
				t.NoVerdict(err)
			}
		}},
	}
	for i := 0; i < StallLimit; i++ {
		cs = append(cs, &Check{ID: fmt.Sprintf("demo/refused%d", i), Title: "t", Rules: []string{"X-001"}, Run: func(t *T) {
			t.Do(t.Anonymous(), client.Request{Method: "GET", Path: "/refuse"})
		}})
	}
	// The rest return once the run stopped: the first of them may be in
	// flight by then (a slot freed by the first refusals), no later one.
	for i := 0; i < 12; i++ {
		cs = append(cs, &Check{ID: fmt.Sprintf("demo/later%02d", i), Title: "t", Rules: []string{"X-001"}, Run: func(t *T) {
			started.Add(1)
			for Stopped(t.Target()) == "" && t.Context().Err() == nil {
				time.Sleep(5 * time.Millisecond)
			}
		}})
	}
	s := NewSchedule(tgt, cs, 3)
	begun := time.Now()
	s.Start(context.Background())
	select {
	case <-s.ended:
	case <-time.After(20 * time.Second):
		t.Fatal("the pool did not end within 20 s of the target stopping (a check in flight or waiting for a window kept it)")
	}
	took := time.Since(begun)
	if Stopped(tgt) == "" {
		t.Fatal("the run did not judge the target stopped")
	}
	if took > 5*time.Second {
		t.Errorf("the pool took %s to end after the target stopped", took)
	}
	for _, id := range []string{"demo/hangs", "demo/waits-for-a-window"} {
		r := s.Result(context.Background(), id)
		if r.Status != Error || r.NotRun || !strings.Contains(r.Error, "cut short when the run stopped") {
			t.Errorf("%s: status %s not_run=%v error %q, want no verdict, cut short by the stop", id, r.Status, r.NotRun, r.Error)
		}
	}
	notRun := 0
	for _, c := range cs[2+StallLimit:] {
		r := s.Result(context.Background(), c.ID)
		switch {
		case r.NotRun:
			notRun++
			if r.Status != Error || !strings.Contains(r.Error, "not run: the target stopped answering") {
				t.Errorf("%s: not run, status %s, error %q", c.ID, r.Status, r.Error)
			}
		case r.Status != Error || !strings.Contains(r.Error, "cut short when the run stopped"):
			// It ran into the stop: whatever it concluded, no verdict.
			t.Errorf("%s: status %s (%s), want no verdict, cut short by the stop", c.ID, r.Status, r.Error)
		}
	}
	if n := int(started.Load()); n > 1 || notRun != 12-n {
		t.Errorf("%d later checks started, %d reported not run: want at most one started, the rest not run", n, notRun)
	}
}

// A check that ends on a transport failure among checks that are answered
// does not stop the run: the streak counts checks in a row, in the order
// they finish, and a whole answer ends it.
func TestSchedulesPoolKeepsRunningPastATransportFailure(t *testing.T) {
	tgt := stallingServer(t)
	var cs []*Check
	for i := 0; i < 4*StallLimit; i++ {
		path := "/ok"
		if i%StallLimit != 0 {
			path = "/refuse"
		}
		cs = append(cs, &Check{ID: fmt.Sprintf("demo/c%02d", i), Title: "t", Rules: []string{"X-001"}, Run: func(t *T) {
			t.Do(t.Anonymous(), client.Request{Method: "GET", Path: path})
		}})
	}
	// One at a time, so that the order they finish in is theirs.
	s := NewSchedule(tgt, cs, 1)
	s.Start(context.Background())
	s.Wait()
	if why := Stopped(tgt); why != "" {
		t.Fatalf("the run stopped: %s", why)
	}
	for _, c := range cs {
		if r := s.Result(context.Background(), c.ID); r.NotRun {
			t.Errorf("%s not run: %s", c.ID, r.Error)
		}
	}
}
