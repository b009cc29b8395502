// Package faultproof proves the harness: it runs the checks that name a
// fault's rule against the sandbox started with that fault, and reports
// whether they failed naming that rule. It also runs every check against
// the faithful sandbox, where nothing may fail.
package faultproof

import (
	"context"
	"fmt"

	"github.com/touchstone-harness/touchstone/fixtures/sandbox"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/launch"
)

// Outcome is one fault's verdict.
type Outcome struct {
	Fault       string   `json:"fault"`
	Rule        string   `json:"rule"`
	Description string   `json:"description"`
	Checks      []string `json:"checks"`    // checks that name the rule
	CaughtBy    []string `json:"caught_by"` // checks that failed naming the rule
	Caught      bool     `json:"caught"`
	Note        string   `json:"note,omitempty"`
}

// runnable leaves out checks that wait on real time.
func runnable(c *check.Check) bool { return !c.HasLabel(check.Slow) }

// Prove runs one fault.
func Prove(ctx context.Context, f sandbox.Fault) Outcome {
	o := Outcome{Fault: f.Name, Rule: f.Rule, Description: f.Description}
	if f.Rule == "" {
		o.Note = "fault names no rule"
		return o
	}
	var checks []*check.Check
	for _, c := range check.ForRule(f.Rule) {
		if runnable(c) {
			checks = append(checks, c)
			o.Checks = append(o.Checks, c.ID)
		}
	}
	if len(checks) == 0 {
		o.Note = "no check names rule " + f.Rule
		return o
	}
	l, err := launch.Start(ctx, launch.Options{Seed: 1, Fault: f.Name})
	if err != nil {
		o.Note = "sandbox did not start: " + err.Error()
		return o
	}
	defer l.Close()
	for _, c := range checks {
		res := check.Run(ctx, l.Target, c)
		for _, fl := range res.Failures {
			if fl.Rule == f.Rule {
				o.CaughtBy = append(o.CaughtBy, c.ID)
				break
			}
		}
		if res.Status == check.Error && o.Note == "" {
			o.Note = fmt.Sprintf("%s reached no verdict: %s", c.ID, res.Error)
		}
	}
	o.Caught = len(o.CaughtBy) > 0
	return o
}

// ProveAll runs every fault in order.
func ProveAll(ctx context.Context) []Outcome {
	var out []Outcome
	for _, f := range sandbox.Faults() {
		out = append(out, Prove(ctx, f))
	}
	return out
}

// Baseline runs every runnable check against the faithful sandbox.
func Baseline(ctx context.Context) ([]*check.Result, error) {
	l, err := launch.Start(ctx, launch.Options{Seed: 1})
	if err != nil {
		return nil, err
	}
	defer l.Close()
	var out []*check.Result
	for _, c := range check.All() {
		if runnable(c) {
			out = append(out, check.Run(ctx, l.Target, c))
		}
	}
	return out, nil
}
