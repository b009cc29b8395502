package main

import (
	"strings"
	"testing"
)

// TestRulesNeedsControl: `rules --needs-control` lists the checks a target
// without the control API skips, with what only that API does for them,
// the rules others judge only with it, and the rules no check judges there.
func TestRulesNeedsControl(t *testing.T) {
	out, _, code := touchstone(t, "rules", "--needs-control", "--area", "idempotency")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	skipped, rest, _ := strings.Cut(out, "\nchecks that run there")
	for _, want := range []string{"idempotency/expires-after-24h", "a clock moved by a day", "idempotency/500-is-not-replayed", "no API request can cause"} {
		if !strings.Contains(skipped, want) {
			t.Errorf("the skipped checks lack %q:\n%s", want, skipped)
		}
	}
	// Converted: they run on any target.
	for _, id := range []string{"idempotency/in-progress ", "idempotency/concurrent-execute-once"} {
		if strings.Contains(skipped, id) {
			t.Errorf("%s is listed as skipped without the control API:\n%s", id, skipped)
		}
	}
	_, rules, _ := strings.Cut(rest, "\nrules no check judges")
	if !strings.Contains(rules, "IDEM-021") || strings.Contains(rules, "IDEM-012") {
		t.Errorf("want IDEM-021 (only the 24-hour expiry check) and not IDEM-012 among the rules needing the control API:\n%s", rules)
	}
	out, _, _ = touchstone(t, "rules", "--needs-control", "--area", "lifecycle")
	if !strings.Contains(out, "property/customer-lifecycle  not judged there: LIFE-011") {
		t.Errorf("the lifecycle property's control rules are not listed:\n%s", out)
	}
	if out, _, code := touchstone(t, "rules", "--needs-control", "--area", "property"); code != 0 || !strings.Contains(out, "property/payout-batches  not judged there: PB-014") {
		t.Errorf("--area property (a check area): exit %d\n%s", code, out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if !strings.HasPrefix(lines[len(lines)-1], "rules needing the control API: ") {
		t.Errorf("last line %q", lines[len(lines)-1])
	}
}
