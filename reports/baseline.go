package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/touchstone-harness/touchstone/internal/catalogue"
)

// Baseline lists the failures a release gate expects, each with why and
// until when: a team carries known violations without hiding new ones.
//
//	{"expected_failures": [{"rule": "IDEM-011", "reason": "TICKET-12", "review_by": "2027-01-31"}]}
type Baseline struct {
	Expected []ExpectedFailure `json:"expected_failures"`
}

// ExpectedFailure is one known violation.
type ExpectedFailure struct {
	Rule     string `json:"rule"`
	Reason   string `json:"reason"`
	ReviewBy string `json:"review_by"`
}

// LoadBaseline reads and validates a baseline file: every entry names a
// catalogued rule once, gives a reason and a review-by date (YYYY-MM-DD).
func LoadBaseline(path string, cat *catalogue.Catalogue) (*Baseline, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var b Baseline
	if err := dec.Decode(&b); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%s: data after the JSON object", path)
	}
	seen := map[string]bool{}
	for i, e := range b.Expected {
		switch {
		case cat.Rule(e.Rule) == nil:
			return nil, fmt.Errorf("%s: entry %d: %q is not a catalogued rule id", path, i+1, e.Rule)
		case seen[e.Rule]:
			return nil, fmt.Errorf("%s: entry %d: %s listed twice", path, i+1, e.Rule)
		case strings.TrimSpace(e.Reason) == "":
			return nil, fmt.Errorf("%s: entry %d (%s): no reason", path, i+1, e.Rule)
		}
		if _, err := time.Parse(time.DateOnly, e.ReviewBy); err != nil {
			return nil, fmt.Errorf("%s: entry %d (%s): review_by %q is not a YYYY-MM-DD date", path, i+1, e.Rule, e.ReviewBy)
		}
		seen[e.Rule] = true
	}
	return &b, nil
}

// BaselineVerdict is a gated run's judgement against its baseline.
type BaselineVerdict struct {
	File string `json:"file"`
	// Expected are the baseline's failures that failed again (allowed).
	Expected []string `json:"expected"`
	// Unexpected failures fail the gate.
	Unexpected []string `json:"unexpected,omitempty"`
	// Stale entries now pass: the baseline must drop them (fails the gate).
	Stale []string `json:"stale,omitempty"`
	// Expired entries are past their review-by date (fails the gate).
	Expired []string `json:"expired,omitempty"`
	// Unexercised entries were neither passed nor failed in this run
	// (skipped or not selected): they stay, and do not fail the gate.
	Unexercised []string `json:"unexercised,omitempty"`
	Passed      bool     `json:"passed"`
}

// Judge gates a run's tally against the baseline on the given day.
func (b *Baseline) Judge(file string, t Tally, today time.Time) *BaselineVerdict {
	v := &BaselineVerdict{File: file}
	listed := map[string]ExpectedFailure{}
	for _, e := range b.Expected {
		listed[e.Rule] = e
	}
	for _, id := range t.FailedRuleIDs() {
		if _, ok := listed[id]; ok {
			v.Expected = append(v.Expected, id)
		} else {
			v.Unexpected = append(v.Unexpected, id)
		}
	}
	verified := map[string]bool{}
	for _, id := range t.Verified {
		verified[id] = true
	}
	day := today.UTC().Format(time.DateOnly)
	for _, e := range b.Expected {
		if e.ReviewBy < day {
			v.Expired = append(v.Expired, fmt.Sprintf("%s (review by %s)", e.Rule, e.ReviewBy))
		}
		switch {
		case verified[e.Rule]:
			v.Stale = append(v.Stale, e.Rule)
		case len(t.FailedRules[e.Rule]) == 0:
			v.Unexercised = append(v.Unexercised, e.Rule)
		}
	}
	sort.Strings(v.Stale)
	sort.Strings(v.Expired)
	sort.Strings(v.Unexercised)
	v.Passed = len(v.Unexpected)+len(v.Stale)+len(v.Expired) == 0
	return v
}

// Lines are the verdict as console lines.
func (v *BaselineVerdict) Lines() []string {
	var out []string
	add := func(what string, ids []string) {
		if len(ids) > 0 {
			out = append(out, fmt.Sprintf("  %s: %s", what, strings.Join(ids, ", ")))
		}
	}
	add("expected failures (baseline)", v.Expected)
	add("UNEXPECTED failures", v.Unexpected)
	add("STALE baseline entries (now pass: remove them)", v.Stale)
	add("EXPIRED baseline entries (past review-by)", v.Expired)
	add("baseline entries not exercised this run", v.Unexercised)
	verdict := "baseline gate: PASSED"
	if !v.Passed {
		verdict = "baseline gate: FAILED"
	}
	return append([]string{verdict + " (" + v.File + ")"}, out...)
}
