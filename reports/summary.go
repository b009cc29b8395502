package reports

import (
	"fmt"
	"io"
	"strings"

	"github.com/touchstone-harness/touchstone/internal/catalogue"
)

// PrintSummary prints the run's tally: passed / failed / skipped / no
// verdict by area, violated rules, rule coverage, and what did not run.
func PrintSummary(w io.Writer, r *Run, cat *catalogue.Catalogue) Tally {
	t := r.Tally()
	fmt.Fprintf(w, "\n%-14s %7s %7s %7s %10s\n", "area", "passed", "failed", "skipped", "no-verdict")
	for _, a := range t.Areas {
		c := t.ByArea[a]
		fmt.Fprintf(w, "%-14s %7d %7d %7d %10d\n", a, c.Passed, c.Failed, c.Skipped, c.Error)
	}
	fmt.Fprintf(w, "%-14s %7d %7d %7d %10d\n", "total", t.Total.Passed, t.Total.Failed, t.Total.Skipped, t.Total.Error)
	if ids := t.FailedRuleIDs(); len(ids) > 0 {
		// The closing summary fits one screen: the first rules, then a
		// count; every failure is in report.html and results.json.
		fmt.Fprintf(w, "\nviolated rules (%d):\n", len(ids))
		for i, id := range ids {
			if i == SummaryRules {
				fmt.Fprintf(w, "  … and %d more (report.html lists them all)\n", len(ids)-SummaryRules)
				break
			}
			text := ""
			if cat != nil && cat.Rule(id) != nil {
				text = cat.Rule(id).Rule
			}
			by := t.FailedRules[id]
			more := ""
			if len(by) > 2 {
				by, more = by[:2], fmt.Sprintf(" +%d", len(by)-2)
			}
			fmt.Fprintf(w, "  %s  %s  (by %s%s)\n", id, clipText(text, 70), strings.Join(by, ", "), more)
		}
	}
	if cat != nil {
		_, covered, all := cat.Coverage()
		fmt.Fprintf(w, "\nrule coverage: %d/%d rules have a check; %d verified by a passing check in this run\n", covered, all, len(t.Verified))
	}
	fmt.Fprintf(w, "wall time %s, %d no verdict\n", r.Duration.Round(1e6), t.Total.Error)
	switch {
	case r.Interrupted:
		fmt.Fprintf(w, "INTERRUPTED: %d of %d selected checks not run\n", t.NotRun, t.Selected)
	case r.Stopped != "":
		fmt.Fprintf(w, "STOPPED: %s; %d of %d selected checks not run\n", r.Stopped, t.NotRun, t.Selected)
	case t.NotRun > 0:
		fmt.Fprintf(w, "%d of %d selected checks not run\n", t.NotRun, t.Selected)
	}
	fmt.Fprintf(w, "%d passed, %d failed, %d skipped\n", t.Total.Passed, t.Total.Failed, t.Total.Skipped)
	return t
}

// SummaryRules is how many violated rules the closing summary lists.
var SummaryRules = 12

func clipText(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
