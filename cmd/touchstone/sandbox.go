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
	fs := newFlags("sandbox", "[--addr HOST:PORT] [--profile-out FILE] [--clock real|virtual] [--clock-offset D] [--seed N] [--fault NAME] [--latency D [--jitter D]] [--no-control] [--access-log FILE]", stdout)
	addr := fs.String("addr", "127.0.0.1:8080", "listen address (port 0 picks a free port)")
	profileOut := fs.String("profile-out", "touchstone-profile.json", "where to write the target profile")
	clockKind := fs.String("clock", "real", "real, or virtual (moves only through the control API)")
	seed := fs.Int64("seed", 1, "seed for deterministic ids, keys and fixtures")
	fault := fs.String("fault", "", "run with one documented rule broken (see 'touchstone faults')")
	latency := fs.Duration("latency", 0, "delay every answer by this much, as a remote target's network would (e.g. 30ms)")
	jitter := fs.Duration("jitter", 0, "spread each delay over latency ± jitter (deterministic for a --seed)")
	offset := fs.Duration("clock-offset", 0, "with --clock real: serve this machine's time moved by D (its Date headers and rate-limit minutes start elsewhere than ours)")
	noControl := fs.Bool("no-control", false, "serve as an integrator's sandbox is: no control API (/_sandbox answers 404), no control_url in the profile; needs --clock real")
	accessLog := fs.String("access-log", "", "append one line per request (time, method, URI, status, bytes, duration, X-Touchstone-Case) to FILE")
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	if *latency < 0 || *jitter < 0 {
		fmt.Fprintln(stderr, "touchstone sandbox: --latency and --jitter must not be negative")
		return exitUsage
	}
	if *noControl && *clockKind == "virtual" {
		fmt.Fprintln(stderr, "touchstone sandbox: --no-control needs --clock real (nothing could move a virtual clock)")
		return exitUsage
	}
	if *offset != 0 && *clockKind != "real" {
		fmt.Fprintln(stderr, "touchstone sandbox: --clock-offset needs --clock real")
		return exitUsage
	}
	cfg := sandbox.Config{Seed: *seed, Fault: *fault, NoControl: *noControl}
	serving := sandbox.Serving{Latency: *latency, Jitter: *jitter}
	switch *clockKind {
	case "real":
		cfg.Clock = clock.Real{}
		if *offset != 0 {
			cfg.Clock = clock.Offset{D: *offset}
		}
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
	if *accessLog != "" {
		f, err := os.OpenFile(*accessLog, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			fmt.Fprintf(stderr, "touchstone sandbox: access log: %v\n", err)
			return exitUsage
		}
		defer f.Close()
		serving.AccessLog = f
	}
	// Signals are caught before the profile is written: whoever waits for
	// the profile may stop the sandbox at once.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sig)
	run, err := sandbox.StartServing(cfg, *addr, serving)
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
	if *latency > 0 || *jitter > 0 {
		fmt.Fprintf(stdout, ", latency %s ± %s", *latency, *jitter)
	}
	fmt.Fprintf(stdout, ")\nprofile written to %s\n", *profileOut)
	if run.Profile.ControlURL != "" {
		fmt.Fprintf(stdout, "control API at %s\n", run.Profile.ControlURL)
	} else {
		fmt.Fprintln(stdout, "no control API (checks that need it will skip)")
	}
	fmt.Fprintln(stdout, "press Ctrl-C to stop")
	<-sig
	if err := run.Close(); err != nil {
		fmt.Fprintf(stderr, "touchstone sandbox: %v\n", err)
		return exitNoVerdict
	}
	fmt.Fprintln(stdout, "sandbox stopped")
	return exitOK
}
