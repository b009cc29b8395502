package main

import (
	"fmt"
	"io"
)

func init() {
	commands["run"] = command{summary: "run the conformance suites against a target (default: the embedded sandbox)", run: runRun}
}

func runRun(args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "touchstone run: not yet wired")
	return exitUsage
}
