package check

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/touchstone-harness/touchstone/internal/authpace"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/profile"
	"github.com/touchstone-harness/touchstone/internal/redact"
)

// TestLanePacksFailedAuthIntoWindows: on a (fake) real clock, the lane
// runs the checks that cause failed authentications packed into the IP's
// windows — never more than the budget in one window, and no more windows
// than first-fit packing needs — while the caller goes on; each result is
// handed over by id.
func TestLanePacksFailedAuthIntoWindows(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 1, 1, 10, 0, 5, 0, time.UTC)
	perWindow := map[time.Time]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		perWindow[now.Truncate(time.Minute)]++
		mu.Unlock()
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(401)
		w.Write([]byte(`{"code":"api_key_authentication_failed"}`))
	}))
	defer srv.Close()
	p := &profile.Profile{BaseURL: srv.URL}
	tgt := &Target{Profile: p, HTTP: srv.Client(), Redactor: redact.New()}
	tgt.paceOnce.Do(func() {
		tgt.pacer = authpace.New(nil)
		tgt.pacer.Now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
		tgt.pacer.Sleep = func(_ context.Context, d time.Duration) error { mu.Lock(); now = now.Add(d); mu.Unlock(); return nil }
	})
	var cs []*Check
	for i, n := range []int{12, 12, 8, 8, 5, 15} {
		n := n
		cs = append(cs, &Check{ID: "demo/c" + string(rune('a'+i)), Title: "t", Rules: []string{"AUTH-001"}, FailedAuth: n, Run: func(t *T) {
			for j := 0; j < n; j++ {
				t.Do(t.Anonymous(), client.Request{Method: "GET", Path: "/me"})
			}
		}})
	}
	lane := NewLane(tgt, LaneChecks(cs))
	lane.Start(context.Background())
	for _, c := range cs {
		r := lane.Result(context.Background(), c.ID)
		if r == nil || r.Status != Passed || r.FailedAuth != c.FailedAuth || r.UnreservedAuth != 0 {
			t.Fatalf("%s: %+v", c.ID, r)
		}
	}
	// 60 failures: 3 windows at best (12+8, 12+8, 5+15).
	if len(perWindow) != 3 || tgt.Pacer().Windows() != 2 {
		t.Errorf("failures per window %v (%d waits), want 3 windows of 20", perWindow, tgt.Pacer().Windows())
	}
	for w, n := range perWindow {
		if n > authpace.Budget {
			t.Errorf("window %s took %d failed authentications, budget %d", w.Format("15:04"), n, authpace.Budget)
		}
	}
}

// TestReachabilityProbeSpendsAFailedAuth: the start-up probe sends no key;
// a conformant target counts its 401 against the IP's budget, so the
// pacer must too (a real-clock run once overran its first window by it).
func TestReachabilityProbeSpendsAFailedAuth(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(401) }))
	defer srv.Close()
	tgt := &Target{Profile: &profile.Profile{BaseURL: srv.URL}, HTTP: srv.Client(), Redactor: redact.New()}
	tgt.paceOnce.Do(func() {
		tgt.pacer = authpace.New(nil)
		tgt.pacer.Now = func() time.Time { return time.Date(2026, 1, 1, 10, 0, 5, 0, time.UTC) }
	})
	if err := tgt.Reachable(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := tgt.Pacer().Total(); n != 1 || tgt.Pacer().Available() != authpace.Budget-1 {
		t.Errorf("after the probe: %d failed authentications counted, %d available; want 1 and %d", n, tgt.Pacer().Available(), authpace.Budget-1)
	}
}
