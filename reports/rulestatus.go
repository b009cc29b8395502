package reports

import (
	"fmt"
	"sort"
	"strings"

	"github.com/touchstone-harness/touchstone/internal/catalogue"
	"github.com/touchstone-harness/touchstone/internal/check"
)

// Rule statuses in a run, worst first. A rule's status uses the words a
// check's does (passed, failed, skipped, no-verdict, not-run) with the same
// meaning, plus the ones only a rule can have.
const (
	// RuleFailed: a check recorded a failure under the rule.
	RuleFailed = "failed"
	// RuleNoVerdict: a check naming the rule reached no verdict.
	RuleNoVerdict = "no-verdict"
	// RuleInconclusive: a check naming the rule failed, under another
	// rule, so this one was shown neither to hold nor to break.
	RuleInconclusive = "inconclusive"
	RuleSkipped      = "skipped"
	RuleNotRun       = "not-run"
	// RuleNotSelected: the filters chose none of the rule's checks.
	RuleNotSelected = "not-selected"
	RulePassed      = "passed"
	// RuleNotCovered: the catalogue has no check for the rule yet.
	RuleNotCovered = "not-covered"
	// RuleUnobservable: no client of the API can observe the rule.
	RuleUnobservable = "unobservable"
)

// RuleStatusOrder lists the rule statuses worst first.
var RuleStatusOrder = []string{RuleFailed, RuleNoVerdict, RuleInconclusive, RuleSkipped, RuleNotRun, RuleNotSelected, RuleNotCovered, RulePassed, RuleUnobservable}

// RuleStatusMeaning says what each rule status means (the page's legend).
var RuleStatusMeaning = map[string]string{
	RuleFailed:       "a check failed under the rule",
	RuleNoVerdict:    "a check naming the rule reached no verdict",
	RuleInconclusive: "a check naming the rule failed under another rule, so this one was shown neither to hold nor to break",
	RuleSkipped:      "its checks were skipped (the reason is given)",
	RuleNotRun:       "its checks were selected but did not run (the run stopped or was interrupted)",
	RuleNotSelected:  "the filters chose none of its checks",
	RuleNotCovered:   "no check covers it yet",
	RulePassed:       "a check naming it passed and none failed",
	RuleUnobservable: "no client of the API can observe it (the reason is given)",
}

// ruleRank orders statuses worst first (an area shows its worst).
var ruleRank = func() map[string]int {
	m := map[string]int{}
	for i, s := range RuleStatusOrder {
		m[s] = i
	}
	return m
}()

// RuleStatus is one catalogued rule's standing in a run.
type RuleStatus struct {
	*catalogue.Rule
	Status string `json:"status"`
	// Reason says why the rule was not shown to pass or fail: the skip
	// reason, the no-verdict error, or why no check exists.
	Reason string `json:"reason,omitempty"`
	// By are the checks of this run that decided the status.
	By []string `json:"by,omitempty"`
	// Unlock, for a skipped rule, are the control calls (operation ids of
	// the control contract) the target would serve to have it judged.
	Unlock []string `json:"unlock,omitempty"`
}

// RuleStatuses are every catalogued rule's status in the run, in catalogue
// order: failed when a check failed under it; passed when a check naming it
// passed and none failed; otherwise the worst the checks that name it got
// (no verdict, inconclusive when one failed under another rule, skipped
// with the reason, not run), not selected when no check naming it was
// selected; and not covered or unobservable when the catalogue names no
// check.
func RuleStatuses(doc *Document, cat *catalogue.Catalogue) []RuleStatus {
	byRule, notJudged := map[string][]*check.Result{}, map[string][]*check.Result{}
	for _, rd := range doc.Results {
		for _, id := range rd.Rules {
			byRule[id] = append(byRule[id], rd.Result)
		}
		for _, id := range rd.NotJudged {
			notJudged[id] = append(notJudged[id], rd.Result)
		}
	}
	verified := map[string]bool{}
	for _, id := range doc.Verified {
		verified[id] = true
	}
	var out []RuleStatus
	for _, r := range cat.Rules {
		if r.AliasOf != "" {
			continue // one rule, counted once: the rule it restates
		}
		rs := RuleStatus{Rule: r}
		results := byRule[r.ID]
		switch {
		case len(doc.FailedRules[r.ID]) > 0:
			rs.Status, rs.By = RuleFailed, doc.FailedRules[r.ID]
		case verified[r.ID]:
			rs.Status = RulePassed
			for _, res := range results {
				if res.Status == check.Passed {
					rs.By = append(rs.By, res.ID)
				}
			}
		case len(results) > 0:
			rs.Status, rs.Reason, rs.By = undecided(results)
		case len(notJudged[r.ID]) > 0:
			// Its checks ran where they judge it only with the control API.
			res := notJudged[r.ID][0]
			rs.Status, rs.Reason = RuleSkipped, "judged only with the sandbox control API: "+res.NotJudgedWhy
			if why, ok := res.NotJudgedReasons[r.ID]; ok {
				rs.Reason = "not judged on this target: " + why
			}
			for _, res := range notJudged[r.ID] {
				rs.By = append(rs.By, res.ID)
			}
		case r.Unobservable != "":
			rs.Status, rs.Reason = RuleUnobservable, r.Unobservable
		case len(r.Checks) == 0:
			rs.Status, rs.Reason = RuleNotCovered, "no check yet"
		default:
			rs.Status, rs.Reason = RuleNotSelected, "its checks were not selected: "+strings.Join(r.Checks, ", ")
		}
		sort.Strings(rs.By)
		if rs.Status == RuleSkipped {
			rs.Unlock = unlockCalls(results, notJudged[r.ID])
		}
		out = append(out, rs)
	}
	return out
}

// undecided is the status of a rule whose checks neither passed nor failed
// under it (a check may have failed under another rule: the rule is then
// not shown either way).
func undecided(results []*check.Result) (status, reason string, by []string) {
	status = RuleNotRun
	for _, res := range results {
		s, why := RuleNotRun, res.Error
		switch {
		case res.NotRun:
		case res.Status == check.Error:
			s = RuleNoVerdict
		case res.Status == check.Skipped:
			s, why = RuleSkipped, res.SkipReason
		case res.Status == check.Failed:
			s, why = RuleInconclusive, "its check "+res.ID+" failed under another rule ("+strings.Join(res.FailedRules(), ", ")+")"
		case res.Status == check.Passed:
			s, why = RuleInconclusive, "a check naming it passed while another failed"
		}
		if reason == "" || ruleRank[s] < ruleRank[status] {
			status, reason = s, why
		}
		by = append(by, res.ID)
	}
	return status, reason, by
}

// AreaStatus is an area's rules rolled up: the count by status and the
// worst status among the rules a check covers.
type AreaStatus struct {
	Area   string         `json:"area"`
	Worst  string         `json:"worst"`
	Counts map[string]int `json:"counts"`
}

// RuleCounts counts rules by status.
func RuleCounts(rules []RuleStatus) map[string]int {
	out := map[string]int{}
	for _, r := range rules {
		out[r.Status]++
	}
	return out
}

// RuleCountsLine is "2 failed, 23 inconclusive, ..., 1051 passed": the
// statuses some rule has, worst first.
func RuleCountsLine(counts map[string]int) string {
	var parts []string
	for _, st := range RuleStatusOrder {
		if n := counts[st]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, st))
		}
	}
	return strings.Join(parts, ", ")
}

// AreaStatuses rolls rule statuses up by area, worst area first.
func AreaStatuses(rules []RuleStatus) []AreaStatus {
	idx := map[string]*AreaStatus{}
	var order []string
	for _, r := range rules {
		a := idx[r.Area]
		if a == nil {
			a = &AreaStatus{Area: r.Area, Worst: RuleUnobservable, Counts: map[string]int{}}
			idx[r.Area] = a
			order = append(order, r.Area)
		}
		a.Counts[r.Status]++
		if ruleRank[r.Status] < ruleRank[a.Worst] {
			a.Worst = r.Status
		}
	}
	out := make([]AreaStatus, 0, len(order))
	for _, name := range order {
		out = append(out, *idx[name])
	}
	sort.SliceStable(out, func(i, j int) bool { return ruleRank[out[i].Worst] < ruleRank[out[j].Worst] })
	return out
}

// MissingFixture is the profile fixture a skip reason names ("profile has
// no customers.parent" → "customers.parent"), or "".
func MissingFixture(reason string) string {
	if rest, ok := strings.CutPrefix(reason, "profile has no "); ok {
		return strings.TrimSpace(rest)
	}
	return ""
}
