package reports

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/reporters"

	"github.com/touchstone-harness/touchstone/internal/catalogue"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/redact"
)

// TestOneVocabularyInEveryReport: the console, results.json, junit.xml and
// the page count checks and rules alike, each named as such, with the same
// status words; a rule whose only check failed under another rule is
// inconclusive, not "no verdict" (which only a check that reached no
// verdict makes), and a long area name keeps the console's columns.
func TestOneVocabularyInEveryReport(t *testing.T) {
	cat := catalogue.MustLoad()
	r := sampleRun()
	// A webhook check naming two rules fails under the first only.
	r.Results = append(r.Results, &check.Result{ID: "cryptowithdrawals/long-area-name", Area: "cryptowithdrawals", Title: "t", Rules: []string{"WHM-013", "WHM-014"},
		Status: check.Failed, Failures: []check.Failure{{Rule: "WHM-014", Message: "x"}}, CaseID: "c#1", Duration: time.Millisecond})
	doc := NewDocument(r, cat)
	rules := RuleStatuses(doc, cat)
	if got := statusOf(rules, "WHM-013"); got.Status != RuleInconclusive || !strings.Contains(got.Reason, "failed under another rule") {
		t.Errorf("WHM-013, whose only check failed under WHM-014: %s (%s), want %s", got.Status, got.Reason, RuleInconclusive)
	}
	counts := RuleCounts(rules)
	if counts[RuleNoVerdict] != 1 { // IDEM-002: its check reached no verdict
		t.Errorf("%d rules with no verdict, want 1 (one check reached no verdict): %v", counts[RuleNoVerdict], counts)
	}
	ruleLine := RuleCountsLine(counts)
	tally := r.Tally()

	dir := t.TempDir()
	red := redact.New()
	if err := WriteJSON(dir, doc, red); err != nil {
		t.Fatal(err)
	}
	if err := WriteJUnit(dir, doc, red); err != nil {
		t.Fatal(err)
	}
	if err := WriteHTML(dir, doc, cat, red); err != nil {
		t.Fatal(err)
	}
	var console bytes.Buffer
	PrintSummary(&console, doc, cat)

	// Console: checks by area, aligned; rules by status; checks in total.
	con := console.String()
	for _, want := range []string{"checks by area", "rules: " + ruleLine, "checks: 1 passed, 3 failed, 1 skipped, 1 no-verdict", "failed rules (3)"} {
		if !strings.Contains(con, want) {
			t.Errorf("console lacks %q:\n%s", want, con)
		}
	}
	header := regexp.MustCompile(`(?m)^area +passed`).FindString(con)
	row := regexp.MustCompile(`(?m)^cryptowithdrawals +0 `).FindString(con)
	if header == "" || row == "" || len(header) != len(row)-1 {
		t.Errorf("the console's columns do not line up on a long area name:\n%s", con)
	}

	// results.json: the same check counts and the same rule counts.
	raw, _ := os.ReadFile(filepath.Join(dir, "results.json"))
	var j struct {
		Counts     Counts         `json:"counts"`
		RuleCounts map[string]int `json:"rule_counts"`
	}
	if err := json.Unmarshal(raw, &j); err != nil {
		t.Fatal(err)
	}
	if j.Counts != tally.Total || fmt.Sprint(j.RuleCounts) != fmt.Sprint(counts) {
		t.Errorf("results.json counts %+v rule_counts %v, want %+v and %v", j.Counts, j.RuleCounts, tally.Total, counts)
	}

	// junit.xml: statuses in the same words, rule ids as properties, the
	// counts as the run's properties.
	xraw, _ := os.ReadFile(filepath.Join(dir, "junit.xml"))
	var junit reporters.JUnitTestSuites
	if err := xml.Unmarshal(xraw, &junit); err != nil {
		t.Fatal(err)
	}
	props := map[string]string{}
	statuses := map[string]string{}
	var caseRules []string
	for _, s := range junit.TestSuites {
		for _, p := range s.Properties.Properties {
			props[p.Name] = p.Value
		}
		for _, tc := range s.TestCases {
			statuses[tc.Name] = tc.Status
			if strings.Contains(tc.Name, "long-area-name") && tc.Properties != nil {
				for _, p := range tc.Properties.Properties {
					caseRules = append(caseRules, p.Name+"="+p.Value)
				}
			}
		}
	}
	if statuses["[ids/d] ids/d"] != "no-verdict" {
		t.Errorf("junit status of a check with no verdict: %q", statuses["[ids/d] ids/d"])
	}
	if got := strings.Join(caseRules, " "); !strings.Contains(got, "rule=WHM-013 rule=WHM-014") || !strings.Contains(got, "failed_rule=WHM-014") {
		t.Errorf("junit test case properties: %s", got)
	}
	for st, n := range counts {
		if props["rules_"+strings.ReplaceAll(st, "-", "_")] != fmt.Sprint(n) {
			t.Errorf("junit property rules_%s = %q, want %d", st, props["rules_"+st], n)
		}
	}
	if props["checks_failed"] != "3" || props["checks_no_verdict"] != "1" {
		t.Errorf("junit check counts: %v", props)
	}

	// The page: the same headline counts, the same tables, the legend.
	page, _ := os.ReadFile(filepath.Join(dir, "report.html"))
	p := string(page)
	for _, want := range []string{"3 checks failed, 3 rules failed", "Checks by area", "Rules by area", ruleLine, "<dt class=\"s-inconclusive\">inconclusive</dt>",
		`<td>cryptowithdrawals</td><td class="num">0</td><td class="num s-failed">1</td>`} {
		if !strings.Contains(p, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

// TestPageSaysWhenNothingWasSkipped: no table with a "none" row when no
// check was skipped, a sentence instead.
func TestPageSaysWhenNothingWasSkipped(t *testing.T) {
	cat := catalogue.MustLoad()
	r := sampleRun()
	var kept []*check.Result
	for _, res := range r.Results {
		if res.Status != check.Skipped {
			kept = append(kept, res)
		}
	}
	r.Results = kept
	page, err := RenderHTML(t.TempDir(), NewDocument(r, cat), cat)
	if err != nil {
		t.Fatal(err)
	}
	skips := regexp.MustCompile(`(?s)<section id="skips">.*?</section>`).FindString(string(page))
	if strings.Contains(skips, ">none<") || !strings.Contains(skips, "No check was skipped.") {
		t.Errorf("the skips section: %s", skips)
	}
}
