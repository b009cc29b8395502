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
		fmt.Fprintln(w, "\nviolated rules:")
		for _, id := range ids {
			text := ""
			if cat != nil && cat.Rule(id) != nil {
				text = cat.Rule(id).Rule
			}
			fmt.Fprintf(w, "  %s  %s\n      by %s\n", id, clipText(text, 110), strings.Join(t.FailedRules[id], ", "))
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

func clipText(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
