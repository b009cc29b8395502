package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"strings"

	"github.com/touchstone-harness/touchstone/fixtures/sandbox"
	"github.com/touchstone-harness/touchstone/internal/faultproof"
)

func init() {
	commands["faults"] = command{summary: "prove the harness: run the checks against every sandbox fault mode", run: runFaults}
}

func runFaults(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("faults", "[--fault NAME]", stdout)
	only := fs.String("fault", "", "prove only this fault mode")
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	faults := sandbox.Faults()
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
