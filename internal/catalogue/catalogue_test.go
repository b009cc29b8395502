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

// TestAliasesCountOnce: a restatement names the rule it restates, names no
// checks, resolves to that rule and is counted once; a restatement of a
// restatement, or one naming checks, is refused.
func TestAliasesCountOnce(t *testing.T) {
	cat, err := catalogue.Parse([]byte(`{"rules":[
		{"id":"A-001","doc":1,"section":"s","area":"a","kind":"must","rule":"r","interpretation":"","checks":["a/x"]},
		{"id":"A-002","doc":2,"section":"s","area":"a","kind":"must","rule":"r again","interpretation":"","checks":[],"alias_of":"A-001"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if r := cat.Canonical("A-002"); r == nil || r.ID != "A-001" || cat.Counted() != 1 || strings.Join(cat.Aliases("A-001"), ",") != "A-002" {
		t.Errorf("canonical %v, counted %d, aliases %v", r, cat.Counted(), cat.Aliases("A-001"))
	}
	if _, covered, total := cat.Coverage(); covered != 1 || total != 1 {
		t.Errorf("coverage %d/%d, want 1/1", covered, total)
	}
	proof := &catalogue.Proof{Proven: map[string][]string{"A-001": {"fault:x"}}}
	if k := cat.ByKind(proof); k.Spec != 1 || k.SpecChecked != 1 || k.SpecProven != 1 || k.Aliases != 1 {
		t.Errorf("by kind %+v", k)
	}
	if p := cat.Problems([]catalogue.CheckRef{{ID: "a/x", Rules: []string{"A-001", "A-002"}}}); len(p) != 1 || !strings.Contains(p[0], "restates A-001") {
		t.Errorf("a check naming a restatement: %v", p)
	}
	for _, bad := range []string{
		`{"rules":[{"id":"A-001","doc":1,"section":"s","area":"a","kind":"must","rule":"r","checks":[]},{"id":"A-002","doc":1,"section":"s","area":"a","kind":"must","rule":"r","checks":["a/x"],"alias_of":"A-001"}]}`,
		`{"rules":[{"id":"A-001","doc":1,"section":"s","area":"a","kind":"must","rule":"r","checks":[],"alias_of":"A-003"}]}`,
	} {
		if _, err := catalogue.Parse([]byte(bad)); err == nil {
			t.Errorf("accepted %s", bad)
		}
	}
}

// TestProofLedgerIsWellFormed: every rule the ledger names exists and is
// not a restatement; every reason is for a checked spec rule it does not
// also claim proven.
func TestProofLedgerIsWellFormed(t *testing.T) {
	cat := catalogue.MustLoad()
	proof := catalogue.MustLoadProof()
	for id, by := range proof.Proven {
		if r := cat.Rule(id); r == nil || r.AliasOf != "" || len(by) == 0 {
			t.Errorf("proof.json: proven %s (%v) is not a rule of its own", id, by)
		}
	}
	for id, why := range proof.Unproven {
		r := cat.Rule(id)
		if r == nil || r.Kind != catalogue.Must || len(r.Checks) == 0 || proof.IsProven(id) || strings.TrimSpace(why) == "" {
			t.Errorf("proof.json: unproven %s (%q) is not a checked spec rule left unproven", id, why)
		}
	}
}

// TestCodeStatusesAreRead: the error catalogue's code-to-status sentences
// are read, a restatement's under the rule it restates.
func TestCodeStatusesAreRead(t *testing.T) {
	got := map[string]catalogue.CodeStatus{}
	for _, cs := range catalogue.MustLoad().CodeStatuses() {
		got[cs.Code+"/"+cs.Rule] = cs
	}
	if cs, ok := got["exchange_wallet_missing/ERR-060"]; !ok || cs.Status != 409 {
		t.Errorf("exchange_wallet_missing: %+v", cs)
	}
	if cs, ok := got["items_required/PB-094"]; !ok || cs.Status != 422 {
		t.Errorf("items_required (ERR-104, restating PB-094): %+v", cs)
	}
	if len(got) < 90 {
		t.Errorf("%d code-to-status sentences read, want the ~100 of document 2", len(got))
	}
}
