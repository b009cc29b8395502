package reports

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/touchstone-harness/touchstone/internal/catalogue"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/redact"
)

func statusOf(rules []RuleStatus, id string) RuleStatus {
	for _, r := range rules {
		if r.ID == id {
			return r
		}
	}
	return RuleStatus{}
}

func TestRuleStatuses(t *testing.T) {
	cat := catalogue.MustLoad()
	doc := NewDocument(sampleRun(), cat)
	rules := RuleStatuses(doc, cat)
	if len(rules) != cat.Counted() {
		t.Fatalf("%d statuses for %d rules", len(rules), cat.Counted())
	}
	for id, want := range map[string]string{"AUTH-001": RulePassed, "AUTH-002": RuleFailed, "IDEM-003": RuleFailed, "IDEM-001": RuleSkipped, "IDEM-002": RuleNoVerdict} {
		if got := statusOf(rules, id); got.Status != want {
			t.Errorf("%s: %s (%s), want %s", id, got.Status, got.Reason, want)
		}
	}
	for _, r := range cat.Rules {
		if r.Unobservable != "" {
			if got := statusOf(rules, r.ID); got.Status != RuleUnobservable || got.Reason != r.Unobservable {
				t.Errorf("%s: %s, want unobservable with its reason", r.ID, got.Status)
			}
			break
		}
	}
	areas := AreaStatuses(rules)
	if areas[0].Worst != RuleFailed {
		t.Errorf("worst area first: %+v", areas[0])
	}
}

func TestCertifyNamesWhatStandsInTheWay(t *testing.T) {
	cat := catalogue.MustLoad()
	r := sampleRun()
	r.Results[2].SkipReason = "profile has no customers.parent"
	v := Certify(NewDocument(r, cat), cat)
	if v.Certifiable {
		t.Fatal("a run with failures is certifiable")
	}
	all := strings.Join(v.Reasons, "\n")
	for _, want := range []string{"label filter", "rules failed", "no verdict", "did not run", "profile lacks customers.parent"} {
		if !strings.Contains(all, want) {
			t.Errorf("reasons lack %q:\n%s", want, all)
		}
	}
	if len(v.MissingFixtures) != 1 || v.MissingFixtures[0] != "customers.parent" {
		t.Errorf("missing fixtures %v", v.MissingFixtures)
	}
	clean := &Run{Target: "http://h", Selected: 1, Results: []*check.Result{{ID: "auth/a", Area: "auth", Rules: []string{"AUTH-001"}, Status: check.Passed}}}
	if v := Certify(NewDocument(clean, cat), cat); !v.Certifiable {
		t.Errorf("a whole-catalogue run with no failure is not certifiable: %v", v.Reasons)
	}
}

// TestCertifyNamesRulesNotVerifiedHere: a certifiable run whose required
// rules were skipped for want of the control API names them, with why, in
// the statement; a run with none says nothing of them.
func TestCertifyNamesRulesNotVerifiedHere(t *testing.T) {
	cat := catalogue.MustLoad()
	run := &Run{Target: "http://h", Selected: 2, Results: []*check.Result{
		{ID: "auth/a", Area: "auth", Rules: []string{"AUTH-001"}, Status: check.Passed},
		{ID: "auth/b", Area: "auth", Rules: []string{"AUTH-002", "AUTH-003"}, Status: check.Skipped, SkipReason: "target has no control API (control_url)"},
	}}
	v := Certify(NewDocument(run, cat), cat)
	if !v.Certifiable || v.NotVerifiedHere != 2 || len(v.NotVerified) != 2 {
		t.Fatalf("verdict %+v, want certifiable with AUTH-002 and AUTH-003 not verified here", v)
	}
	st := v.NotVerifiedStatement()
	for _, want := range []string{"2 required rules were not verified on this target", "AUTH-002, AUTH-003", "control API"} {
		if !strings.Contains(st, want) {
			t.Errorf("statement %q lacks %q", st, want)
		}
	}
	run.Results = run.Results[:1]
	if st := Certify(NewDocument(run, cat), cat).NotVerifiedStatement(); st != "" {
		t.Errorf("nothing unverified, yet the statement says %q", st)
	}
}

func TestBaselineGate(t *testing.T) {
	cat := catalogue.MustLoad()
	tally := sampleRun().Tally() // fails AUTH-002, IDEM-003; verifies AUTH-001
	today := time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)
	b := &Baseline{Expected: []ExpectedFailure{{"AUTH-002", "ticket 1", "2027-01-01"}, {"IDEM-003", "ticket 2", "2027-01-01"}}}
	if v := b.Judge("b.json", tally, today); !v.Passed || len(v.Expected) != 2 {
		t.Errorf("every failure expected: %+v", v)
	}
	b.Expected = b.Expected[:1]
	if v := b.Judge("b.json", tally, today); v.Passed || strings.Join(v.Unexpected, ",") != "IDEM-003" {
		t.Errorf("unexpected failure not gated: %+v", v)
	}
	b.Expected = append(b.Expected, ExpectedFailure{"IDEM-003", "t", "2027-01-01"}, ExpectedFailure{"AUTH-001", "fixed since", "2027-01-01"})
	if v := b.Judge("b.json", tally, today); v.Passed || strings.Join(v.Stale, ",") != "AUTH-001" {
		t.Errorf("stale entry not gated: %+v", v)
	}
	b.Expected = []ExpectedFailure{{"AUTH-002", "t", "2026-11-24"}, {"IDEM-003", "t", "2026-11-25"}, {"IDEM-001", "skipped here", "2027-01-01"}}
	v := b.Judge("b.json", tally, today)
	if v.Passed || len(v.Expired) != 1 || !strings.HasPrefix(v.Expired[0], "AUTH-002") || strings.Join(v.Unexercised, ",") != "IDEM-001" {
		t.Errorf("expiry (the day itself still valid) or unexercised wrong: %+v", v)
	}

	dir := t.TempDir()
	write := func(body string) string {
		p := filepath.Join(dir, "b.json")
		os.WriteFile(p, []byte(body), 0o644)
		return p
	}
	for body, want := range map[string]string{
		`{"expected_failures":[{"rule":"NOPE-1","reason":"r","review_by":"2027-01-01"}]}`:  "not a catalogued rule",
		`{"expected_failures":[{"rule":"AUTH-002","reason":"","review_by":"2027-01-01"}]}`: "no reason",
		`{"expected_failures":[{"rule":"AUTH-002","reason":"r","review_by":"soon"}]}`:      "YYYY-MM-DD",
		`{"expected_failures":[]} junk`: "after the JSON",
		`{"expected":[]}`:               "unknown field",
	} {
		if _, err := LoadBaseline(write(body), cat); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("baseline %s: error %v, want %q", body, err, want)
		}
	}
}

func TestCompareListsChangedRules(t *testing.T) {
	cat := catalogue.MustLoad()
	old := NewDocument(sampleRun(), cat)
	r := sampleRun()
	r.Results[0].Status = check.Failed // AUTH-001 now fails
	r.Results[0].Failures = []check.Failure{{Rule: "AUTH-001", Message: "x"}}
	r.Results[4].Status, r.Results[4].Failures = check.Passed, nil // IDEM-003 fixed
	cur := NewDocument(r, cat)
	changes := Compare(old, cur, cat)
	kinds := map[string]string{}
	for _, c := range changes {
		kinds[c.Rule] = c.Kind
	}
	if kinds["AUTH-001"] != "new failure" || kinds["IDEM-003"] != "fixed" || changes[0].Kind != "new failure" {
		t.Errorf("changes %+v", changes)
	}
	if got := Compare(old, old, cat); len(got) != 0 {
		t.Errorf("a run compared with itself changed: %+v", got)
	}
}

// The page is self-contained: nothing it shows is fetched, and it renders
// from results.json alone (re-rendering gives the same bytes).
func TestPageIsSelfContainedAndRedacted(t *testing.T) {
	cat := catalogue.MustLoad()
	dir := t.TempDir()
	red := redact.New(secret)
	r := sampleRun()
	if err := WriteJSON(dir, NewDocument(r, cat), red); err != nil {
		t.Fatal(err)
	}
	if err := WriteHTML(dir, NewDocument(r, cat), cat, red); err != nil {
		t.Fatal(err)
	}
	page, _ := os.ReadFile(filepath.Join(dir, "report.html"))
	if strings.Contains(string(page), secret) {
		t.Fatal("the page holds a secret")
	}
	fetch := regexp.MustCompile(`(?i)(src|href|action)\s*=\s*["']?\s*(https?:)?//|url\(|@import|<link|<iframe|<img`)
	if m := fetch.FindString(string(page)); m != "" {
		t.Errorf("the page references something to fetch: %q", m)
	}
	for _, want := range []string{`id="verdict"`, "not certifiable", `id="failures"`, "auth/b", "AUTH-002", cat.Rule("AUTH-002").Rule[:30], `id="rules"`, `id="properties"`, `id="load"`, "reproduce:"} {
		if !strings.Contains(string(page), want) && !strings.Contains(string(page), htmlEscape(want)) {
			t.Errorf("the page lacks %q", want)
		}
	}
	doc, err := ReadJSON(dir)
	if err != nil {
		t.Fatal(err)
	}
	again, err := RenderHTML(dir, doc, cat)
	if err != nil {
		t.Fatal(err)
	}
	if string(red.Bytes(again)) != string(page) {
		t.Error("re-rendering from results.json gives another page")
	}
}

func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;").Replace(s)
}

// TestRuleNotJudgedWithoutControl: a check that ran its form for a target
// without the control API names only the rules it judged; the rules it
// judges only with that API are skipped, with the reason, unless another
// check decided them.
func TestRuleNotJudgedWithoutControl(t *testing.T) {
	cat := catalogue.MustLoad()
	r := &Run{Target: "http://h", Selected: 2, Results: []*check.Result{
		{ID: "property/customer-lifecycle", Area: "property", Rules: []string{"LIFE-002"}, Status: check.Passed,
			NotJudged: []string{"LIFE-011", "LIFE-012"}, NotJudgedWhy: "the identity provider's decisions come from outside the API"},
		{ID: "customers/other", Area: "customers", Rules: []string{"LIFE-012"}, Status: check.Passed},
	}}
	rules := RuleStatuses(NewDocument(r, cat), cat)
	if got := statusOf(rules, "LIFE-011"); got.Status != RuleSkipped || !strings.Contains(got.Reason, "only with the sandbox control API: the identity provider") {
		t.Errorf("LIFE-011: %s (%s), want skipped: judged only with the control API", got.Status, got.Reason)
	}
	for id, want := range map[string]string{"LIFE-002": RulePassed, "LIFE-012": RulePassed} {
		if got := statusOf(rules, id); got.Status != want {
			t.Errorf("%s: %s (%s), want %s", id, got.Status, got.Reason, want)
		}
	}
}

// TestCoverageByKind: results.json and the page count the catalogue by
// kind, each rule once: spec rules checked and proven, interpretations,
// quirks, unobservable, restatements.
func TestCoverageByKind(t *testing.T) {
	cat := catalogue.MustLoad()
	dir := t.TempDir()
	if err := WriteJSON(dir, NewDocument(sampleRun(), cat), redact.New(secret)); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(filepath.Join(dir, "results.json"))
	var doc struct {
		Kinds catalogue.KindCoverage `json:"rule_kinds"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	want := cat.ByKind(catalogue.MustLoadProof())
	if doc.Kinds != want || want.Spec == 0 || want.SpecChecked == 0 || want.Interpretations == 0 || want.Quirks == 0 || want.Aliases == 0 {
		t.Errorf("results.json rule_kinds %+v, want %+v", doc.Kinds, want)
	}
	if n := want.Spec + want.Interpretations + want.Quirks; n != cat.Counted() {
		t.Errorf("kinds add up to %d, the catalogue counts %d", n, cat.Counted())
	}
	page, err := RenderHTML(dir, NewDocument(sampleRun(), cat), cat)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), fmt.Sprintf("spec rules (must) <b>%d</b>, <b>%d</b> checked, <b>%d</b> proven", want.Spec, want.SpecChecked, want.SpecProven)) {
		t.Error("the page does not count the rules by kind")
	}
}
