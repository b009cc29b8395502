package reports

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/reporters"

	"github.com/touchstone-harness/touchstone/internal/catalogue"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/redact"
)

const secret = "TopSecretPart0123456789"

func sampleRun() *Run {
	key := "svc_sandbox_0123456789abcdef." + secret
	ex := &client.Exchange{KeyName: "tenant", Request: client.RequestRecord{Method: "POST", URL: "http://h/x",
		Header: http.Header{"Authorization": {"Bearer " + key}}, Body: []byte(`{"k":"` + key + `"}`)},
		Response: &client.ResponseRecord{Status: 200, Header: http.Header{}, Body: []byte(`{"echo":"` + secret + `"}`)}}
	res := func(id string, s check.Status, rules []string, failures ...check.Failure) *check.Result {
		area, _, _ := strings.Cut(id, "/")
		return &check.Result{ID: id, Area: area, Title: id, Rules: rules, Status: s, Failures: failures, Duration: time.Millisecond}
	}
	return &Run{Target: "http://h", Started: time.Unix(0, 0).UTC(), Duration: time.Second, LabelFilter: "!slow", Selected: 7, Results: []*check.Result{
		res("auth/a", check.Passed, []string{"AUTH-001", "AUTH-002"}),
		res("auth/b", check.Failed, []string{"AUTH-002"}, check.Failure{Rule: "AUTH-002", Message: "bad", Exchange: ex}, check.Failure{Rule: "AUTH-002", Message: "again", Exchange: ex}),
		res("ids/c", check.Skipped, []string{"IDEM-001"}),
		// A no-verdict check's partial failures are not violated rules.
		res("ids/d", check.Error, []string{"IDEM-002"}, check.Failure{Rule: "IDEM-002", Message: "partial"}),
		res("ids/e", check.Failed, []string{"IDEM-003", "AUTH-002"}, check.Failure{Rule: "IDEM-003", Message: "x"}),
		{ID: "ids/f", Area: "ids", Status: check.Error, NotRun: true, Error: "not run: stopped"},
	}}
}

func TestTallyIsComputedOnceAndRenderedAlike(t *testing.T) {
	r := sampleRun()
	tally := r.Tally()
	want := Counts{Passed: 1, Failed: 2, Skipped: 1, Error: 1}
	if tally.Total != want || tally.Selected != 7 || tally.NotRun != 2 {
		t.Fatalf("tally %+v, selected %d, not run %d", tally.Total, tally.Selected, tally.NotRun)
	}
	if got := fmt.Sprint(tally.FailedRules); got != "map[AUTH-002:[auth/b] IDEM-003:[ids/e]]" {
		t.Errorf("failed rules %s", got)
	}
	if got := fmt.Sprint(tally.Verified); got != "[AUTH-001]" {
		t.Errorf("verified %s", got)
	}

	dir := t.TempDir()
	red := redact.New(secret)
	if err := WriteJSON(dir, NewDocument(r, nil), red); err != nil {
		t.Fatal(err)
	}
	if err := WriteJUnit(dir, NewDocument(r, nil), red); err != nil {
		t.Fatal(err)
	}
	var console bytes.Buffer
	PrintSummary(&console, NewDocument(r, nil), nil)

	raw, _ := os.ReadFile(filepath.Join(dir, "results.json"))
	var doc struct {
		Counts      Counts              `json:"counts"`
		FailedRules map[string][]string `json:"failed_rules"`
		NotRun      int                 `json:"not_run"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Counts != want || doc.NotRun != 2 || fmt.Sprint(doc.FailedRules) != fmt.Sprint(tally.FailedRules) {
		t.Errorf("results.json counts %+v not_run %d failed %v", doc.Counts, doc.NotRun, doc.FailedRules)
	}
	xraw, _ := os.ReadFile(filepath.Join(dir, "junit.xml"))
	var junit reporters.JUnitTestSuites
	if err := xml.Unmarshal(xraw, &junit); err != nil {
		t.Fatal(err)
	}
	if junit.Failures != want.Failed || junit.Errors != want.Error || junit.Disabled != want.Skipped || junit.Tests != 5 {
		t.Errorf("junit tests %d failures %d errors %d skipped %d", junit.Tests, junit.Failures, junit.Errors, junit.Disabled)
	}
	if !strings.Contains(console.String(), "total       1       2       1          1") || !strings.Contains(console.String(), "2 of 7 selected checks not run") {
		t.Errorf("console:\n%s", console.String())
	}
	for name, out := range map[string]string{"results.json": string(raw), "junit.xml": string(xraw), "console": console.String()} {
		if strings.Contains(out, secret) {
			t.Errorf("%s leaks the secret", name)
		}
	}
}

func TestInterruptedRunIsSaid(t *testing.T) {
	r := sampleRun()
	r.Interrupted = true
	var console bytes.Buffer
	PrintSummary(&console, NewDocument(r, nil), nil)
	if !strings.Contains(console.String(), "INTERRUPTED: 2 of 7 selected checks not run") {
		t.Errorf("console:\n%s", console.String())
	}
	dir := t.TempDir()
	WriteJSON(dir, NewDocument(r, nil), redact.New())
	raw, _ := os.ReadFile(filepath.Join(dir, "results.json"))
	if !strings.Contains(string(raw), `"interrupted": true`) {
		t.Error("results.json does not mark the run interrupted")
	}
}

// TestSummaryFitsOneScreen: however many rules fail, the closing summary
// lists a bounded number, one line each, and says how many more there are.
func TestSummaryFitsOneScreen(t *testing.T) {
	r := sampleRun()
	base := r.Results[0]
	for i := 0; i < 300; i++ {
		c := *base
		c.ID = fmt.Sprintf("demo/many-%03d", i)
		c.Status = check.Failed
		c.Failures = []check.Failure{{Rule: fmt.Sprintf("ERR-%03d", i), Message: "x"}}
		r.Results = append(r.Results, &c)
	}
	var console bytes.Buffer
	PrintSummary(&console, NewDocument(r, nil), nil)
	s := console.String()
	if n := strings.Count(s, "\n"); n > 50 {
		t.Errorf("summary is %d lines, want one screen (≤ 50):\n%s", n, s)
	}
	if !strings.Contains(s, "more (report.html lists them all)") {
		t.Errorf("summary does not say how many rules it left out:\n%s", s)
	}
}

// TestTheDocumentIsBuiltOnceAndLeavesItsRunAlone: NewDocument copies the
// run it describes (it had set the schema version, tool and spec
// documents on its input), and every output renders the one document.
func TestTheDocumentIsBuiltOnceAndLeavesItsRunAlone(t *testing.T) {
	r := sampleRun()
	r.SchemaVersion, r.Tool, r.Spec = 0, Tool{}, nil
	doc := NewDocument(r, catalogue.MustLoad())
	if r.SchemaVersion != 0 || r.Tool.Version != "" || r.Spec != nil {
		t.Errorf("NewDocument changed its input: schema %d, tool %+v, spec %v", r.SchemaVersion, r.Tool, r.Spec)
	}
	if doc.SchemaVersion != SchemaVersion || doc.Tool.Version == "" {
		t.Errorf("document: schema %d, tool %+v", doc.SchemaVersion, doc.Tool)
	}
	dir := t.TempDir()
	red := redact.New()
	if err := WriteJSON(dir, doc, red); err != nil {
		t.Fatal(err)
	}
	if err := WriteJUnit(dir, doc, red); err != nil {
		t.Fatal(err)
	}
	junit, _ := os.ReadFile(filepath.Join(dir, "junit.xml"))
	if want := fmt.Sprintf(`name="rules_passed" value="%d"`, doc.RuleCounts[RulePassed]); !strings.Contains(string(junit), want) {
		t.Errorf("junit.xml does not carry the document's rule counts (%s)", want)
	}
}
