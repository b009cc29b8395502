package check

import "sort"

// RootCause is one violation that many checks met the same way: a target
// that breaks a rule on every response (a header it never sends, a
// timestamp without an offset, a field its documents require) reads as
// one cause with its count, not as hundreds of failures.
type RootCause struct {
	Rule   string `json:"rule"`
	Reason string `json:"reason"`
	// Checks are the checks that met it, by id; Responses how many
	// answers showed it in all.
	Checks    []string `json:"checks"`
	Responses int      `json:"responses"`
}

// RootCauseMin is the fewest checks a violation must reach to be reported
// as a root cause.
const RootCauseMin = 5

// RootCauses groups the failures of rs that carry a reason (the schema
// rule's) by rule and reason, keeping those met by at least RootCauseMin
// checks, most checks first.
func RootCauses(rs []*Result) []RootCause {
	by := map[[2]string]*RootCause{}
	for _, r := range rs {
		seen := map[[2]string]bool{}
		for _, f := range r.Failures {
			if f.Reason == "" {
				continue
			}
			k := [2]string{f.Rule, f.Reason}
			rc := by[k]
			if rc == nil {
				rc = &RootCause{Rule: f.Rule, Reason: f.Reason}
				by[k] = rc
			}
			rc.Responses += max(1, f.Occurrences)
			if !seen[k] {
				seen[k] = true
				rc.Checks = append(rc.Checks, r.ID)
			}
		}
	}
	var out []RootCause
	for _, rc := range by {
		if len(rc.Checks) >= RootCauseMin {
			sort.Strings(rc.Checks)
			out = append(out, *rc)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if len(out[i].Checks) != len(out[j].Checks) {
			return len(out[i].Checks) > len(out[j].Checks)
		}
		return out[i].Rule+out[i].Reason < out[j].Rule+out[j].Reason
	})
	return out
}

// OnlyRootCauses tells whether every failure of r is one of causes (the
// check shows nothing of its own).
func OnlyRootCauses(r *Result, causes []RootCause) bool {
	if len(r.Failures) == 0 {
		return false
	}
	set := map[[2]string]bool{}
	for _, c := range causes {
		set[[2]string{c.Rule, c.Reason}] = true
	}
	for _, f := range r.Failures {
		if !set[[2]string{f.Rule, f.Reason}] {
			return false
		}
	}
	return true
}
