package reports

import (
	"fmt"
	"io"
	"strings"

	"github.com/touchstone-harness/touchstone/internal/catalogue"
)

// PrintSummary prints the run's tally in the words the page, results.json
// and junit.xml use: checks passed / failed / skipped / no-verdict by area
// (a check's area), the failed rules, the catalogue's rules by status, and
// what did not run.
func PrintSummary(w io.Writer, d *Document, cat *catalogue.Catalogue) Tally {
	r, t := d.Run, d.Tally
	width := len("total")
	for _, a := range t.Areas {
		width = max(width, len(a))
	}
	row := func(name string, c Counts) {
		fmt.Fprintf(w, "%-*s %7d %7d %7d %10d\n", width, name, c.Passed, c.Failed, c.Skipped, c.Error)
	}
	fmt.Fprintf(w, "\nchecks by area\n%-*s %7s %7s %7s %10s\n", width, "area", "passed", "failed", "skipped", "no-verdict")
	for _, a := range t.Areas {
		row(a, *t.ByArea[a])
	}
	row("total", t.Total)
	if ids := t.FailedRuleIDs(); len(ids) > 0 {
		// The closing summary fits one screen: the first rules, then a
		// count; every failure is in report.html and results.json.
		fmt.Fprintf(w, "\nfailed rules (%d):\n", len(ids))
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
		fmt.Fprintf(w, "\nrules: %s (of %d catalogued, %d with a check)\n", RuleCountsLine(d.RuleCounts), all, covered)
	}
	fmt.Fprintf(w, "wall time %s\n", r.Duration.Round(1e6))
	switch {
	case r.Interrupted:
		fmt.Fprintf(w, "INTERRUPTED: %d of %d selected checks not run\n", t.NotRun, t.Selected)
	case r.Stopped != "":
		fmt.Fprintf(w, "STOPPED: %s; %d of %d selected checks not run\n", r.Stopped, t.NotRun, t.Selected)
	case t.NotRun > 0:
		fmt.Fprintf(w, "%d of %d selected checks not run\n", t.NotRun, t.Selected)
	}
	fmt.Fprintf(w, "checks: %s\n", CheckCountsLine(t.Total))
	return t
}

// CheckCountsLine is "477 passed, 9 failed, 0 skipped, 0 no-verdict".
func CheckCountsLine(c Counts) string {
	return fmt.Sprintf("%d passed, %d failed, %d skipped, %d no-verdict", c.Passed, c.Failed, c.Skipped, c.Error)
}

// SummaryRules is how many violated rules the closing summary lists.
var SummaryRules = 12

func clipText(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
