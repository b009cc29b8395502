package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"sort"
	"strings"

	"github.com/touchstone-harness/touchstone/cmd/touchstone/faultproof"
	"github.com/touchstone-harness/touchstone/fixtures/sandbox"
	"github.com/touchstone-harness/touchstone/internal/catalogue"
)

func init() {
	commands["faults"] = command{summary: "prove the harness: run the checks against every sandbox fault mode (--list: name them)", run: runFaults}
}

func runFaults(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("faults", "[--fault NAME] | --list", stdout)
	only := fs.String("fault", "", "prove only this fault mode")
	list := fs.Bool("list", false, "list every fault mode (name, the rule it breaks, what it does) without running anything")
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	faults := sandbox.Faults()
	if *list {
		if *only != "" {
			faults = nil
			if f, err := sandbox.LookupFault(*only); err == nil {
				faults = []sandbox.Fault{f}
			} else {
				fmt.Fprintf(stderr, "touchstone faults: %v\n", err)
				return exitUsage
			}
		}
		return listFaults(stdout, faults)
	}
	if *only != "" {
		f, err := sandbox.LookupFault(*only)
		if err != nil {
			fmt.Fprintf(stderr, "touchstone faults: %v\n", err)
			return exitUsage
		}
		faults = []sandbox.Fault{f}
	}
	fmt.Fprintf(stdout, "%-42s %-10s %-7s %s\n", "fault", "rule", "verdict", "by")
	caught := 0
	proofs := faultproof.NewProofs()
	var stray, wide []string
	// Faults run in parallel, one sandbox each; outcomes keep fault order.
	for i, o := range faultproof.ProveEach(context.Background(), faults, runtime.GOMAXPROCS(0)) {
		proofs.AddOutcome(o)
		for _, s := range o.Stray {
			stray = append(stray, o.Fault+" also breaks "+s)
		}
		if others := o.Others(); o.Caught && len(others) > 0 {
			wide = append(wide, fmt.Sprintf("%s also made its checks fail under %s", o.Fault, strings.Join(others, ", ")))
		}
		f := faults[i]
		verdict, by := "MISSED", o.Note
		if o.Caught {
			caught++
			verdict, by = "caught", strings.Join(o.CaughtBy, ", ")
		}
		rule := o.Rule
		if rule == "" {
			rule = "-"
		}
		fmt.Fprintf(stdout, "%-42s %-10s %-7s %s\n", f.Name, rule, verdict, by)
	}
	fmt.Fprintf(stdout, "faults caught: %d/%d\n", caught, len(faults))
	ok := caught == len(faults)
	if *only == "" {
		// The whole proof: the wrong server and its variants too, and
		// what it shows of every checked rule.
		ok = proveRules(stdout, proofs, &stray, &wide) && ok
	}
	for _, s := range wide {
		fmt.Fprintf(stdout, "not precise (proves its rule only when its checks fail under nothing else): %s\n", s)
	}
	for _, s := range stray {
		fmt.Fprintf(stdout, "imprecise: %s\n", s)
	}
	if !ok || len(stray) > 0 {
		return exitFailed
	}
	return exitOK
}

// proveRules runs the server that honours nothing and every wrong-server
// variant, prints the variants' table, the failures under a rule their
// check does not declare, and ends with `rules proven: P/C`: the checked
// spec rules (kind must) some fault or variant made a check fail under.
func proveRules(w io.Writer, proofs *faultproof.Proofs, stray, wide *[]string) bool {
	ctx := context.Background()
	ok := true
	if results, err := faultproof.AgainstWrongServer(ctx); err == nil {
		proofs.AddResults(faultproof.WrongServerSource, results)
	} else {
		fmt.Fprintf(w, "wrong server: %v\n", err)
		ok = false
	}
	vs := faultproof.Variants()
	fmt.Fprintf(w, "\n%-50s %-10s %-7s %s\n", "wrong-server variant", "rule", "verdict", "by")
	caught := 0
	for _, v := range vs {
		o := faultproof.ProveVariant(ctx, v)
		proofs.AddOutcome(o)
		for _, s := range o.Stray {
			*stray = append(*stray, v.Name+" also breaks "+s)
		}
		if others := o.Others(); o.Caught && len(others) > 0 {
			*wide = append(*wide, fmt.Sprintf("%s also made its checks fail under %s", v.Name, strings.Join(others, ", ")))
		}
		verdict, by := "MISSED", o.Note
		if o.Caught {
			caught++
			verdict, by = "caught", strings.Join(o.CaughtBy, ", ")
		}
		fmt.Fprintf(w, "%-50s %-10s %-7s %s\n", v.Name, v.Rule, verdict, by)
	}
	fmt.Fprintf(w, "variants caught: %d/%d\n", caught, len(vs))
	ok = ok && caught == len(vs)
	var undeclared []string
	for u, src := range proofs.Undeclared {
		undeclared = append(undeclared, u+" (under "+src+")")
	}
	sort.Strings(undeclared)
	for _, u := range undeclared {
		fmt.Fprintf(w, "failed under a rule its check does not declare: %s\n", u)
	}
	cat := catalogue.MustLoad()
	ledger := proofs.Ledger(cat, catalogue.MustLoadProof())
	proven, unproven := cat.SpecStatus(ledger)
	fmt.Fprintf(w, "checked spec rules not shown failing under their own id: %d (touchstone rules lists them with why)\n", len(unproven))
	fmt.Fprintf(w, "rules proven: %d/%d\n", len(proven), len(proven)+len(unproven))
	return ok && len(undeclared) == 0
}

// listFaults prints one line per fault mode: name, rule, description, and
// the count last.
func listFaults(w io.Writer, faults []sandbox.Fault) int {
	width := len("fault")
	for _, f := range faults {
		width = max(width, len(f.Name))
	}
	fmt.Fprintf(w, "%-*s %-10s %s\n", width, "fault", "rule", "what it breaks")
	for _, f := range faults {
		rule := f.Rule
		if rule == "" {
			rule = "-"
		}
		fmt.Fprintf(w, "%-*s %-10s %s\n", width, f.Name, rule, f.Description)
	}
	fmt.Fprintf(w, "%d fault modes; use one with touchstone run --fault NAME or touchstone sandbox --fault NAME\n", len(faults))
	return exitOK
}
