package main

import (
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/property"
	"github.com/touchstone-harness/touchstone/reports"
)

func init() {
	commands["replay"] = command{summary: "re-run one check of a results.json (by case id or check id): exit 0 fixed, 1 still failing, 2 could not replay", run: runReplay}
}

func runReplay(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("replay", "RESULTS CASE [--target PROFILE] [--out DIR]", stdout)
	var f runFlags
	fs.StringVar(&f.target, "target", "", "target profile; default a fresh embedded sandbox with the recorded seed and fault mode")
	fs.StringVar(&f.out, "out", "touchstone-replay", "directory for the replay's reports")
	fs.BoolVar(&f.allowLive, "allow-live", false, "allow mutating checks with a live key")
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
	if len(pos) != 2 {
		fmt.Fprintln(stderr, "touchstone replay: name a results.json and a case: touchstone replay OUT/results.json CASE_ID")
		return exitUsage
	}
	doc, err := reports.ReadJSON(pos[0])
	if err != nil {
		fmt.Fprintf(stderr, "touchstone replay: %v\n", oneLine(err))
		return exitUsage
	}
	want := pos[1]
	id, _, _ := strings.Cut(want, "#")
	var found *reports.ResultDoc
	for i, rd := range doc.Results {
		if rd.CaseID == want || rd.ID == id {
			found = &doc.Results[i]
			break
		}
	}
	if found == nil {
		fmt.Fprintf(stderr, "touchstone replay: %s has no case %q\n", pos[0], want)
		return exitUsage
	}
	var c *check.Check
	for _, cc := range check.All() {
		if cc.ID == found.ID {
			c = cc
		}
	}
	if c == nil {
		fmt.Fprintf(stderr, "touchstone replay: this Touchstone has no check %s\n", found.ID)
		return exitUsage
	}
	for _, l := range found.Logs {
		// A failed property names the seed of its case: drawn first again.
		if seed, ok := strings.CutPrefix(l, property.SeedLog); ok {
			f.propertySeed, _ = strconv.ParseUint(seed, 10, 64)
		}
	}
	if f.target == "" {
		f.seed, f.fault = doc.Seeds.Sandbox, doc.Fault
		if f.seed == 0 {
			f.seed = 1
		}
	}
	f.focus = regexp.QuoteMeta("[" + c.ID + "]")
	if err := targetInputError(f.target, f.fault); err != nil {
		fmt.Fprintf(stderr, "touchstone replay: %v\n", oneLine(err))
		return exitUsage
	}
	if err := writableDir(f.out); err != nil {
		fmt.Fprintf(stderr, "touchstone replay: --out: %v\n", oneLine(err))
		return exitUsage
	}
	fmt.Fprintf(stdout, "replaying %s (was %s in %s)\n", c.ID, found.Status, pos[0])
	code := execute(f, []*check.Check{c}, nil, stdout, stderr)
	again, err := reports.ReadJSON(f.out)
	if err != nil || code == exitUsage || code == exitNoVerdict {
		fmt.Fprintf(stderr, "touchstone replay: could not replay %s (exit %d)\n", c.ID, code)
		return exitUsage
	}
	for _, rd := range again.Results {
		if rd.ID != c.ID {
			continue
		}
		switch rd.Status {
		case check.Passed:
			fmt.Fprintf(stdout, "%s passes now: fixed\n", c.ID)
			return exitOK
		case check.Failed:
			fmt.Fprintf(stdout, "%s still fails\n", c.ID)
			return exitFailed
		default:
			fmt.Fprintf(stderr, "touchstone replay: %s %s: %s%s\n", c.ID, rd.Status, rd.SkipReason, rd.Error)
			return exitUsage
		}
	}
	fmt.Fprintf(stderr, "touchstone replay: %s did not run\n", c.ID)
	os.Stderr.Sync()
	return exitUsage
}
