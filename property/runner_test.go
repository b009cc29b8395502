package property

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/profile"
)

// TestStableBlanksWhatDiffersBetweenRuns: two runs of one case differ only
// in fresh ids, keys, times and secrets; rapid sees one message for both
// (it shrinks only failures whose messages are equal), and keeps statuses
// and counts.
func TestStableBlanksWhatDiffersBetweenRuns(t *testing.T) {
	a := stable(`WHM-027: registering with 10 endpoints enabled answered 201 {"subscriptionId":"5c1e0b7e-7d1a-4f0e-9a55-0d1f2e3a4b5c","url":"https://h/ts-9e440982-0176-4cd9-878e-88f8f8f3da7c","secret":"svc_whsec_Ab+/Cd9+Ef/Gh+Ij/Kl+Mn/Op+Qr/St+Uv/Wx+Yz/01=","secretSha256":"9c96dc1d1faf466a35c2de5dbe2530f2af7e878e2cdbb45c53ef18d343509b4d","updatedAt":"2026-11-08T17:42:01Z"} at 17:42:01.123`)
	b := stable(`WHM-027: registering with 10 endpoints enabled answered 201 {"subscriptionId":"0b6f4c7e-9a51-4f0e-8a8e-3a1f5d2c9e10","url":"https://h/ts-5d0b1c2e-7f4a-4e63-9d2b-1c8e6f0a3b47","secret":"svc_whsec_Zz+/Yy9+Xx/Ww+Vv/Uu+Tt/Ss+Rr/Qq+Pp/Oo+Nn/02=","secretSha256":"ae858931f67887e8150d6f96c9fe03062c1df36b4464c4ddc8e002c084d5d198","updatedAt":"2026-11-08T17:43:59.5Z"} at 17:43:59.000`)
	if a != b {
		t.Errorf("two runs of one case give two messages:\n%s\n%s", a, b)
	}
	for _, keep := range []string{"WHM-027", "10 endpoints", "answered 201"} {
		if !strings.Contains(a, keep) {
			t.Errorf("stable dropped %q: %s", keep, a)
		}
	}
}

// A check's own signal inside a property (no verdict: its deadline, a
// target that stopped answering) reaches the check as such, not as a
// property failure rapid shrinks.
func TestNoVerdictInsideAPropertyIsNoFailure(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("{}")) }))
	defer srv.Close()
	tgt := &check.Target{Profile: &profile.Profile{BaseURL: srv.URL}, HTTP: srv.Client()}
	c := &check.Check{ID: "property/demo-no-verdict", Title: "t", Rules: []string{"X-001"}, Run: func(t *check.T) {
		run(t, "property/demo-no-verdict", []string{"X-001"}, func(rt *rapid.T) {
			t.NoVerdict(errors.New("the target stopped answering"))
		})
	}}
	res := check.Run(context.Background(), tgt, c)
	if res.Status != check.Error || len(res.Failures) != 0 {
		t.Fatalf("status %s, failures %v: a no-verdict inside a property must stay a no-verdict", res.Status, res.Failures)
	}
}

// TestNoShrinkingStopsAtTheFirstFailure: in a process that asked for
// verdicts only (the fault proof, these tests: TestMain), a failing
// property of many draws runs its failing case and rapid's replays of it,
// not a shrinker's sweep. (Shrink candidates that returned at once made
// rapid's shrinker, which caches every candidate, sweep all its passes:
// 20 GB in 20 s in the fault proof.)
func TestNoShrinkingStopsAtTheFirstFailure(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("{}")) }))
	defer srv.Close()
	tgt := &check.Target{Profile: &profile.Profile{BaseURL: srv.URL}, HTTP: srv.Client()}
	var calls, afterFailure int
	failed := false
	c := &check.Check{ID: "property/demo-long-failure", Title: "t", Rules: []string{"X-001"}, Run: func(t *check.T) {
		run(t, "property/demo-long-failure", []string{"X-001"}, func(rt *rapid.T) {
			calls++
			if failed {
				afterFailure++
			}
			draws := rapid.SliceOfN(rapid.IntRange(0, 1000), 500, 500).Draw(rt, "draws")
			if calls >= 3 && draws[0] >= 0 {
				failed = true
				rt.Fatalf("X-001: always fails from the third case")
			}
		})
	}}
	res := check.Run(context.Background(), tgt, c)
	if res.Status != check.Failed {
		t.Fatalf("status %s, want failed", res.Status)
	}
	// rapid replays a failure a few times (to confirm it, then to report
	// it); a shrinker runs hundreds of candidates.
	if afterFailure > 5 {
		t.Errorf("the property ran %d times after its failure, want rapid's few replays (no shrinking)", afterFailure)
	}
}
