package reports

import (
	"encoding/xml"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/onsi/ginkgo/v2/reporters"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/redact"
)

// WriteJUnit writes junit.xml into dir from the run's results and tally,
// with Ginkgo's JUnit types: one test suite per area, one test case per
// check (status passed, failed, skipped or no-verdict; properties: its case
// id, each rule it names, each rule it failed under and its replay
// command); a failed check is a <failure>, a check with no verdict an
// <error>, a skipped one <skipped>. The counts are the tally's, and the run's
// properties carry the check and rule counts, so the file agrees with
// results.json, the page and the console.
func WriteJUnit(dir string, d *Document, red *redact.Redactor) error {
	r := d.Run
	if red == nil {
		red = redact.New()
	}
	for _, res := range r.Results {
		for _, f := range res.Failures {
			if f.Exchange != nil && f.Exchange.Response != nil {
				learnSecrets(red, f.Exchange.Response.Body)
			}
		}
	}
	t := d.Tally
	byArea := map[string][]*check.Result{}
	for _, res := range r.Results {
		if !res.NotRun {
			byArea[res.Area] = append(byArea[res.Area], res)
		}
	}
	doc := reporters.JUnitTestSuites{Time: r.Duration.Seconds()}
	for _, area := range t.Areas {
		c := t.ByArea[area]
		results := byArea[area]
		sort.Slice(results, func(i, j int) bool { return results[i].ID < results[j].ID })
		suite := reporters.JUnitTestSuite{
			Name: area, Package: "touchstone/" + area, Timestamp: r.Started.Format("2006-01-02T15:04:05"),
			Tests: len(results), Failures: c.Failed, Errors: c.Error, Skipped: c.Skipped,
		}
		for _, res := range results {
			tc := reporters.JUnitTestCase{Name: "[" + res.ID + "] " + res.Title, Classname: area, Status: CheckStatus(res.Status), Time: res.Duration.Seconds(),
				Properties: &reporters.JUnitProperties{}}
			prop := func(name, value string) {
				tc.Properties.Properties = append(tc.Properties.Properties, reporters.JUnitProperty{Name: name, Value: value})
			}
			prop("case_id", res.CaseID)
			for _, id := range res.Rules {
				prop("rule", id)
			}
			switch res.Status {
			case check.Failed:
				tc.Failure = &reporters.JUnitFailure{Message: "failed rules " + joinRules(res.FailedRules()), Type: "failed", Description: FailureText(res)}
				for _, id := range res.FailedRules() {
					prop("failed_rule", id)
				}
				prop("replay", ReplayCommand("results.json", res.CaseID, r.Seeds.Sandbox == 0))
			case check.Error:
				tc.Error = &reporters.JUnitError{Message: "no verdict", Type: "no-verdict", Description: FailureText(res)}
			case check.Skipped:
				tc.Skipped = &reporters.JUnitSkipped{Message: "skipped - " + res.SkipReason}
			}
			tc.SystemErr = evidenceText(res)
			suite.Time += res.Duration.Seconds()
			suite.TestCases = append(suite.TestCases, tc)
		}
		doc.TestSuites = append(doc.TestSuites, suite)
		doc.Tests += suite.Tests
		doc.Failures += suite.Failures
		doc.Errors += suite.Errors
		doc.Disabled += suite.Skipped
	}
	props := reporters.JUnitTestSuite{Name: "touchstone run", Package: "touchstone", Properties: reporters.JUnitProperties{Properties: []reporters.JUnitProperty{
		{Name: "target", Value: r.Target},
		{Name: "label_filter", Value: r.LabelFilter},
		{Name: "focus", Value: r.Focus},
		{Name: "selected", Value: strconv.Itoa(t.Selected)},
		{Name: "not_run", Value: strconv.Itoa(t.NotRun)},
		{Name: "interrupted", Value: strconv.FormatBool(r.Interrupted)},
		{Name: "stopped", Value: r.Stopped},
		{Name: "checks_passed", Value: strconv.Itoa(t.Total.Passed)},
		{Name: "checks_failed", Value: strconv.Itoa(t.Total.Failed)},
		{Name: "checks_skipped", Value: strconv.Itoa(t.Total.Skipped)},
		{Name: "checks_no_verdict", Value: strconv.Itoa(t.Total.Error)},
	}}}
	// The catalogue's rules by status, as the console and the page count
	// them (rules_failed, rules_inconclusive, ...).
	counts := d.RuleCounts
	for _, st := range RuleStatusOrder {
		props.Properties.Properties = append(props.Properties.Properties,
			reporters.JUnitProperty{Name: "rules_" + strings.ReplaceAll(st, "-", "_"), Value: strconv.Itoa(counts[st])})
	}
	doc.TestSuites = append(doc.TestSuites, props)
	// Masked before XML escapes it (see Masked).
	red.Value(&doc)
	raw, err := xml.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	return writeRedacted(filepath.Join(dir, "junit.xml"), append([]byte(xml.Header), raw...), red)
}

func joinRules(ids []string) string {
	out := ""
	for i, id := range ids {
		if i > 0 {
			out += ", "
		}
		out += id
	}
	return out
}

// evidenceText is the transcript of each failure's exchange (redacted with
// the rest of the file).
func evidenceText(res *check.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "case id %s\n", res.CaseID)
	for _, f := range res.Failures {
		if f.Exchange != nil {
			fmt.Fprintf(&b, "[%s]\n%s\n", f.Rule, f.Exchange.Transcript())
		}
	}
	return b.String()
}
