package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/touchstone-harness/touchstone/fixtures/clock"
	"github.com/touchstone-harness/touchstone/fixtures/sandbox"
)

func init() {
	commands["sandbox"] = command{summary: "serve the embedded reference sandbox and write its target profile", run: runSandbox}
}

func runSandbox(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("sandbox", "[--addr HOST:PORT] [--profile-out FILE] [--clock real|virtual] [--seed N] [--fault NAME]", stdout)
	addr := fs.String("addr", "127.0.0.1:8080", "listen address (port 0 picks a free port)")
	profileOut := fs.String("profile-out", "touchstone-profile.json", "where to write the target profile")
	clockKind := fs.String("clock", "real", "real, or virtual (moves only through the control API)")
	seed := fs.Int64("seed", 1, "seed for deterministic ids, keys and fixtures")
	fault := fs.String("fault", "", "run with one documented rule broken (see 'touchstone faults')")
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	cfg := sandbox.Config{Seed: *seed, Fault: *fault}
	switch *clockKind {
	case "real":
		cfg.Clock = clock.Real{}
	case "virtual":
		cfg.Clock = clock.NewVirtual(sandbox.VirtualStart)
	default:
		fmt.Fprintf(stderr, "touchstone sandbox: --clock must be real or virtual, not %q\n", *clockKind)
		return exitUsage
	}
	if *fault != "" {
		if _, err := sandbox.LookupFault(*fault); err != nil {
			fmt.Fprintf(stderr, "touchstone sandbox: %v\n", err)
			return exitUsage
		}
	}
	run, err := sandbox.Start(cfg, *addr)
	if err != nil {
		fmt.Fprintf(stderr, "touchstone sandbox: cannot listen on %s: %v\n", *addr, err)
		return exitUsage
	}
	if err := run.Profile.Write(*profileOut); err != nil {
		fmt.Fprintf(stderr, "touchstone sandbox: cannot write profile: %v\n", err)
		_ = run.Close()
		return exitUsage
	}
	fmt.Fprintf(stdout, "sandbox listening on %s (clock %s, seed %d", run.BaseURL, *clockKind, *seed)
	if *fault != "" {
		fmt.Fprintf(stdout, ", fault %s", *fault)
	}
	fmt.Fprintf(stdout, ")\nprofile written to %s\ncontrol API at %s\npress Ctrl-C to stop\n", *profileOut, run.Profile.ControlURL)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
	if err := run.Close(); err != nil {
		fmt.Fprintf(stderr, "touchstone sandbox: %v\n", err)
		return exitNoVerdict
	}
	fmt.Fprintln(stdout, "sandbox stopped")
	return exitOK
}
