package reports

import (
	"sort"

	"github.com/touchstone-harness/touchstone/internal/check"
)

// Tally is what a run found, computed once from its results and rendered
// alike by results.json, junit.xml and the console.
type Tally struct {
	Total  Counts             `json:"counts"`
	ByArea map[string]*Counts `json:"by_area"`
	Areas  []string           `json:"-"`
	// FailedRules maps each rule a failed check recorded a failure under
	// to the ids of those checks (sorted, distinct).
	FailedRules map[string][]string `json:"failed_rules,omitempty"`
	// Verified are the rules named by a passing check and by no failed one.
	Verified []string `json:"verified_this_run"`
	// Selected is how many checks the filters chose; NotRun how many of
	// them never ran (interrupted, or the target stopped answering).
	Selected int `json:"selected"`
	NotRun   int `json:"not_run"`
}

// Counts tallies results by status.
type Counts struct {
	Passed  int `json:"passed"`
	Failed  int `json:"failed"`
	Skipped int `json:"skipped"`
	Error   int `json:"no_verdict"`
}

func (c *Counts) add(s check.Status) {
	switch s {
	case check.Passed:
		c.Passed++
	case check.Failed:
		c.Failed++
	case check.Skipped:
		c.Skipped++
	case check.Error:
		c.Error++
	}
}

// CheckStatus is a check status as every report writes it: passed,
// failed, skipped or no-verdict (check.Error).
func CheckStatus(s check.Status) string {
	if s == check.Error {
		return RuleNoVerdict
	}
	return string(s)
}

// Tally computes the run's tally.
func (r *Run) Tally() Tally {
	t := Tally{ByArea: map[string]*Counts{}, FailedRules: map[string][]string{}}
	passed, failed := map[string]bool{}, map[string]bool{}
	ran := 0
	for _, res := range r.Results {
		if res.NotRun {
			continue
		}
		ran++
		c := t.ByArea[res.Area]
		if c == nil {
			c = &Counts{}
			t.ByArea[res.Area] = c
			t.Areas = append(t.Areas, res.Area)
		}
		c.add(res.Status)
		t.Total.add(res.Status)
		for _, id := range res.Rules {
			switch res.Status {
			case check.Passed:
				passed[id] = true
			case check.Failed:
				failed[id] = true
			}
		}
		if res.Status == check.Failed {
			for _, rule := range res.FailedRules() {
				t.FailedRules[rule] = append(t.FailedRules[rule], res.ID)
			}
		}
	}
	for rule := range t.FailedRules {
		sort.Strings(t.FailedRules[rule])
	}
	for id := range passed {
		if !failed[id] {
			t.Verified = append(t.Verified, id)
		}
	}
	sort.Strings(t.Verified)
	sort.Strings(t.Areas)
	t.Selected = max(r.Selected, len(r.Results))
	t.NotRun = t.Selected - ran
	return t
}

// FailedRuleIDs are the keys of FailedRules, sorted.
func (t Tally) FailedRuleIDs() []string {
	ids := make([]string, 0, len(t.FailedRules))
	for id := range t.FailedRules {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}
