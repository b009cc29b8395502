// Package suites turns Touchstone's checks into Ginkgo specs. The checks
// themselves live in one package per documented area (suites/auth,
// suites/idempotency, ...) as plain functions over an HTTP client; this
// package declares one Ginkgo spec per registered check, located at the
// check's Run function (each area's Checks lists them), so that the same
// checks run from `touchstone run`, `go test ./suites/...` and the ginkgo
// CLI, and directly (without Ginkgo) from the fault-mode proof. It imports
// no area: the composition root (cmd/touchstone/allchecks) registers the
// areas', the properties' and the load probes' checks.
package suites

import (
	"context"
	"regexp"
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
	DefineWith(Options{Target: target, Collect: collect})
}

// Options are DefineWith's.
type Options struct {
	Target  func() *check.Target
	Collect func(*check.Result)
	// Schedule, when set (touchstone run), runs the checks on its pool of
	// workers from the first spec on; each spec reports its check's
	// result. The specs are then declared in check-id order inside one
	// container (Ginkgo shuffles only top-level containers), so the order
	// of results is the same run after run. Context ends the pool.
	Schedule *check.Schedule
	Context  context.Context
	// Select, when set, declares only the checks it chooses (touchstone
	// run's label filter and focus, decided once by Selects, so that the
	// run's containers cannot change what a focus matches).
	Select func(*check.Check) bool
}

// DefineWith is Define with options.
func DefineWith(o Options) {
	byArea := map[string][]*check.Check{}
	for _, c := range check.All() {
		if o.Select != nil && !o.Select(c) {
			continue
		}
		byArea[c.Area()] = append(byArea[c.Area()], c)
	}
	areas := make([]string, 0, len(byArea))
	for a := range byArea {
		areas = append(areas, a)
	}
	sort.Strings(areas)
	spec := func(c *check.Check) {
		// The spec keeps Ginkgo's own code location: Ginkgo orders the
		// specs of a container by it, and the run hands results out in
		// check-id order (a spec placed at its check's body ran first a
		// check whose result waits for every earlier one). The body's
		// file and line are the check's (Check.Body): touchstone rules
		// --rule names them.
		It(SpecText(c), Label(SpecLabels(c)...), func(ctx SpecContext) {
			tgt := o.Target()
			var res *check.Result
			if o.Schedule.Has(c.ID) {
				o.Schedule.Start(o.Context)
				if res = o.Schedule.Result(ctx, c.ID); res == nil {
					Skip("interrupted before this check's result was in")
				}
			} else {
				res = check.Run(ctx, tgt, c)
			}
			if o.Collect != nil {
				o.Collect(res)
			}
			report(tgt, res)
		})
	}
	declare := func() {
		for _, area := range areas {
			Describe(area, Label(area), func() {
				for _, c := range byArea[area] {
					spec(c)
				}
			})
		}
	}
	if o.Schedule == nil {
		declare()
		return
	}
	Describe("touchstone", declare)
}

// FocusMatches tells whether a --focus regular expression chooses a check:
// it is matched against the check's id, its spec text ("[id] title") and
// the area and spec text ("area [id] title", Ginkgo's text of the spec on
// a virtual clock), so that ^ anchors at the id ("^auth/"), the spec text
// ("^\[auth/") or the area ("^auth "), whatever containers a run declares.
func FocusMatches(focus *regexp.Regexp, c *check.Check) bool {
	return focus.MatchString(c.ID) || focus.MatchString(SpecText(c)) || focus.MatchString(c.Area()+" "+SpecText(c))
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
