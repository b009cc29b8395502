package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/touchstone-harness/touchstone/fixtures/sandbox"
	"github.com/touchstone-harness/touchstone/load"
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
	out, stderr, code := touchstone(t, "load", "--probe", "route-budget,latency", "--latency-rate", "50", "--latency-duration", "1s", "--out", dir+"/", "--max-p99", "250ms", "--max-error-rate", "0.1%")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	if want := "report " + filepath.Join(dir, "load.html"); !strings.Contains(out, want) || strings.Contains(out, "//load.html") {
		t.Errorf("--out DIR/: the last line does not name %q\n%s", want, out)
	}
	for _, f := range []string{"route-budget.bin", "route-budget.json", "latency.bin", "latency.json", "summary.json", "load.html"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	html, _ := os.ReadFile(filepath.Join(dir, "load.html"))
	page := string(html)
	if n := strings.Count(page, "<svg"); n != 8 {
		t.Errorf("load.html has %d inline SVG charts, want 8 (four per probe)", n)
	}
	for _, ext := range []string{"<script", "src=", "<link", "@import", "url(http"} {
		if strings.Contains(page, ext) {
			t.Errorf("load.html refers to %q: it must open offline", ext)
		}
	}
	if v := strings.Index(page, "Verdicts"); v < 0 || v > strings.Index(page, "<svg") {
		t.Error("verdicts do not come first")
	}
	// The latency probe's first gate row says what it is, not "rules".
	raw, _ := os.ReadFile(filepath.Join(dir, "summary.json"))
	var all struct {
		Verdicts []load.Verdict `json:"verdicts"`
	}
	if err := json.Unmarshal(raw, &all); err != nil {
		t.Fatal(err)
	}
	for _, v := range all.Verdicts {
		if v.Probe == "latency" && (strings.TrimSpace(v.What) == "rules" || v.What == "") {
			t.Errorf("the latency probe's gate cell reads %q", v.What)
		}
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

// The charts tell a performance engineer, on a virtual clock, what a
// burst did: answers spread over the send time (not one dot at x=0), the
// window boundary where the clock moved, per window and budget the
// answers beside the documented 600, p50/p90/p99 over time, and the tail
// from an HDR histogram; the p99 gate is drawn.
func TestLoadChartsOnAVirtualClock(t *testing.T) {
	dir := t.TempDir()
	out, stderr, code := touchstone(t, "load", "--probe", "route-budget,window-boundary,latency", "--latency-rate", "100", "--latency-duration", "2s", "--max-p99", "250ms", "--out", dir)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	s := loadSummary(t, dir)
	for _, probe := range []string{"route-budget", "window-boundary", "latency"} {
		tl, _ := s[probe]["timeline"].(map[string]any)
		if tl == nil {
			t.Errorf("%s: no timeline in summary.json", probe)
			continue
		}
		if tl["axis"] != "client" {
			t.Errorf("%s: timeline on the %v axis, want this machine's send time (client) on a virtual clock", probe, tl["axis"])
		}
		nonEmpty, withP99 := 0, 0
		for _, sg := range tl["segments"].([]any) {
			for _, b := range sg.(map[string]any)["bins"].([]any) {
				b := b.(map[string]any)
				if b["admitted"].(float64)+b["limited_429"].(float64)+b["other"].(float64) > 0 {
					nonEmpty++
				}
			}
			for _, b := range sg.(map[string]any)["latency_bins"].([]any) {
				if b.(map[string]any)["p99_ns"].(float64) > 0 {
					withP99++
				}
			}
		}
		if nonEmpty < 10 {
			t.Errorf("%s: %d non-empty time bins: the answers are not spread over time", probe, nonEmpty)
		}
		if withP99 < 2 {
			t.Errorf("%s: p99 in %d latency bins, want a line over time", probe, withP99)
		}
		if lim, _ := s[probe]["documented_limits"].([]any); len(lim) == 0 || lim[0].(map[string]any)["value"].(float64) != 600 {
			t.Errorf("%s: documented limits %v, want the 600 per-route budget first", probe, s[probe]["documented_limits"])
		}
		sum, err := load.ReadSummary(filepath.Join(dir, probe+".json"))
		if err != nil {
			t.Fatal(err)
		}
		h, err := sum.Histogram("all")
		if err != nil || h == nil || uint64(h.TotalCount()) != sum.Requests {
			t.Errorf("%s: HDR histogram %v (%v), want one holding all %d answers", probe, h, err, sum.Requests)
		}
	}
	// route-budget: 600 + 5 × 429 in its window, one admitted after the
	// boundary, which the timeline places between them.
	windows := func(probe string) []string {
		var out []string
		for _, w := range s[probe]["windows"].([]any) {
			w := w.(map[string]any)
			out = append(out, fmt.Sprintf("%s %v+%v+%v", w["budget"], w["admitted"], w["limited_429"], w["other"]))
		}
		return out
	}
	if got, want := strings.Join(windows("route-budget"), "; "), "GET P/me · keys.tenant 600+5+0; GET P/me · keys.tenant 1+0+0"; got != want {
		t.Errorf("route-budget windows: %s, want %s", got, want)
	}
	if got, want := strings.Join(windows("window-boundary"), "; "), "GET P/me · keys.umbrella 600+0+0; GET P/me · keys.umbrella 600+1+0"; got != want {
		t.Errorf("window-boundary windows: %s, want %s", got, want)
	}
	if b, _ := s["route-budget"]["timeline"].(map[string]any)["boundaries"].([]any); len(b) != 1 {
		t.Errorf("route-budget timeline boundaries %v, want the one the clock crossed", b)
	}
	html, _ := os.ReadFile(filepath.Join(dir, "load.html"))
	page := string(html)
	if n := strings.Count(page, "<svg"); n != 12 {
		t.Errorf("load.html has %d charts, want 12 (four per probe)", n)
	}
	for _, want := range []string{"answers per second", "429", "clock-minute boundary", "vs the documented limits", "documented: 600 per API key, HTTP method and route template",
		"documented: 6000 tenant-wide ceiling", "p50", "p90", "p99", "tail latency by percentile (HDR histogram)", "--max-p99 250ms", "this machine&#39;s send time", "requested rate (100/s)"} {
		if !strings.Contains(page, want) {
			t.Errorf("load.html lacks %q", want)
		}
	}
}

// The latency probe's gate counts 429s as errors: a target that answers
// every tenth read 429 fails --max-error-rate 0.1%, and the message says
// which answers were errors.
func TestLoadLatencyGateCounts429(t *testing.T) {
	var reads atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Correlation-Id", r.Header.Get("X-Correlation-Id"))
		if strings.HasPrefix(r.URL.Path, "/api/v2/") && reads.Add(1)%10 == 0 {
			w.Header().Set("Content-Type", "application/problem+json")
			w.Header().Set("Retry-After", "30")
			w.WriteHeader(http.StatusTooManyRequests)
			io.WriteString(w, `{"status":429,"code":"rate_limited"}`)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"data":{}}`)
	}))
	defer srv.Close()
	target := writeProfile(t, map[string]any{"name": "every-tenth-read-429", "base_url": srv.URL, "keys": map[string]string{"tenant": "ts_test_fake.notasecret"}})
	out, stderr, code := touchstone(t, "load", "--target", target, "--probe", "latency", "--latency-rate", "50", "--latency-duration", "1s", "--max-error-rate", "0.1%", "--out", t.TempDir())
	if code != exitFailed || !strings.Contains(out, "FAIL latency error rate: error rate 10.000% (5 × 429 of 50 answers)") {
		t.Fatalf("every tenth read 429: exit %d, want %d with the 429s named as errors\n%s\n%s", code, exitFailed, out, stderr)
	}
}

// load report refuses to merge a virtual-clock shard with a real-clock one:
// their time axes and windows mean different things.
func TestLoadReportRefusesMixedClocks(t *testing.T) {
	virtual, real := t.TempDir(), t.TempDir()
	if out, stderr, code := touchstone(t, "load", "--probe", "latency", "--latency-rate", "20", "--latency-duration", "1s", "--out", virtual); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	// The same shard, as a real-clock run would have written it.
	for _, f := range []string{"latency.bin", "latency.json"} {
		b, err := os.ReadFile(filepath.Join(virtual, f))
		if err != nil {
			t.Fatal(err)
		}
		if f == "latency.json" {
			b = bytes.Replace(b, []byte(`"virtual_clock": true`), []byte(`"virtual_clock": false`), 1)
		}
		if err := os.WriteFile(filepath.Join(real, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	msg := oneLineError(t, exitUsage, "load", "report", "--out", t.TempDir(), virtual, real)
	if !strings.Contains(msg, "virtual clock") || !strings.Contains(msg, "real clock") || !strings.Contains(msg, "do not merge") {
		t.Errorf("mixed-clock merge: %s", msg)
	}
}

// The load command's default output directories are not committed by
// accident.
func TestLoadOutputIgnoredByGit(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", ".gitignore"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Fields(string(raw))
	for _, dir := range []string{"/touchstone-load/", "/touchstone-load-merged/", "/load-report/"} {
		if !slices.Contains(lines, dir) {
			t.Errorf(".gitignore lacks %s", dir)
		}
	}
}
