package catalogue_test

import (
	"regexp"
	"strings"
	"testing"

	_ "github.com/touchstone-harness/touchstone/cmd/touchstone/allchecks" // registers every check
	"github.com/touchstone-harness/touchstone/internal/catalogue"
	"github.com/touchstone-harness/touchstone/internal/check"
)

var idRe = regexp.MustCompile(`^([A-Z][A-Z0-9]*)-([0-9]{3})$`)

func TestCatalogueIsWellFormed(t *testing.T) {
	cat, err := catalogue.Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(cat.Rules) < 300 {
		t.Fatalf("catalogue has %d rules; both documents need several hundred", len(cat.Rules))
	}
	areaOf := map[string]string{}
	for _, r := range cat.Rules {
		m := idRe.FindStringSubmatch(r.ID)
		if m == nil {
			t.Errorf("rule id %q is not PREFIX-NNN", r.ID)
			continue
		}
		if a, ok := areaOf[m[1]]; ok && a != r.Area {
			t.Errorf("prefix %s is used for areas %s and %s", m[1], a, r.Area)
		}
		areaOf[m[1]] = r.Area
		if r.Doc != 1 && r.Doc != 2 {
			t.Errorf("%s: doc %d", r.ID, r.Doc)
		}
		if strings.TrimSpace(r.Rule) == "" || strings.TrimSpace(r.Section) == "" {
			t.Errorf("%s: empty rule or section", r.ID)
		}
	}
}

// TestCatalogueMatchesChecks fails when a check names an unknown rule, when
// a rule claims a check that does not exist, or when the catalogue's check
// lists drift from the code (fix: go run ./cmd/touchstone rules --sync).
func TestCatalogueMatchesChecks(t *testing.T) {
	cat := catalogue.MustLoad()
	var refs []catalogue.CheckRef
	for _, c := range check.All() {
		refs = append(refs, catalogue.CheckRef{ID: c.ID, Rules: c.Rules})
	}
	for _, p := range cat.Problems(refs) {
		t.Error(p)
	}
}

func TestProblemsDetectsBothDirections(t *testing.T) {
	cat, err := catalogue.Parse([]byte(`{"rules":[
		{"id":"A-001","doc":1,"section":"s","area":"a","kind":"must","rule":"r","interpretation":"","checks":["a/gone"]},
		{"id":"A-002","doc":1,"section":"s","area":"a","kind":"must","rule":"r","interpretation":"","checks":[]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	probs := strings.Join(cat.Problems([]catalogue.CheckRef{{ID: "a/x", Rules: []string{"A-002", "B-009"}}}), "\n")
	for _, want := range []string{"names unknown rule B-009", "claims check a/gone, which does not exist", "rule A-002 lists checks [] but is named by [a/x]"} {
		if !strings.Contains(probs, want) {
			t.Errorf("problems do not report %q:\n%s", want, probs)
		}
	}
	if _, err := catalogue.Parse([]byte(`{"rules":[{"id":"A-001","doc":1,"section":"s","area":"a","kind":"interpretation","rule":"r","interpretation":"","checks":[]}]}`)); err == nil {
		t.Error("an interpretation rule without a reading was accepted")
	}
}
