package load_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/touchstone-harness/touchstone/cmd/touchstone/allchecks" // registers every check
	"github.com/touchstone-harness/touchstone/cmd/touchstone/launch"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/profile"
	"github.com/touchstone-harness/touchstone/load"
)

func startSandbox(t testing.TB, fault string) *check.Target {
	t.Helper()
	l, err := launch.Start(context.Background(), launch.Options{Seed: 1, Fault: fault})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.Close)
	return l.Target
}

// Every probe passes against the faithful virtual-clock sandbox, and
// writes its vegeta results and summary.
func TestProbesPassOnVirtualSandbox(t *testing.T) {
	tgt := startSandbox(t, "")
	dir := t.TempDir()
	o := load.DefaultOptions()
	o.OutDir = dir
	load.Attach(tgt, o)
	for _, c := range check.All() {
		if c.Area() != "load" || c.HasLabel(check.Slow) {
			continue
		}
		start := time.Now()
		r := check.Run(context.Background(), tgt, c)
		t.Logf("%s: %s in %s %v", c.ID, r.Status, time.Since(start).Round(time.Millisecond), r.Logs)
		if r.Status != check.Passed {
			t.Errorf("%s: %s\n%s", c.ID, r.Status, r.Summary())
		}
		name := c.ID[len("load/"):]
		if _, err := os.Stat(dir + "/" + name + ".bin"); err != nil {
			t.Errorf("%s: %v", c.ID, err)
		}
	}
}

// Each probe fails, under the broken rule, against the sandbox fault that
// breaks what it measures.
func TestProbesCatchRateLimitFaults(t *testing.T) {
	for _, c := range []struct{ fault, check, rule string }{
		{"rate-budget-off-by-ten", "load/route-budget", "RATE-004"},
		{"rate-retry-after-off-by-a-minute", "load/route-budget", "RATE-016"},
		{"rate-x-ratelimit-headers", "load/route-budget", "RATE-002"},
		{"rate-counter-per-path-not-template", "load/template-sharing", "RATE-005"},
		{"rate-methods-share-counter", "load/method-separation", "RATE-006"},
		{"rate-keys-share-counter", "load/key-separation", "RATE-007"},
		{"rate-window-not-clock-aligned", "load/window-boundary", "RATE-008"},
		{"rate-tenant-ceiling-off-by-ten", "load/tenant-ceiling", "RATE-010"},
		{"auth-failure-budget-off-by-ten", "load/failed-auth", "RATE-012"},
		{"auth-failure-budget-counts-successes", "load/failed-auth", "RATE-013"},
		{"rate-access-requests-general-budget", "load/access-requests", "RATE-014"},
	} {
		tgt := startSandbox(t, c.fault)
		r := check.Run(context.Background(), tgt, check.Get(c.check))
		if r.Status != check.Failed || !slices.Contains(r.FailedRules(), c.rule) {
			t.Errorf("%s against fault %s: %s, failed rules %v; want a failure under %s\n%s", c.check, c.fault, r.Status, r.FailedRules(), c.rule, r.Summary())
			continue
		}
		// The failure carries the HTTP exchange it is about: a request of
		// the probe (its key by profile role, never the secret) and the
		// answer that broke the rule.
		for _, f := range r.Failures {
			if f.Rule != c.rule {
				continue
			}
			ex := f.Exchange
			if ex == nil || ex.Response == nil || ex.Request.URL == "" {
				t.Errorf("%s against fault %s: the %s failure carries no HTTP exchange: %+v", c.check, c.fault, c.rule, ex)
				continue
			}
			curl := ex.Curl()
			if !strings.Contains(curl, "${TOUCHSTONE_KEY_") {
				t.Errorf("%s against fault %s: the evidence's curl line names no key role: %s", c.check, c.fault, curl)
			}
			for _, secret := range tgt.Profile.Secrets() {
				if strings.Contains(curl, secret) {
					t.Errorf("%s against fault %s: the evidence's curl line holds a key secret", c.check, c.fault)
				}
			}
		}
	}
}

// budgetLog notes, per probe (the case id each request carries in
// X-Correlation-Id), the rate-limit budgets its requests spend: method,
// route template and the key's public prefix.
type budgetLog struct {
	next http.RoundTripper
	mu   sync.Mutex
	by   map[string]map[string]bool
}

var uuidSegment = regexp.MustCompile(`/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

func (b *budgetLog) RoundTrip(r *http.Request) (*http.Response, error) {
	probe, _, _ := strings.Cut(r.Header.Get("X-Correlation-Id"), "#")
	if probe, ok := strings.CutPrefix(probe, "load/"); ok && !strings.HasPrefix(r.URL.Path, "/_sandbox") {
		prefix, _, _ := strings.Cut(r.Header.Get("X-Api-Key"), ".")
		budget := r.Method + " " + uuidSegment.ReplaceAllString(r.URL.Path, "/{id}") + " " + prefix
		b.mu.Lock()
		if b.by[probe] == nil {
			b.by[probe] = map[string]bool{}
		}
		b.by[probe][budget] = true
		b.mu.Unlock()
	}
	return b.next.RoundTrip(r)
}

// The latency probe spends budgets of its own: no key, method and route
// template that another probe spends (tenant-ceiling aside: it spends the
// whole tenant, and the latency probe waits out its minute), so the probes
// run before it in the same minute leave its budgets untouched and none of
// its answers is a 429 (on a real clock, window-boundary then latency gave
// 40 of 400 answers 429 on the budget GET /me of keys.umbrella).
func TestLatencyProbeHasItsOwnBudgets(t *testing.T) {
	tgt := startSandbox(t, "")
	next := tgt.HTTP.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	log := &budgetLog{next: next, by: map[string]map[string]bool{}}
	tgt.HTTP.Transport = log
	o := load.DefaultOptions()
	o.LatencyRate, o.LatencyDuration = 50, time.Second
	sess := load.Attach(tgt, o)
	checks := []*check.Check{load.Check("latency")}
	for _, c := range check.All() {
		if c.Area() == "load" && !c.HasLabel(check.Slow) {
			checks = append(checks, c)
		}
	}
	for _, c := range checks {
		if r := check.Run(context.Background(), tgt, c); r.Status != check.Passed {
			t.Fatalf("%s: %s\n%s", c.ID, r.Status, r.Summary())
		}
	}
	own := log.by["latency"]
	if len(own) < 10 {
		t.Fatalf("the latency probe spent %d budgets: %v", len(own), own)
	}
	for probe, budgets := range log.by {
		if probe == "latency" || probe == "tenant-ceiling" {
			continue
		}
		for b := range budgets {
			if own[b] {
				t.Errorf("the latency probe shares the budget %q with %s", b, probe)
			}
		}
	}
	if s := sess.Summaries()["latency"]; s == nil || s.Status["429"] != 0 {
		t.Errorf("the latency probe's answers: %v", s)
	}
}

// On a real clock the probes read the traffic plan's estimate from Date,
// made tight by polling the served OpenAPI document without a key (a
// keyless poll of the API is a failed authentication: an estimate spent the
// source IP's 20 a minute), and once per run: the second probe finds it
// tight. A server 5 s ahead is known within 50 ms.
func TestRealClockEstimateSpendsNoFailedAuth(t *testing.T) {
	const skew = 5 * time.Second
	var mu sync.Mutex
	keyless, polls := 0, 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		if r.Header.Get("X-Api-Key") == "" && strings.HasPrefix(r.URL.Path, "/api/") {
			keyless++
		}
		if r.URL.Path == "/openapi/v1.json" {
			polls++
		}
		mu.Unlock()
		w.Header().Set("Date", time.Now().Add(skew).UTC().Format(http.TimeFormat))
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"data":{}}`))
	}))
	defer srv.Close()
	p := &profile.Profile{Name: "real-clock", BaseURL: srv.URL}
	p.Keys.Tenant, p.Keys.Subject = "ts_test_a.notasecret", "ts_test_b.notasecret"
	tgt, err := check.NewTarget(context.Background(), p, false)
	if err != nil {
		t.Fatal(err)
	}
	o := load.DefaultOptions()
	o.LatencyRate, o.LatencyDuration = 20, time.Second
	sess := load.Attach(tgt, o)
	var first int
	for i := range 2 {
		if r := check.Run(context.Background(), tgt, load.Check("latency")); r.Status != check.Passed {
			t.Fatalf("latency on a real clock: %s\n%s", r.Status, r.Summary())
		}
		if off := sess.Summaries()["latency"].ClockOffset; off < skew-50*time.Millisecond || off > skew+50*time.Millisecond {
			t.Errorf("probe %d: clock offset %s, want %s ±50ms", i+1, off, skew)
		}
		mu.Lock()
		if i == 0 {
			first = polls
		} else if polls > first {
			t.Errorf("the second probe polled Date %d times: the clock was estimated again", polls-first)
		}
		mu.Unlock()
	}
	if keyless > 0 {
		t.Errorf("%d API requests without a key: each is a failed authentication", keyless)
	}
}

// TestFailedAuthProbeSpendsTheRunsLedger: the failed authentications a
// probe causes are in the run's ledger once it ends, as a check's are
// (they were not: a real-clock run's next check found the window empty
// and met the target's 429).
func TestFailedAuthProbeSpendsTheRunsLedger(t *testing.T) {
	tgt := startSandbox(t, "")
	before := tgt.Plan().Stats().FailedAuth
	if r := check.Run(context.Background(), tgt, check.Get("load/failed-auth")); r.Status != check.Passed {
		t.Fatalf("load/failed-auth: %s\n%s", r.Status, r.Summary())
	}
	if got := tgt.Plan().Stats().FailedAuth - before; got != 20 {
		t.Errorf("the run's ledger counted %d failed authentications from the probe, want its 20 (401/403; the 21st is 429)", got)
	}
}

// The probes' real clock (check.Clock) is the traffic plan's: a server 5 s
// ahead, polled across ticks of Date, is known within 50 ms, and To waits
// for its seconds.
func TestRealClockReadsThePlan(t *testing.T) {
	const skew = 5 * time.Second
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Date", time.Now().Add(skew).UTC().Format(http.TimeFormat))
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{}`))
	}))
	defer srv.Close()
	p := &profile.Profile{Name: "real-clock", BaseURL: srv.URL}
	p.Keys.Tenant = "ts_test_a.notasecret"
	tgt, err := check.NewTarget(context.Background(), p, false)
	if err != nil {
		t.Fatal(err)
	}
	var off time.Duration
	var want, got time.Time
	var sec float64
	c := &check.Check{ID: "load/real-clock-test", Title: "the real clock", Run: func(ct *check.T) {
		clk := ct.Clock()
		off = clk.Offset()
		now := clk.Now()
		want = now.Truncate(time.Second).Add(1300 * time.Millisecond)
		sec = float64(want.Sub(want.Truncate(time.Minute))) / float64(time.Second)
		if want.Truncate(time.Minute) != now.Truncate(time.Minute) || !want.After(now) {
			ct.Skipf("too close to a minute boundary to test To")
		}
		got = clk.To(sec, false)
	}}
	r := check.Run(context.Background(), tgt, c)
	if d := off - skew; d > 50*time.Millisecond || d < -50*time.Millisecond {
		t.Fatalf("offset %s, want %s ±50ms", off, skew)
	}
	switch r.Status {
	case check.Skipped:
		t.Skip(r.Summary())
	case check.Passed:
	default:
		t.Fatalf("%s\n%s", r.Status, r.Summary())
	}
	if d := got.Sub(want); d < 0 || d > 50*time.Millisecond {
		t.Fatalf("To(%.1f) returned at %s, want %s", sec, got.Format("15:04:05.000"), want.Format("15:04:05.000"))
	}
}
