package reports

import (
	"fmt"
	"io"
	"sort"

	"github.com/touchstone-harness/touchstone/internal/catalogue"
)

// Change is one rule whose status differs between two runs.
type Change struct {
	Rule string `json:"rule"`
	Old  string `json:"old"`
	New  string `json:"new"`
	// Kind: "new failure", "fixed", "newly skipped", "other".
	Kind string `json:"kind"`
}

// Compare lists the rules whose status changed from old to new, new
// failures first.
func Compare(old, new *Document, cat *catalogue.Catalogue) []Change {
	before := map[string]string{}
	for _, rs := range RuleStatuses(old, cat) {
		before[rs.ID] = rs.Status
	}
	var out []Change
	for _, rs := range RuleStatuses(new, cat) {
		was := before[rs.ID]
		if was == rs.Status {
			continue
		}
		c := Change{Rule: rs.ID, Old: was, New: rs.Status, Kind: "other"}
		switch {
		case rs.Status == RuleFailed:
			c.Kind = "new failure"
		case was == RuleFailed && rs.Status == RulePassed:
			c.Kind = "fixed"
		case rs.Status == RuleSkipped:
			c.Kind = "newly skipped"
		}
		out = append(out, c)
	}
	rank := map[string]int{"new failure": 0, "fixed": 1, "newly skipped": 2, "other": 3}
	sort.SliceStable(out, func(i, j int) bool { return rank[out[i].Kind] < rank[out[j].Kind] })
	return out
}

// PrintChanges prints the changes, one per line, and the count of new
// failures.
func PrintChanges(w io.Writer, changes []Change) (newFailures int) {
	for _, c := range changes {
		if c.Kind == "new failure" {
			newFailures++
		}
		fmt.Fprintf(w, "%-14s %-12s %s -> %s\n", c.Kind, c.Rule, c.Old, c.New)
	}
	fmt.Fprintf(w, "%d rules changed status; %d new failures\n", len(changes), newFailures)
	return newFailures
}
