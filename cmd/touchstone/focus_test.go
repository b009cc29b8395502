package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/suites"
)

// TestFocusAnchorsAtTheID: an anchored --focus chooses by the check's id,
// its spec text or its area, never by the containers a run declares.
func TestFocusAnchorsAtTheID(t *testing.T) {
	filter, err := types.ParseLabelFilter(suites.DefaultLabelFilter)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, c := range check.All() {
		if strings.HasPrefix(c.ID, "auth/") && filter(suites.SpecLabels(c)) {
			want = append(want, c.ID)
		}
	}
	sort.Strings(want)
	if len(want) == 0 {
		t.Fatal("no auth check registered")
	}
	for _, focus := range []string{`^auth/`, `^\[auth/`, `^auth \[`} {
		got := ids(selectedChecks(filter, regexp.MustCompile(focus)))
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("--focus %q chooses %d checks, want the %d auth/ checks", focus, len(got), len(want))
		}
	}
}

// TestAnchoredFocusSameOnRealAndVirtualClock: a real-clock run wraps the
// failed-auth lane's specs in extra containers; an anchored focus still
// runs the same checks there as on the embedded (virtual-clock) sandbox.
func TestAnchoredFocusSameOnRealAndVirtualClock(t *testing.T) {
	want := []string{"auth/me-unbound-key", "auth/no-key", "auth/other-scheme", "auth/tenant-key-list-unfiltered"}
	p, _, _ := serveSandbox(t, "--clock", "real", "--seed", "13")
	real := writeProfile(t, p)
	for _, run := range []struct {
		focus string
		args  []string
	}{
		{`^auth/(no-key|other-scheme|me-unbound-key|tenant-key-list-unfiltered)$`, nil},
		{`^auth/(no-key|other-scheme|me-unbound-key|tenant-key-list-unfiltered)$`, []string{"--target", real}},
		{`^auth \[auth/(no-key|other-scheme|me-unbound-key|tenant-key-list-unfiltered)\]`, []string{"--target", real}},
	} {
		focus, args := run.focus, run.args
		out := t.TempDir()
		stdout, stderr, code := touchstone(t, append(append([]string{"run"}, args...), "--focus", focus, "--out", out)...)
		if code != exitOK {
			t.Fatalf("run %v --focus %q: exit %d\n%s\n%s", args, focus, code, stdout, stderr)
		}
		got := resultIDs(t, filepath.Join(out, "results.json"))
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("run %v --focus %q ran %v, want %v", args, focus, got, want)
		}
	}
}

func ids(cs []*check.Check) []string {
	out := make([]string, 0, len(cs))
	for _, c := range cs {
		out = append(out, c.ID)
	}
	sort.Strings(out)
	return out
}

func resultIDs(t *testing.T, path string) []string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Results []struct {
			ID     string `json:"id"`
			Status string `json:"status"`
		} `json:"results"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range doc.Results {
		if r.Status != "passed" {
			t.Errorf("%s: %s", r.ID, r.Status)
		}
		out = append(out, r.ID)
	}
	sort.Strings(out)
	return out
}
