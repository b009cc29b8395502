package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

var physicalMinimum = regexp.MustCompile(`physical minimum (\S+)`)

// TestIntegratorPathOnARemoteRealClockSandbox is the README's integrator
// path against the sandbox served as an integrator's is reached: a real
// clock, 30 ms away (± 5 ms), no control API. Three runs back to back,
// then --certify, then verify: every run ends with no check failed and
// none without a verdict (the harness's own traffic of one run must not
// fail the next), within 1.15 × the physical minimum its opening line
// printed + 30 s; the certificate is written and verifies.
//
// It waits on real clock minutes (about 11 a run: the failed-auth budget
// of 20 a minute and the rate-limit probes' windows), about 45 minutes in
// all: it runs with TOUCHSTONE_SLOW=1 (label slow), not in .ci/run.
func TestIntegratorPathOnARemoteRealClockSandbox(t *testing.T) {
	if os.Getenv("TOUCHSTONE_SLOW") != "1" {
		t.Skip("waits on real clock minutes (about 45 minutes): runs with TOUCHSTONE_SLOW=1")
	}
	p, _, _ := serveSandbox(t, "--clock", "real", "--latency", "30ms", "--jitter", "5ms", "--no-control")
	path := writeProfile(t, p)
	dir := t.TempDir()
	step := func(name string, args ...string) string {
		t.Helper()
		out := filepath.Join(dir, name)
		start := time.Now()
		stdout, stderr, code := touchstone(t, append([]string{"run", "--target", path, "--out", out}, args...)...)
		took := time.Since(start)
		if code != exitOK {
			t.Fatalf("%s: exit %d\n%s\n%s", name, code, tail(stdout), stderr)
		}
		m := physicalMinimum.FindStringSubmatch(stdout)
		if m == nil {
			t.Fatalf("%s: no physical minimum in the opening line:\n%s", name, tail(stdout))
		}
		min, err := time.ParseDuration(m[1])
		if err != nil {
			t.Fatalf("%s: physical minimum %q: %v", name, m[1], err)
		}
		bound := time.Duration(float64(min)*1.15) + 30*time.Second
		t.Logf("%s: %s (physical minimum %s, bound %s)", name, took.Round(time.Second), min, bound)
		if took > bound {
			t.Errorf("%s took %s, more than 1.15 × its physical minimum %s + 30 s", name, took.Round(time.Second), min)
		}
		var res struct {
			Counts map[string]int `json:"counts"`
		}
		raw, err := os.ReadFile(filepath.Join(out, "results.json"))
		if err != nil || json.Unmarshal(raw, &res) != nil {
			t.Fatalf("%s: results.json: %v", name, err)
		}
		if res.Counts["failed"] != 0 || res.Counts["no_verdict"] != 0 {
			t.Errorf("%s: counts %v, want no failed check and none without a verdict", name, res.Counts)
		}
		return out
	}
	for _, name := range []string{"run1", "run2", "run3"} {
		step(name)
	}
	cert := step("certify", "--certify")
	archive := filepath.Join(cert, "certificate.tar.gz")
	if _, err := os.Stat(archive); err != nil {
		t.Fatalf("no certificate: %v", err)
	}
	if stdout, stderr, code := touchstone(t, "verify", archive, "--key", filepath.Join(cert, "certificate", "public-key.pem")); code != exitOK {
		t.Errorf("verify: exit %d\n%s\n%s", code, stdout, stderr)
	}
	// Without the control API some required rules go unverified: the
	// statement names each, with why.
	raw, err := os.ReadFile(filepath.Join(cert, "certificate", "certificate.json"))
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Statement   string `json:"statement"`
		NotVerified int    `json:"required_rules_not_verifiable_on_target"`
		Rules       []struct {
			ID  string `json:"id"`
			Why string `json:"why"`
		} `json:"required_rules_not_verified"`
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	if c.NotVerified == 0 || len(c.Rules) != c.NotVerified || !strings.Contains(c.Statement, "control API") {
		t.Errorf("certificate: %d required rules not verified, %d named; statement %q", c.NotVerified, len(c.Rules), c.Statement)
	}
	for _, r := range c.Rules {
		if !strings.Contains(c.Statement, r.ID) || r.Why == "" {
			t.Errorf("certificate: rule %s not verified here (%q) is not named in the statement", r.ID, r.Why)
		}
	}
}
