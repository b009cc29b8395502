package faultproof_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/touchstone-harness/touchstone/fixtures/sandbox"
	"github.com/touchstone-harness/touchstone/internal/check"
)

// passesAgainstEmptyObject are the only checks a server answering {} to
// everything may pass, each because its rule is genuinely satisfied by a
// 200 with no headers of note.
var passesAgainstEmptyObject = map[string]string{
	"headers/no-deprecation-headers":                 "no Deprecation or Sunset header is sent",
	"otherpaths/read-paths":                          "the read paths answer 200 to a key holding onboarding:read",
	"otherpaths/v2-writes-exist":                     "the v2 write routes exist (not 404)",
	"auth/read-only-key-reads-allowed":               "a read-only key's reads are answered 200",
	"auth/bearer-scheme-case-insensitive":            "a lower-case bearer scheme is accepted",
	"auth/cors-other-origin-request-no-allow-origin": "no Access-Control-Allow-Origin is sent to another origin",
}

// TestEmptyObjectServer runs every check of the default selection against
// a server answering 200 {} (application/json) to everything, its control
// API included (so its clock reads as real and failed-auth pacing is
// live). The run must end bounded, with no harness panic, and no check may
// pass unless its rule is genuinely satisfied by {} (listed above). Before
// failed-auth reservations were given back when the target refused
// nothing, this run waited a wall-clock minute per window of reservations
// and was cut at 600 s.
func TestEmptyObjectServer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte("{}"))
	}))
	defer srv.Close()
	p := sandbox.New(sandbox.Config{Seed: 1}).Profile(srv.URL)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	tgt, err := check.NewTarget(ctx, p, false)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	counts := map[check.Status]int{}
	var passed []string
	for _, c := range check.All() {
		if c.HasLabel(check.Slow) || c.Budget != nil {
			continue // the real-time forms and the rate-limit probes wait for their seconds of the clock minute by design
		}
		t0, w0 := time.Now(), tgt.Plan().Stats().Waited
		r := check.Run(ctx, tgt, c)
		// Waits for a fresh rate-limit window are the plan keeping the
		// run inside the documented budgets (the {} server answers fast
		// enough for the run to reach the tenant ceiling): bounded, and
		// not the check's.
		if d := time.Since(t0) - (tgt.Plan().Stats().Waited - w0); d > 10*time.Second {
			t.Errorf("%s took %s against {} besides the plan's waits (unbounded loop or wait?)", c.ID, d.Round(time.Millisecond))
		}
		counts[r.Status]++
		if r.Status == check.Error && strings.Contains(r.Error, "panic") {
			t.Errorf("%s: %s", c.ID, r.Error)
		}
		if r.Status == check.Passed {
			passed = append(passed, c.ID)
			if _, ok := passesAgainstEmptyObject[c.ID]; !ok {
				t.Errorf("%s passes against a server answering {} to everything", c.ID)
			}
		}
	}
	sort.Strings(passed)
	st := tgt.Plan().Stats()
	elapsed := time.Since(start) - st.Waited
	t.Logf("against {}: %v in %s besides the plan's waits (%s); passed: %v", counts, elapsed.Round(time.Millisecond), st, passed)
	if elapsed > 45*time.Second {
		t.Errorf("the run against {} took %s, want well under a minute", elapsed.Round(time.Second))
	}
	if len(passed) > len(passesAgainstEmptyObject) {
		t.Errorf("%d checks pass against {}, want at most %d", len(passed), len(passesAgainstEmptyObject))
	}
	if counts[check.Failed] == 0 {
		t.Errorf("no check failed against {}")
	}
}
