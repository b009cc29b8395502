// Package suites turns Touchstone's checks into Ginkgo specs. The checks
// themselves live in one package per documented area (suites/auth,
// suites/idempotency, ...) as plain functions over an HTTP client; this
// package declares one Ginkgo spec per check, so that the same checks run
// from `touchstone run`, `go test ./suites/...` and the ginkgo CLI, and
// directly (without Ginkgo) from the fault-mode proof.
package suites

import (
	"sort"
	"strings"

	. "github.com/onsi/ginkgo/v2"

	"github.com/touchstone-harness/touchstone/internal/check"
)

// DefaultLabelFilter leaves out checks that wait on real time.
const DefaultLabelFilter = "!slow"

// Define declares a Ginkgo spec for every registered check. target is
// called when a spec runs (after the suite has started its target); each
// result goes to collect.
func Define(target func() *check.Target, collect func(*check.Result)) {
	byArea := map[string][]*check.Check{}
	for _, c := range check.All() {
		byArea[c.Area()] = append(byArea[c.Area()], c)
	}
	areas := make([]string, 0, len(byArea))
	for a := range byArea {
		areas = append(areas, a)
	}
	sort.Strings(areas)
	for _, area := range areas {
		Describe(area, Label(area), func() {
			for _, c := range byArea[area] {
				It(SpecText(c), Label(SpecLabels(c)...), func(ctx SpecContext) {
					tgt := target()
					res := check.Run(ctx, tgt, c)
					if collect != nil {
						collect(res)
					}
					report(tgt, res)
				})
			}
		})
	}
}

// SpecText is a check's spec name: its id, then its title.
func SpecText(c *check.Check) string { return "[" + c.ID + "] " + c.Title }

// SpecLabels are the area, the check's labels and its rule ids.
func SpecLabels(c *check.Check) []string {
	out := []string{c.Area()}
	out = append(out, c.Labels...)
	out = append(out, c.Rules...)
	return out
}

// report translates a result into Ginkgo's vocabulary, redacting every
// string on the way out.
func report(tgt *check.Target, res *check.Result) {
	red := tgt.Redactor
	AddReportEntry("case id", res.CaseID, ReportEntryVisibilityFailureOrVerbose)
	if res.Status == check.Failed || res.Status == check.Error {
		var b strings.Builder
		for _, f := range res.Failures {
			if f.Exchange != nil {
				b.WriteString(f.Exchange.Transcript())
				b.WriteString("\n")
			}
		}
		if b.Len() > 0 {
			AddReportEntry("evidence", red.String(b.String()), ReportEntryVisibilityFailureOrVerbose)
		}
	}
	switch res.Status {
	case check.Skipped:
		Skip(red.String(res.SkipReason))
	case check.Failed:
		Fail(red.String(res.Summary()))
	case check.Error:
		Fail(red.String("NO VERDICT: " + res.Error))
	}
}
