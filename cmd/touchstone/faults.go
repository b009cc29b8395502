package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"strings"

	"github.com/touchstone-harness/touchstone/cmd/touchstone/faultproof"
	"github.com/touchstone-harness/touchstone/fixtures/sandbox"
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
	// Faults run in parallel, one sandbox each; outcomes keep fault order.
	for i, o := range faultproof.ProveEach(context.Background(), faults, runtime.GOMAXPROCS(0)) {
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
	if caught != len(faults) {
		return exitFailed
	}
	return exitOK
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
