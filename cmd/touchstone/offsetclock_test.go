package main

import (
	"bufio"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/touchstone-harness/touchstone/internal/check"
)

// offsetFocus is a selection that spends every kind of budget across
// several of the target's clock minutes: failed authentications for about
// four windows (keyless and scope refusals, the check-order and header
// checks), route probes and a probe of the tenant's whole minute.
const offsetFocus = `^(checkorder|headers)/|^ratelimit/(tenant-aggregate-6000|route-budget-600)$|` +
	`^auth/(keyless-refused-(accounts|fees|exchange)|route-scopes-(accounts|fees|exchange|webhooks))$`

// accessLine is one line of the sandbox's access log: the time the request
// arrived (this machine's clock), its status and its case.
var accessLine = regexp.MustCompile(`^(\S+) \S+ ".*" (\d{3}) \d+ \S+ "(.*)"$`)

// TestBudgetsHoldInEveryMinuteOfAnOffsetTarget: against a real-clock
// sandbox whose clock minute starts at a random offset from this
// machine's (--clock-offset), a run's traffic stays inside the three
// documented budgets in every one of the target's clock minutes. The
// target decides with its own clock: a request over a budget is answered
// 429, so every 429 in its access log must be one a check probing that
// budget asked for (Check.ProbesBudget), and the run must pass with no
// 429 waited out (the closing traffic line). The refusals at the key step
// in each of the target's minutes (401s and 403s, placed by arrival time
// plus the offset) are logged.
//
// It waits on real clock minutes (about 5): it runs with
// TOUCHSTONE_SLOW=1, as the integrator path does.
func TestBudgetsHoldInEveryMinuteOfAnOffsetTarget(t *testing.T) {
	if os.Getenv("TOUCHSTONE_SLOW") != "1" {
		t.Skip("waits on real clock minutes (about 5): runs with TOUCHSTONE_SLOW=1")
	}
	// Anywhere in the minute, either side of ours; a whole second is
	// the least a Date header shows, so the fraction is drawn too.
	offset := time.Duration(rand.Int64N(int64(2*time.Minute))) - time.Minute
	if s := os.Getenv("TOUCHSTONE_OFFSET"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil {
			t.Fatal(err)
		}
		offset = d
	}
	t.Logf("the target's clock is ours %+v (TOUCHSTONE_OFFSET=%s reruns it)", offset, offset)
	logPath := filepath.Join(t.TempDir(), "access.log")
	p, _, _ := serveSandbox(t, "--clock", "real", "--clock-offset", offset.String(), "--latency", "30ms", "--jitter", "5ms",
		"--no-control", "--access-log", logPath)
	out := t.TempDir()
	stdout, stderr, code := touchstone(t, "run", "--target", writeProfile(t, p), "--focus", offsetFocus, "--out", out)
	if code != exitOK {
		t.Errorf("run: exit %d\n%s\n%s", code, tail(stdout), stderr)
	}
	if i := strings.Index(stdout, "traffic: "); i < 0 {
		t.Errorf("no closing traffic line:\n%s", tail(stdout))
	} else {
		line, _, _ := strings.Cut(stdout[i:], "\n")
		t.Log(line)
		if strings.Contains(line, "429s waited out") {
			t.Errorf("the plan met 429s it had not asked for: %s", line)
		}
	}
	var res struct {
		Counts map[string]int `json:"counts"`
	}
	if raw, err := os.ReadFile(filepath.Join(out, "results.json")); err != nil || json.Unmarshal(raw, &res) != nil {
		t.Fatalf("results.json: %v", err)
	}
	if res.Counts["failed"] != 0 || res.Counts["no_verdict"] != 0 || res.Counts["passed"] == 0 {
		t.Errorf("counts %v, want checks passed, none failed, none without a verdict", res.Counts)
	}

	f, err := os.Open(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	failedAuth := map[time.Time]int{}
	requests := map[time.Time]int{}
	unasked := map[string]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		m := accessLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		at, err := time.Parse(time.RFC3339Nano, m[1])
		if err != nil {
			continue
		}
		minute := at.Add(offset).Truncate(time.Minute)
		status, _ := strconv.Atoi(m[2])
		requests[minute]++
		if status == 401 || status == 403 {
			failedAuth[minute]++
		}
		if status != 429 {
			continue
		}
		id, _, _ := strings.Cut(m[3], "#")
		if c := check.Get(id); c == nil || !c.ProbesBudget() {
			unasked[id]++
			t.Logf("429 not asked for, in the target's minute %s: %s", minute.Format("15:04:05"), sc.Text())
		}
	}
	for id, n := range unasked {
		t.Errorf("%d answers 429 to %q, which probes no budget: the run overdrew a budget in one of the target's minutes", n, id)
	}
	minutes := make([]time.Time, 0, len(requests))
	for m := range requests {
		minutes = append(minutes, m)
	}
	slices.SortFunc(minutes, time.Time.Compare)
	for _, minute := range minutes {
		n := requests[minute]
		t.Logf("target minute %s: %d requests, %d of them 401 or 403", minute.Format("15:04"), n, failedAuth[minute])
	}
}
