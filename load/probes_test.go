package load_test

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/cmd/touchstone/launch"
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
	load.Configure(o)
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
	load.Configure(load.DefaultOptions())
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
