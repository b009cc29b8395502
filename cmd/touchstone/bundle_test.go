package main

import (
	"archive/tar"
	"compress/gzip"
	"crypto/ed25519"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/touchstone-harness/touchstone/internal/certify"
	"github.com/touchstone-harness/touchstone/internal/redact"
)

// failedRules reads the failed rule ids of a results.json.
func failedRules(t *testing.T, dir string) []string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		FailedRules map[string][]string `json:"failed_rules"`
		Results     []struct {
			ID     string `json:"id"`
			CaseID string `json:"case_id"`
			Status string `json:"status"`
			Replay string `json:"replay"`
		} `json:"results"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	var out []string
	for id := range doc.FailedRules {
		out = append(out, id)
	}
	return out
}

// A faulted run and a faithful one of the same checks: the page shows the
// failure, compare names it, a baseline carries it, replay re-runs it.
func TestReportCompareBaselineReplay(t *testing.T) {
	const fault, focus = "idempotency-replay-not-byte-identical", `\[idempotency/(caller-separation|replay-byte-identical)`
	bad, good := t.TempDir(), t.TempDir()
	if _, _, code := touchstone(t, "run", "--fault", fault, "--focus", focus, "--out", bad); code != exitFailed {
		t.Fatalf("faulted run: exit %d, want 1", code)
	}
	if _, _, code := touchstone(t, "run", "--focus", focus, "--out", good); code != exitOK {
		t.Fatalf("faithful run: exit %d, want 0", code)
	}
	rules := failedRules(t, bad)
	if len(rules) == 0 {
		t.Fatal("the faulted run failed no rule")
	}

	page, err := os.ReadFile(filepath.Join(bad, "report.html"))
	if err != nil || !strings.Contains(string(page), "idempotency/caller-separation") || !strings.Contains(string(page), "not certifiable") {
		t.Fatalf("report.html of the faulted run does not show its failure (err %v)", err)
	}
	os.Remove(filepath.Join(bad, "report.html"))
	if out, _, code := touchstone(t, "report", bad); code != exitOK || !strings.Contains(out, "report.html") {
		t.Fatalf("report DIR: exit %d: %s", code, out)
	}
	again, _ := os.ReadFile(filepath.Join(bad, "report.html"))
	if string(again) != string(page) {
		t.Error("touchstone report re-rendered another page than the run wrote")
	}

	out, _, code := touchstone(t, "report", "--compare", good, bad)
	if code != exitFailed || !strings.Contains(out, "new failure") || !strings.Contains(out, rules[0]) {
		t.Errorf("compare faithful→faulted: exit %d, want 1 naming %s:\n%s", code, rules[0], out)
	}
	out, _, code = touchstone(t, "report", "--compare", bad, good)
	if code != exitOK || !strings.Contains(out, "fixed") {
		t.Errorf("compare faulted→faithful: exit %d, want 0 with fixed:\n%s", code, out)
	}
	oneLineError(t, exitUsage, "report", "--compare", good)
	oneLineError(t, exitUsage, "report", t.TempDir())

	baseline := func(date string, ids ...string) string {
		var entries []map[string]string
		for _, id := range ids {
			entries = append(entries, map[string]string{"rule": id, "reason": "known", "review_by": date})
		}
		return writeProfile(t, map[string]any{"expected_failures": entries})
	}
	if out, _, code := touchstone(t, "run", "--fault", fault, "--focus", focus, "--out", t.TempDir(), "--baseline", baseline("2999-01-01", rules...)); code != exitOK || !strings.Contains(out, "baseline gate: PASSED") {
		t.Errorf("every failure in the baseline: exit %d, want 0\n%s", code, tail(out))
	}
	if out, _, code := touchstone(t, "run", "--fault", fault, "--focus", focus, "--out", t.TempDir(), "--baseline", baseline("2000-01-01", rules...)); code != exitFailed || !strings.Contains(out, "EXPIRED") {
		t.Errorf("expired baseline: exit %d, want 1\n%s", code, tail(out))
	}
	if out, _, code := touchstone(t, "run", "--focus", focus, "--out", t.TempDir(), "--baseline", baseline("2999-01-01", rules...)); code != exitFailed || !strings.Contains(out, "STALE") {
		t.Errorf("baseline entries that now pass: exit %d, want 1\n%s", code, tail(out))
	}
	oneLineError(t, exitUsage, "run", "--baseline", baseline("2999-01-01", "NOT-A-RULE"), "--out", t.TempDir())

	if out, _, code := touchstone(t, "replay", filepath.Join(bad, "results.json"), "idempotency/caller-separation", "--out", t.TempDir()); code != exitFailed || !strings.Contains(out, "still fails") {
		t.Errorf("replay of a failure on the recorded fault: exit %d, want 1\n%s", code, tail(out))
	}
	if out, _, code := touchstone(t, "replay", filepath.Join(good, "results.json"), "idempotency/caller-separation", "--out", t.TempDir()); code != exitOK || !strings.Contains(out, "fixed") {
		t.Errorf("replay on the faithful sandbox: exit %d, want 0\n%s", code, tail(out))
	}
	oneLineError(t, exitUsage, "replay", filepath.Join(good, "results.json"), "no/such-check")
}

// --certify writes a signed bundle that verify accepts, and a one-byte
// change, another key or a narrowed run are refused.
func TestCertifyAndVerify(t *testing.T) {
	oneLineError(t, exitUsage, "run", "--certify", "--focus", "auth")
	oneLineError(t, exitUsage, "run", "--certify", "--label-filter", "auth")
	out := t.TempDir()
	stdout, stderr, code := touchstone(t, "run", "--certify", "--out", out)
	if code != exitOK || !strings.Contains(stdout, "certificate:") {
		t.Fatalf("--certify on the faithful sandbox: exit %d\n%s\n%s", code, tail(stdout), stderr)
	}
	dir, archive := filepath.Join(out, "certificate"), filepath.Join(out, "certificate.tar.gz")
	pub := filepath.Join(dir, certify.PublicKeyFile)
	for _, b := range []string{dir, archive} {
		if so, _, code := touchstone(t, "verify", b, "--key", pub); code != exitOK || !strings.HasPrefix(so, "VALID") {
			t.Errorf("verify %s: exit %d: %s", b, code, so)
		}
	}
	// No secret in any form anywhere in the bundle.
	var everything strings.Builder
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			raw, _ := os.ReadFile(p)
			everything.Write(raw)
		}
		return err
	})
	fh, _ := os.Open(archive)
	gz, _ := gzip.NewReader(fh)
	tr := tar.NewReader(gz)
	for {
		if _, err := tr.Next(); err != nil {
			break
		}
		raw, _ := io.ReadAll(tr)
		everything.Write(raw)
	}
	fh.Close()
	for _, s := range secretsOfSeed(1) {
		for _, f := range redact.Forms(s) {
			if strings.Contains(everything.String(), f) {
				t.Fatalf("the certification bundle holds a key secret (%q)", f)
			}
		}
	}
	// Nor a webhook secret the run's registrations returned, in any form.
	if m := regexp.MustCompile(`whsec_([A-Za-z0-9/=]|\+|&#43;|\\u002[bB]){8}`).FindString(everything.String()); m != "" {
		t.Fatalf("the certification bundle holds a webhook secret (%s…)", m)
	}

	other, _ := certify.NewKey()
	otherPEM, _ := certify.EncodePublicKey(other.Public().(ed25519.PublicKey))
	otherPath := filepath.Join(t.TempDir(), "other.pem")
	os.WriteFile(otherPath, otherPEM, 0o644)
	if so, _, code := touchstone(t, "verify", archive, "--key", otherPath); code != exitFailed || !strings.Contains(so, "not by the given key") {
		t.Errorf("verify with another key: exit %d: %s", code, so)
	}
	results := filepath.Join(dir, "results.json")
	raw, _ := os.ReadFile(results)
	raw[len(raw)/2] ^= 1
	os.WriteFile(results, raw, 0o644)
	if so, _, code := touchstone(t, "verify", dir); code != exitFailed || !strings.Contains(so, "results.json was changed") {
		t.Errorf("verify after a one-byte change: exit %d: %s", code, so)
	}
	oneLineError(t, exitUsage, "verify", filepath.Join(out, "nothing-here"))
}
