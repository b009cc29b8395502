package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/touchstone-harness/touchstone/fixtures/sandbox"
)

// TestFaultModesAreListedAndRefusedInOneLine: `faults --list` names every
// fault mode, one line each; an unknown mode is refused in one short line
// that points at the list (and names near modes); and a run or replay
// refused for bad input leaves no --out directory behind.
func TestFaultModesAreListedAndRefusedInOneLine(t *testing.T) {
	out, stderr, code := touchstone(t, "faults", "--list")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	n := len(sandbox.Faults())
	if code != exitOK || len(lines) != n+2 || !strings.HasPrefix(lines[len(lines)-1], strconv.Itoa(n)+" fault modes") {
		t.Fatalf("faults --list: exit %d, %d lines for %d modes, last %q; stderr %q", code, len(lines), n, lines[len(lines)-1], stderr)
	}
	for _, f := range sandbox.Faults() {
		if !strings.Contains(out, f.Name+" ") || !strings.Contains(out, f.Description) {
			t.Errorf("faults --list does not name %s with its description", f.Name)
			break
		}
	}
	dir := t.TempDir()
	bad := writeProfile(t, map[string]any{"base_url": "nope"})
	for _, args := range [][]string{
		{"run", "--fault", "bogus", "--out", filepath.Join(dir, "a")},
		{"run", "--fault", "webhook-secret", "--out", filepath.Join(dir, "b")},
		{"run", "--target", bad, "--out", filepath.Join(dir, "c")},
		{"sandbox", "--fault", "bogus"},
		{"faults", "--fault", "bogus"},
	} {
		line := oneLineError(t, exitUsage, args...)
		if len(line) > 300 || (strings.Contains(strings.Join(args, " "), "bogus") && !strings.Contains(line, "faults --list")) {
			t.Errorf("%v: %d-character error: %q", args, len(line), line)
		}
	}
	if line := oneLineError(t, exitUsage, "run", "--fault", "webhook-secret", "--out", filepath.Join(dir, "b")); !strings.Contains(line, "webhook-secret-in-get") {
		t.Errorf("no near mode named: %q", line)
	}
	if left, _ := os.ReadDir(dir); len(left) > 0 {
		t.Errorf("refused runs left %d directories in --out's parent: %v", len(left), left)
	}
}
