package reports

import (
	"fmt"
	"sort"
	"strings"

	"github.com/touchstone-harness/touchstone/internal/catalogue"
	"github.com/touchstone-harness/touchstone/internal/check"
)

// Verdict is whether a run can back a certificate, and why not.
type Verdict struct {
	Certifiable bool `json:"certifiable"`
	// Reasons are what stands in the way, one line each.
	Reasons []string `json:"reasons,omitempty"`
	// MissingFixtures are the profile entries whose absence skipped a
	// required rule's checks: add them to the profile.
	MissingFixtures []string `json:"missing_fixtures,omitempty"`
	// NotVerifiedHere counts required rules skipped for a reason the target
	// cannot change (no control API, a real clock): they are verified on
	// the reference sandbox, not on this target, and do not block.
	NotVerifiedHere int `json:"not_verified_here"`
	// NotVerified are those rules, each with why (grouped by reason in
	// the certificate's statement: NotVerifiedStatement).
	NotVerified []NotVerifiedRule `json:"not_verified,omitempty"`
}

// NotVerifiedRule is a required rule a certifiable run did not verify on
// its target, and why.
type NotVerifiedRule struct {
	ID  string `json:"id"`
	Why string `json:"why"`
	// Unlock are the control calls that would have it judged here.
	Unlock []string `json:"unlock,omitempty"`
}

// NotVerifiedStatement names the required rules not verified on the
// target, grouped by why, for the certificate's statement: "" when there
// are none.
func (v Verdict) NotVerifiedStatement() string {
	if len(v.NotVerified) == 0 {
		return ""
	}
	byWhy := map[string][]string{}
	var whys []string
	for _, r := range v.NotVerified {
		w := notVerifiedClass(r.Why)
		if byWhy[w] == nil {
			whys = append(whys, w)
		}
		id := r.ID
		if len(r.Unlock) > 0 {
			id += " [serve " + strings.Join(r.Unlock, ", ") + "]"
		}
		byWhy[w] = append(byWhy[w], id)
	}
	sort.Strings(whys)
	var parts []string
	for _, w := range whys {
		parts = append(parts, fmt.Sprintf("%s (%s)", strings.Join(byWhy[w], ", "), w))
	}
	return fmt.Sprintf("%d required rules were not verified on this target: %s.", len(v.NotVerified), strings.Join(parts, "; "))
}

// notVerifiedClass is the reason a rule went unverified, in a few words:
// the control API, a real clock, or the skip reason itself.
func notVerifiedClass(why string) string {
	low := strings.ToLower(why)
	switch {
	case strings.HasPrefix(why, check.NotServedPrefix):
		return "they need control calls this target does not serve"
	case strings.Contains(low, "control api"):
		return "they need the sandbox control API, which this target does not offer"
	case strings.Contains(low, "virtual clock") || strings.Contains(low, "real clock"):
		return "they need a virtual clock"
	}
	return why
}

// Certify judges a run for certification: the whole catalogue ran (no
// focus, no label filter), the run ended, no check failed or gave no
// verdict, and no required rule (kind must) was skipped for a fixture the
// profile lacks.
func Certify(doc *Document, cat *catalogue.Catalogue) Verdict {
	var v Verdict
	if doc.Focus != "" || doc.LabelFilter != "" {
		v.Reasons = append(v.Reasons, fmt.Sprintf("not the whole catalogue (label filter %q, focus %q): certification runs every check (touchstone run --certify)", doc.LabelFilter, doc.Focus))
	}
	if doc.Interrupted {
		v.Reasons = append(v.Reasons, "the run was interrupted")
	}
	if doc.Stopped != "" {
		v.Reasons = append(v.Reasons, "the run stopped early: "+doc.Stopped)
	}
	if doc.NotRun > 0 {
		v.Reasons = append(v.Reasons, fmt.Sprintf("%d selected checks did not run", doc.NotRun))
	}
	if n := len(doc.FailedRules); n > 0 {
		v.Reasons = append(v.Reasons, fmt.Sprintf("%d rules failed: %s", n, strings.Join(clipList(doc.FailedRuleIDs(), 12), ", ")))
	}
	if doc.Total.Error > 0 {
		v.Reasons = append(v.Reasons, fmt.Sprintf("%d checks gave no verdict", doc.Total.Error))
	}
	missing := map[string][]string{}
	for _, rs := range RuleStatuses(doc, cat) {
		if rs.Status != RuleSkipped || rs.Kind != catalogue.Must {
			continue
		}
		if f := MissingFixture(rs.Reason); f != "" {
			missing[f] = append(missing[f], rs.ID)
		} else {
			v.NotVerifiedHere++
			v.NotVerified = append(v.NotVerified, NotVerifiedRule{ID: rs.ID, Why: rs.Reason, Unlock: rs.Unlock})
		}
	}
	for f := range missing {
		v.MissingFixtures = append(v.MissingFixtures, f)
	}
	sort.Strings(v.MissingFixtures)
	for _, f := range v.MissingFixtures {
		v.Reasons = append(v.Reasons, fmt.Sprintf("profile lacks %s: %d required rules skipped (%s)", f, len(missing[f]), strings.Join(clipList(missing[f], 6), ", ")))
	}
	v.Certifiable = len(v.Reasons) == 0
	return v
}

func clipList(ids []string, n int) []string {
	if len(ids) <= n {
		return ids
	}
	return append(append([]string(nil), ids[:n]...), fmt.Sprintf("and %d more", len(ids)-n))
}
