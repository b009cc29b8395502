package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/touchstone-harness/touchstone/internal/catalogue"
	"github.com/touchstone-harness/touchstone/internal/check"
)

// printNeedsControl lists what a target without the sandbox control API
// cannot have judged (touchstone rules --needs-control): the checks that
// skip there and why (what only the control API does: check.ControlWhy),
// the checks that run there but judge some of their rules only with it
// (check.ControlRules), and the catalogue's rules every check of which is
// one of those, so that no run against such a target judges them.
func printNeedsControl(w io.Writer, cat *catalogue.Catalogue, area string) {
	areaOf := map[string]string{}
	for _, r := range cat.Rules {
		areaOf[r.ID] = r.Area
	}
	// A check belongs to the area it is in or that a rule it judges only
	// with the control API is in (property/customer-lifecycle: lifecycle).
	inArea := func(c *check.Check) bool {
		rules := c.ControlRules
		if c.HasLabel(check.NeedsControl) {
			rules = c.Rules
		}
		return area == "" || c.Area() == area || slices.ContainsFunc(rules, func(r string) bool { return areaOf[r] == area })
	}
	var skipping, partial []*check.Check
	for _, c := range check.All() {
		if !inArea(c) {
			continue
		}
		switch {
		case c.HasLabel(check.NeedsControl):
			skipping = append(skipping, c)
		case len(c.ControlRules) > 0:
			partial = append(partial, c)
		}
	}
	why := func(c *check.Check) string {
		if w := c.ControlNeed(); w != "" {
			return w
		}
		return "(no reason declared or measured)"
	}
	fmt.Fprintf(w, "checks skipped on a target without the control API (%d):\n", len(skipping))
	for _, c := range skipping {
		fmt.Fprintf(w, "  %s  [%s]\n      %s%s\n", c.ID, strings.Join(c.Rules, ", "), why(c), callsNote(c))
	}
	fmt.Fprintf(w, "\nchecks that run there but judge some rules only with it (%d):\n", len(partial))
	for _, c := range partial {
		fmt.Fprintf(w, "  %s  not judged there: %s\n      %s%s\n", c.ID, strings.Join(c.ControlRules, ", "), why(c), callsNote(c))
	}
	need, total := 0, 0
	fmt.Fprintln(w, "\nrules no check judges on a target without the control API:")
	for _, r := range cat.Rules {
		if (area != "" && r.Area != area) || len(r.Checks) == 0 {
			continue
		}
		total++
		var by []string
		judged := false
		for _, id := range r.Checks {
			c := check.Get(id)
			switch {
			case c == nil:
			case c.HasLabel(check.NeedsControl), slices.Contains(c.ControlRules, r.ID):
				by = append(by, id)
			default:
				judged = true
			}
		}
		if judged || len(by) == 0 {
			continue
		}
		need++
		fmt.Fprintf(w, "  %-10s [%s] %s\n  %-10s only by: %s\n", r.ID, sectionRef(r), r.Rule, "", strings.Join(by, ", "))
	}
	printControlRanking(w, cat, area)
	fmt.Fprintf(w, "\nrules needing the control API: %d/%d checked\n", need, total)
}

// callsNote names the control calls a check was measured making.
func callsNote(c *check.Check) string {
	if calls := c.ControlCalls(); len(calls) > 0 {
		return "\n      control calls: " + strings.Join(calls, ", ")
	}
	return ""
}
