package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/touchstone-harness/touchstone/cmd/touchstone/launch"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/load"
)

func init() {
	commands["load"] = command{summary: "probe the rate limits and latency with vegeta; `load report DIR...` merges shards", run: runLoad}
}

type loadFlags struct {
	target, probes, out, baseline, maxErrorRate string
	maxRequests                                 uint64
	maxDuration, maxP99, latencyDuration        time.Duration
	latencyRate                                 int
	maxRegression                               float64
	allowDisruptive, allowLive                  bool
}

func runLoad(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "report" {
		return runLoadReport(args[1:], stdout, stderr)
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "touchstone load: "+format+"\n", a...)
		return exitUsage
	}
	f, gates, names, code, ok := parseLoadFlags(args, stdout, stderr)
	if !ok {
		return code
	}
	if err := os.MkdirAll(f.out, 0o755); err != nil {
		return fail("--out: %v", err)
	}

	ctx := context.Background()
	l, err := launch.Start(ctx, launch.Options{ProfilePath: f.target, Seed: 1, AllowLive: f.allowLive})
	if err != nil {
		var ce *launch.ConfigError
		if errors.As(err, &ce) {
			return fail("%v", err)
		}
		fmt.Fprintf(stderr, "touchstone load: no verdict: %v\n", err)
		return exitNoVerdict
	}
	defer l.Close()
	tgt := l.Target
	console := tgt.Redactor.Writer(stdout)
	defer console.Close()
	if !f.allowLive {
		if name := tgt.Profile.LiveRole(); name != "" {
			return fail("keys.%s is a live key: load probes send hundreds of requests and some write; pass --allow-live to opt in", name)
		}
	}
	names, refused := chooseProbes(console, tgt, names, f.allowDisruptive)
	if refused != "" {
		return fail("%s", refused)
	}
	clock := "real clock"
	if tgt.VirtualClock() {
		clock = "virtual clock"
	}
	fmt.Fprintf(console, "target %s (%s, %s); probes %s; results in %s\n", tgt.Profile.BaseURL, tgt.Profile.Name, clock, strings.Join(names, ", "), f.out)

	sess := load.Attach(tgt, load.Options{OutDir: f.out, MaxRequests: f.maxRequests, MaxDuration: f.maxDuration,
		LatencyRate: f.latencyRate, LatencyDuration: f.latencyDuration})
	started := time.Now()
	sums, noVerdict := runProbes(ctx, console, tgt, sess, names)
	return finishLoad(console, stderr, f.out, sums, gates, noVerdict, time.Since(started))
}

// parseLoadFlags reads touchstone load's flags: the options, the gates and
// the probes named (nil: the default set). ok false: exit with code.
func parseLoadFlags(args []string, stdout, stderr io.Writer) (f loadFlags, gates load.Gates, names []string, code int, ok bool) {
	fs := newFlags("load", "[--target PROFILE] [--probe NAME[,NAME...]] [--out DIR] [--max-requests N] [--max-duration D] [--allow-disruptive] [--allow-live] [--max-p99 D] [--max-error-rate P%] [--baseline FILE]", stdout)
	d := load.DefaultOptions()
	fs.StringVar(&f.target, "target", "", "target profile (JSON); empty starts the embedded sandbox on a virtual clock")
	fs.StringVar(&f.probes, "probe", "", "comma-separated probes (default: all; disruptive ones only where allowed): "+strings.Join(load.Probes, ", "))
	fs.StringVar(&f.out, "out", "touchstone-load", "directory for <probe>.bin, <probe>.json, summary.json and load.html")
	fs.Uint64Var(&f.maxRequests, "max-requests", d.MaxRequests, "bound on the requests of any one attack")
	fs.DurationVar(&f.maxDuration, "max-duration", d.MaxDuration, "bound on the duration of any one attack")
	fs.IntVar(&f.latencyRate, "latency-rate", d.LatencyRate, "latency probe: requests per second")
	fs.DurationVar(&f.latencyDuration, "latency-duration", d.LatencyDuration, "latency probe: how long")
	fs.BoolVar(&f.allowDisruptive, "allow-disruptive", false, "run tenant-ceiling and failed-auth against a target that is not a sandbox")
	fs.BoolVar(&f.allowLive, "allow-live", false, "allow probes with a live key")
	fs.DurationVar(&f.maxP99, "max-p99", 0, "fail when the latency probe's p99 exceeds this (0: no gate)")
	fs.StringVar(&f.maxErrorRate, "max-error-rate", "", "fail when the latency probe's error rate exceeds this, e.g. 0.1%")
	fs.StringVar(&f.baseline, "baseline", "", "summary.json of an earlier run: flag p99/throughput regressions")
	fs.Float64Var(&f.maxRegression, "max-regression", 1.2, "with --baseline: allowed ratio to the baseline")
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return f, gates, nil, code, false
	}
	fail := func(format string, a ...any) (loadFlags, load.Gates, []string, int, bool) {
		fmt.Fprintf(stderr, "touchstone load: "+format+"\n", a...)
		return f, gates, nil, exitUsage, false
	}
	gates = load.Gates{MaxP99: f.maxP99, MaxErrorRate: -1, MaxRegression: f.maxRegression}
	if f.maxErrorRate != "" {
		v, err := parsePercent(f.maxErrorRate)
		if err != nil {
			return fail("--max-error-rate: %v", err)
		}
		gates.MaxErrorRate = v
	}
	if f.baseline != "" {
		b, err := readBaseline(f.baseline)
		if err != nil {
			return fail("--baseline: %v", err)
		}
		gates.Baseline = b
	}
	if f.probes != "" {
		for _, n := range strings.Split(f.probes, ",") {
			n = strings.TrimSpace(n)
			if load.Check(n) == nil {
				return fail("--probe: unknown probe %q (known: %s)", n, strings.Join(load.Probes, ", "))
			}
			names = append(names, n)
		}
	}
	return f, gates, names, 0, true
}

// chooseProbes is the probes to run against tgt: names, or by default every
// probe, the disruptive ones only against a sandbox or where allowed. A
// disruptive probe named against another target without the opt-in is
// refused (the reason).
func chooseProbes(console io.Writer, tgt *check.Target, names []string, allowDisruptive bool) ([]string, string) {
	sandbox := tgt.Control != nil
	if names == nil {
		for _, n := range load.Probes {
			if load.IsDisruptive(n) && !sandbox && !allowDisruptive {
				fmt.Fprintf(console, "skipping disruptive probe %s (pass --allow-disruptive): it %s\n", n, load.Warnings[n])
				continue
			}
			names = append(names, n)
		}
	}
	for _, n := range names {
		if load.IsDisruptive(n) && !sandbox {
			if !allowDisruptive {
				return nil, fmt.Sprintf("probe %s is disruptive: it %s; pass --allow-disruptive to run it against %s", n, load.Warnings[n], tgt.Profile.BaseURL)
			}
			fmt.Fprintf(console, "WARNING: probe %s %s\n", n, load.Warnings[n])
		}
	}
	return names, ""
}

// runProbes runs the probes one after the other, prints each verdict and
// hands each result to the session, which files it in the probe's summary.
func runProbes(ctx context.Context, console io.Writer, tgt *check.Target, sess *load.Session, names []string) (sums []*load.Summary, noVerdict bool) {
	for _, n := range names {
		r := check.Run(ctx, tgt, load.Check(n))
		fmt.Fprintf(console, "  %-7s load/%s (%s)\n", strings.ToUpper(string(r.Status)), n, r.Duration.Round(time.Millisecond))
		for _, line := range r.Logs {
			fmt.Fprintf(console, "          %s\n", line)
		}
		if r.Status != check.Passed {
			for _, line := range strings.Split(r.Summary(), "\n") {
				fmt.Fprintf(console, "          %s\n", line)
			}
		}
		noVerdict = noVerdict || r.Status == check.Error
		if s := sess.Judged(r); s != nil {
			sums = append(sums, s)
		}
	}
	return sums, noVerdict
}

func finishLoad(console, stderr io.Writer, out string, sums []*load.Summary, gates load.Gates, noVerdict bool, took time.Duration) int {
	verdicts := load.Judge(sums, gates)
	if err := load.WriteReport(out, sums, verdicts, gates); err != nil {
		fmt.Fprintf(stderr, "touchstone load: write report: %v\n", err)
		return exitNoVerdict
	}
	failed := 0
	for _, v := range verdicts {
		switch {
		case v.NoVerdict:
			noVerdict = true
			fmt.Fprintf(console, "NO VERDICT %s: %s\n", v.Probe, v.Message)
		case !v.Passed:
			failed++
			fmt.Fprintf(console, "FAIL %s %s: %s\n", v.Probe, v.What, v.Message)
		}
	}
	fmt.Fprintf(console, "\n%d probes, %d failed verdicts, %s; report %s\n", len(sums), failed, took.Round(time.Millisecond), filepath.Join(out, "load.html"))
	switch {
	case failed > 0:
		return exitFailed
	case noVerdict:
		return exitNoVerdict
	}
	return exitOK
}

func runLoadReport(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("load report", "[--out DIR] [--max-p99 D] [--max-error-rate P%] [--baseline FILE] DIR...", stdout)
	out := fs.String("out", "touchstone-load-merged", "directory for the merged summary.json and load.html")
	maxP99 := fs.Duration("max-p99", 0, "fail when the latency probe's p99 exceeds this")
	maxErr := fs.String("max-error-rate", "", "fail when the latency probe's error rate exceeds this, e.g. 0.1%")
	baseline := fs.String("baseline", "", "summary.json of an earlier run")
	maxReg := fs.Float64("max-regression", 1.2, "with --baseline: allowed ratio")
	// Flags first, then the result directories.
	var dirs []string
	for i, a := range args {
		if !strings.HasPrefix(a, "-") && (i == 0 || !needsValue(args[i-1])) {
			dirs = append(dirs, a)
		}
	}
	var flagArgs []string
	for _, a := range args {
		if !contains(dirs, a) {
			flagArgs = append(flagArgs, a)
		}
	}
	if code, ok := parseFlags(fs, flagArgs, stderr); !ok {
		return code
	}
	if len(dirs) == 0 {
		fmt.Fprintln(stderr, "touchstone load report: name at least one result directory")
		return exitUsage
	}
	gates := load.Gates{MaxP99: *maxP99, MaxErrorRate: -1, MaxRegression: *maxReg}
	if *maxErr != "" {
		v, err := parsePercent(*maxErr)
		if err != nil {
			fmt.Fprintf(stderr, "touchstone load report: --max-error-rate: %v\n", err)
			return exitUsage
		}
		gates.MaxErrorRate = v
	}
	if *baseline != "" {
		b, err := readBaseline(*baseline)
		if err != nil {
			fmt.Fprintf(stderr, "touchstone load report: --baseline: %v\n", err)
			return exitUsage
		}
		gates.Baseline = b
	}
	sums, err := load.Merge(dirs)
	if err != nil {
		fmt.Fprintf(stderr, "touchstone load report: %v\n", err)
		return exitUsage
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintf(stderr, "touchstone load report: --out: %v\n", err)
		return exitUsage
	}
	if len(dirs) == 1 {
		fmt.Fprintf(stdout, "re-rendered %s\n", dirs[0])
	} else {
		fmt.Fprintf(stdout, "merged %d shard directories\n", len(dirs))
	}
	return finishLoad(stdout, stderr, *out, sums, gates, false, 0)
}

// parsePercent reads "0.1%" (or a plain fraction, "0.001").
func parsePercent(s string) (float64, error) {
	if v, ok := strings.CutSuffix(strings.TrimSpace(s), "%"); ok {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f < 0 {
			return 0, fmt.Errorf("%q is not a percentage", s)
		}
		return f / 100, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || f > 1 {
		return 0, fmt.Errorf("%q is neither a percentage (0.1%%) nor a fraction", s)
	}
	return f, nil
}

// readBaseline reads an earlier summary.json (or one probe's JSON).
func readBaseline(path string) (map[string]*load.Summary, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var all struct {
		Probes []*load.Summary `json:"probes"`
	}
	out := map[string]*load.Summary{}
	if err := json.Unmarshal(b, &all); err == nil && len(all.Probes) > 0 {
		for _, s := range all.Probes {
			out[s.Probe] = s
		}
		return out, nil
	}
	var one load.Summary
	if err := json.Unmarshal(b, &one); err != nil || one.Probe == "" {
		return nil, fmt.Errorf("%s is not a load summary", path)
	}
	out[one.Probe] = &one
	return out, nil
}

// needsValue tells whether a `load report` flag takes the next argument.
func needsValue(flagArg string) bool {
	if strings.Contains(flagArg, "=") {
		return false
	}
	switch strings.TrimLeft(flagArg, "-") {
	case "out", "max-p99", "max-error-rate", "baseline", "max-regression":
		return true
	}
	return false
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
