// Package faultproof proves the harness: it runs the checks that name a
// fault's rule against the sandbox started with that fault, and reports
// whether they failed naming that rule. It also runs every check against
// the faithful sandbox, where nothing may fail.
package faultproof

import (
	"context"
	"fmt"
	"runtime"
	"sort"
	"sync"

	"github.com/touchstone-harness/touchstone/cmd/touchstone/launch"
	"github.com/touchstone-harness/touchstone/fixtures/sandbox"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/property"
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
	// Source is what the ledger credits: "fault:NAME" for a fault mode,
	// "variant:NAME" for a wrong-server variant.
	Source string `json:"source,omitempty"`
	// FailedUnder are the rule ids the checks' failures were reported
	// under, each declared by the check that reported it: the rules this
	// fault proves able to fail under their own id.
	FailedUnder []string `json:"failed_under,omitempty"`
	// Undeclared are failures under a rule their check does not declare,
	// "check RULE" (a defect of the check: it must report under a rule
	// it names).
	Undeclared []string `json:"undeclared,omitempty"`
}

// FailedUnder sorts a check result's failures by whether the check
// declares their rule: the declared rule ids, and "check RULE" for each
// failure under a rule the check does not name.
func FailedUnder(r *check.Result) (declared, undeclared []string) {
	c := check.Get(r.ID)
	seen := map[string]bool{}
	for _, f := range r.Failures {
		if seen[f.Rule] {
			continue
		}
		seen[f.Rule] = true
		if c != nil && c.Declares(f.Rule) {
			declared = append(declared, f.Rule)
		} else {
			undeclared = append(undeclared, r.ID+" "+f.Rule)
		}
	}
	return declared, undeclared
}

// runnable leaves out checks that wait on real time.
func runnable(c *check.Check) bool { return !c.HasLabel(check.Slow) }

// Prove runs one fault.
func Prove(ctx context.Context, f sandbox.Fault) Outcome {
	o := Outcome{Fault: f.Name, Rule: f.Rule, Description: f.Description, Source: FaultSource + f.Name}
	if f.Rule == "" {
		o.Note = "fault names no rule"
		return o
	}
	// The verdict needs the rule a property failed under, not its shrunk
	// case.
	property.NoShrinking()
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
		o.record(c, check.Run(ctx, l.Target, c))
	}
	o.finish()
	return o
}

// record adds one check's result to the outcome.
func (o *Outcome) record(c *check.Check, res *check.Result) {
	d, u := FailedUnder(res)
	o.FailedUnder = append(o.FailedUnder, d...)
	o.Undeclared = append(o.Undeclared, u...)
	for _, fl := range res.Failures {
		if fl.Rule == o.Rule {
			o.CaughtBy = append(o.CaughtBy, c.ID)
			break
		}
	}
	if res.Status == check.Error && o.Note == "" {
		o.Note = fmt.Sprintf("%s reached no verdict: %s", c.ID, res.Error)
	}
}

func (o *Outcome) finish() {
	o.Caught = len(o.CaughtBy) > 0
	o.FailedUnder = sortedSet(o.FailedUnder)
	o.Undeclared = sortedSet(o.Undeclared)
}

// ProveAll runs every fault, each against its own sandbox, GOMAXPROCS at
// a time; the outcomes are in sandbox.Faults() order.
func ProveAll(ctx context.Context) []Outcome {
	return ProveEach(ctx, sandbox.Faults(), runtime.GOMAXPROCS(0))
}

// ProveEach runs faults at most workers at a time (at least one), each
// against its own sandbox, and returns their outcomes in the order given.
func ProveEach(ctx context.Context, faults []sandbox.Fault, workers int) []Outcome {
	out := make([]Outcome, len(faults))
	workers = max(1, min(workers, len(faults)))
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i] = Prove(ctx, faults[i])
			}
		}()
	}
	for i := range faults {
		next <- i
	}
	close(next)
	wg.Wait()
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

// sortedSet returns the distinct strings of xs, sorted.
func sortedSet(xs []string) []string {
	if len(xs) == 0 {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	sort.Strings(out)
	return out
}
