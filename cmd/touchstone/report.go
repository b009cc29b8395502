package main

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/touchstone-harness/touchstone/internal/catalogue"
	"github.com/touchstone-harness/touchstone/internal/redact"
	"github.com/touchstone-harness/touchstone/reports"
)

func init() {
	commands["report"] = command{summary: "re-render DIR/report.html from DIR/results.json, or --compare OLD NEW: the rules whose status changed (exit 1 on a new failure)", run: runReport}
}

func runReport(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("report", "DIR | --compare OLD_DIR NEW_DIR", stdout)
	compare := fs.Bool("compare", false, "compare two result directories (or results.json files): new failures, fixed, newly skipped; exit 1 on a new failure")
	var pos []string
	rest := args
	for {
		p, r := splitPositional(rest)
		if p == "" {
			break
		}
		pos, rest = append(pos, p), r
	}
	if code, ok := parseFlags(fs, rest, stderr); !ok {
		return code
	}
	cat := catalogue.MustLoad()
	if *compare {
		if len(pos) != 2 {
			fmt.Fprintln(stderr, "touchstone report: --compare takes two result directories: OLD NEW")
			return exitUsage
		}
		old, err := reports.ReadJSON(pos[0])
		if err != nil {
			fmt.Fprintf(stderr, "touchstone report: %v\n", oneLine(err))
			return exitUsage
		}
		cur, err := reports.ReadJSON(pos[1])
		if err != nil {
			fmt.Fprintf(stderr, "touchstone report: %v\n", oneLine(err))
			return exitUsage
		}
		if reports.PrintChanges(stdout, reports.Compare(old, cur, cat)) > 0 {
			return exitFailed
		}
		return exitOK
	}
	if len(pos) != 1 {
		fmt.Fprintln(stderr, "touchstone report: name one result directory (touchstone report DIR), or --compare OLD NEW")
		return exitUsage
	}
	doc, err := reports.ReadJSON(pos[0])
	if err != nil {
		fmt.Fprintf(stderr, "touchstone report: %v\n", oneLine(err))
		return exitUsage
	}
	dir := pos[0]
	if filepath.Ext(dir) == ".json" {
		dir = filepath.Dir(dir)
	}
	// results.json is already redacted; the generic patterns still run.
	if err := reports.WriteHTML(dir, doc, cat, redact.New()); err != nil {
		fmt.Fprintf(stderr, "touchstone report: %v\n", oneLine(err))
		return exitNoVerdict
	}
	fmt.Fprintf(stdout, "wrote %s\n", filepath.Join(dir, "report.html"))
	return exitOK
}
