// Command touchstone tells whether a server honours the Partner
// Money-Movement API contract, and how it behaves under load.
//
// With no arguments it runs the main job: start the embedded sandbox, run
// every suite against it, write the reports and print a summary.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	// The composition root: every check the runner runs (the areas', the
	// properties' and the load probes') registers here, and nowhere else.
	_ "github.com/touchstone-harness/touchstone/cmd/touchstone/allchecks"
)

// Exit codes.
const (
	exitOK        = 0
	exitFailed    = 1 // a spec failed
	exitUsage     = 2 // usage or configuration error
	exitNoVerdict = 3 // the harness could not reach a verdict
)

type command struct {
	summary string
	run     func(args []string, stdout, stderr io.Writer) int
}

var commands = map[string]command{}

func main() {
	os.Exit(dispatch(os.Args[1:], os.Stdout, os.Stderr))
}

func dispatch(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		return commands["run"].run(nil, stdout, stderr)
	}
	name := args[0]
	if name == "-h" || name == "--help" || name == "help" {
		usage(stdout)
		return exitOK
	}
	cmd, ok := commands[name]
	if !ok {
		if strings.HasPrefix(name, "-") {
			// Flags without a subcommand belong to the main job.
			return commands["run"].run(args, stdout, stderr)
		}
		fmt.Fprintf(stderr, "touchstone: unknown command %q (run 'touchstone help')\n", name)
		return exitUsage
	}
	return cmd.run(args[1:], stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "touchstone: conformance and load harness for the Partner Money-Movement API")
	fmt.Fprintln(w, "\nUsage: touchstone [command] [flags]   (no command: run every suite against the embedded sandbox)")
	fmt.Fprintln(w, "\nCommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-9s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'touchstone <command> --help' for a command's flags.")
}

// newFlags returns a flag set that reports errors as one line and never
// exits by itself.
func newFlags(name, synopsis string, stdout io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {
		fmt.Fprintf(stdout, "Usage: touchstone %s %s\n\nFlags:\n", name, synopsis)
		fs.SetOutput(stdout)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
	return fs
}

// parseFlags parses and turns errors into one line; it returns ok=false
// with the exit code to use.
func parseFlags(fs *flag.FlagSet, args []string, stderr io.Writer) (int, bool) {
	// The flag package prints the usage on any parse error; only --help
	// should: an error is one line on stderr.
	usage := fs.Usage
	fs.Usage = func() {}
	err := fs.Parse(args)
	fs.Usage = usage
	if errors.Is(err, flag.ErrHelp) {
		fs.Usage()
		return exitOK, false
	}
	if err != nil {
		fmt.Fprintf(stderr, "touchstone %s: %v\n", fs.Name(), err)
		return exitUsage, false
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "touchstone %s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		return exitUsage, false
	}
	return 0, true
}
