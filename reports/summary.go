package reports

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/touchstone-harness/touchstone/internal/catalogue"
	"github.com/touchstone-harness/touchstone/internal/check"
)

// PrintSummary prints passed / failed / skipped by area, failed rules and
// rule coverage, and returns the totals.
func PrintSummary(w io.Writer, r *Run, cat *catalogue.Catalogue) Counts {
	areas, byArea, total := r.ByArea()
	fmt.Fprintf(w, "\n%-14s %7s %7s %7s %10s\n", "area", "passed", "failed", "skipped", "no-verdict")
	for _, a := range areas {
		c := byArea[a]
		fmt.Fprintf(w, "%-14s %7d %7d %7d %10d\n", a, c.Passed, c.Failed, c.Skipped, c.Error)
	}
	fmt.Fprintf(w, "%-14s %7d %7d %7d %10d\n", "total", total.Passed, total.Failed, total.Skipped, total.Error)
	failed := map[string][]string{}
	for _, res := range r.Results {
		if res.Status == check.Failed {
			for _, rule := range res.FailedRules() {
				failed[rule] = append(failed[rule], res.ID)
			}
		}
	}
	if len(failed) > 0 {
		ids := make([]string, 0, len(failed))
		for id := range failed {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		fmt.Fprintln(w, "\nviolated rules:")
		for _, id := range ids {
			text := ""
			if cat != nil && cat.Rule(id) != nil {
				text = cat.Rule(id).Rule
			}
			fmt.Fprintf(w, "  %s  %s\n      by %s\n", id, clipText(text, 110), strings.Join(failed[id], ", "))
		}
	}
	if cat != nil {
		_, covered, all := cat.Coverage()
		fmt.Fprintf(w, "\nrule coverage: %d/%d rules have a check; %d verified by a passing check in this run\n", covered, all, len(r.VerifiedRules()))
	}
	fmt.Fprintf(w, "wall time %s, %d no verdict\n", r.Duration.Round(1e6), total.Error)
	fmt.Fprintf(w, "%d passed, %d failed, %d skipped\n", total.Passed, total.Failed, total.Skipped)
	return total
}

func clipText(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
