package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/touchstone-harness/touchstone/fixtures/sandbox"
)

// loadSummary reads a merged summary.json.
func loadSummary(t *testing.T, dir string) map[string]map[string]any {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Probes []map[string]any `json:"probes"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]any{}
	for _, p := range s.Probes {
		out[p["probe"].(string)] = p
	}
	return out
}

func TestLoadReportOffline(t *testing.T) {
	dir := t.TempDir()
	out, stderr, code := touchstone(t, "load", "--probe", "route-budget,latency", "--latency-rate", "50", "--latency-duration", "1s", "--out", dir, "--max-p99", "250ms", "--max-error-rate", "0.1%")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	for _, f := range []string{"route-budget.bin", "route-budget.json", "latency.bin", "latency.json", "summary.json", "load.html"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	html, _ := os.ReadFile(filepath.Join(dir, "load.html"))
	page := string(html)
	if n := strings.Count(page, "<svg"); n != 6 {
		t.Errorf("load.html has %d inline SVG charts, want 6 (three per probe)", n)
	}
	for _, ext := range []string{"<script", "src=", "<link", "@import", "url(http"} {
		if strings.Contains(page, ext) {
			t.Errorf("load.html refers to %q: it must open offline", ext)
		}
	}
	if v := strings.Index(page, "Verdicts"); v < 0 || v > strings.Index(page, "<svg") {
		t.Error("verdicts do not come first")
	}
	s := loadSummary(t, dir)
	if s["route-budget"]["requests"].(float64) != 606 || s["route-budget"]["passed"] != true {
		t.Errorf("route-budget summary: %v requests, passed %v", s["route-budget"]["requests"], s["route-budget"]["passed"])
	}
}

func TestLoadGatesAndMerge(t *testing.T) {
	a, b, merged := t.TempDir(), t.TempDir(), t.TempDir()
	args := []string{"load", "--probe", "latency", "--latency-rate", "50", "--latency-duration", "1s"}
	if out, stderr, code := touchstone(t, append(args, "--out", a)...); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	out, _, code := touchstone(t, append(args, "--out", b, "--max-p99", "1ns")...)
	if code != exitFailed || !strings.Contains(out, "FAIL latency p99") {
		t.Fatalf("--max-p99 1ns: exit %d, want %d with the gate named\n%s", code, exitFailed, out)
	}
	out, stderr, code := touchstone(t, "load", "report", "--out", merged, a, b)
	if code != 0 {
		t.Fatalf("load report: exit %d\n%s\n%s", code, out, stderr)
	}
	ra, rb, rm := loadSummary(t, a)["latency"], loadSummary(t, b)["latency"], loadSummary(t, merged)["latency"]
	if got, want := rm["requests"].(float64), ra["requests"].(float64)+rb["requests"].(float64); got != want {
		t.Errorf("merged requests %v, want %v (sum of the shards)", got, want)
	}
	// A baseline far faster than this run is a regression.
	base := loadSummary(t, a)["latency"]
	lat := base["latency"].(map[string]any)
	lat["p99_ns"] = 1.0
	path := writeProfile(t, map[string]any{"probes": []any{base}})
	out, _, code = touchstone(t, "load", "report", "--out", t.TempDir(), "--baseline", path, a)
	if code != exitFailed || !strings.Contains(out, "p99 vs baseline") {
		t.Fatalf("baseline regression: exit %d\n%s", code, out)
	}
}

func TestLoadRefusals(t *testing.T) {
	run, err := sandbox.StartVirtual(1, "")
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	p := *run.Profile
	p.ControlURL = "" // a target that is not a sandbox
	target := writeProfile(t, p)
	msg := oneLineError(t, exitUsage, "load", "--target", target, "--probe", "tenant-ceiling", "--out", t.TempDir())
	if !strings.Contains(msg, "--allow-disruptive") || !strings.Contains(msg, "dashboard") {
		t.Errorf("disruptive refusal does not say what it blocks: %s", msg)
	}
	live := p
	live.Keys.Tenant = "ts_live_0123456789abcdef.s3cr3t"
	msg = oneLineError(t, exitUsage, "load", "--target", writeProfile(t, live), "--probe", "route-budget", "--out", t.TempDir())
	if !strings.Contains(msg, "live") || strings.Contains(msg, "s3cr3t") {
		t.Errorf("live refusal: %s", msg)
	}
	oneLineError(t, exitUsage, "load", "--probe", "nope")
}
