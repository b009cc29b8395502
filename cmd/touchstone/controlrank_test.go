package main

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestRulesNeedsControlRanksTheCalls: `rules --needs-control` ranks the
// control calls by the rules they unlock, each step adding calls and
// counting more rules, then lists each call with its checks and rules.
func TestRulesNeedsControlRanksTheCalls(t *testing.T) {
	out, _, code := touchstone(t, "rules", "--needs-control", "--area", "payoutbatches")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	_, ranked, ok := strings.Cut(out, "control calls ranked by the rules they unlock")
	if !ok {
		t.Fatalf("no ranking:\n%s", out)
	}
	steps := regexp.MustCompile(`(?m)^  (\d+)\. \+(\S.*?)  (\d+) rules \((\d+) of (\d+)\)`).FindAllStringSubmatch(ranked, -1)
	if len(steps) < 2 || !strings.Contains(steps[0][2], "payoutBatchSubmit") {
		t.Fatalf("ranking steps: %v\n%s", steps, ranked)
	}
	prev := 0
	for _, s := range steps {
		cum, _ := strconv.Atoi(s[4])
		if cum <= prev {
			t.Errorf("step %s does not add rules: %s", s[1], s[0])
		}
		prev = cum
	}
	if !strings.Contains(ranked, "payoutBatchSubmit              POST /payout-batches/{id}/submit (payout-operators)") || !strings.Contains(ranked, "PB-014") {
		t.Errorf("the calls' checks and rules are not listed:\n%s", ranked)
	}
}
