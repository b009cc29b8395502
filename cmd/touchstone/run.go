package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/formatter"
	"github.com/onsi/ginkgo/v2/types"

	"github.com/touchstone-harness/touchstone/cmd/touchstone/launch"
	"github.com/touchstone-harness/touchstone/internal/catalogue"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/reports"
	"github.com/touchstone-harness/touchstone/suites"
)

func init() {
	commands["run"] = command{summary: "run the conformance suites against a target (default: the embedded sandbox)", run: runRun}
}

type runFlags struct {
	target, labelFilter, focus, out, fault string
	seed                                   int64
	allowLive                              bool
	receiverAddr                           string
	baseline                               string
	certify                                bool
	signingKey                             string
	propertyChecks                         int
	parallel                               int
	propertySeed                           uint64
}

func runRun(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("run", "[--target PROFILE] [--label-filter EXPR] [--focus REGEX] [--out DIR]", stdout)
	var f runFlags
	fs.StringVar(&f.target, "target", "", "target profile (JSON); empty starts the embedded sandbox")
	fs.StringVar(&f.labelFilter, "label-filter", suites.DefaultLabelFilter, "Ginkgo label filter, e.g. 'auth && !needs-control'")
	fs.StringVar(&f.focus, "focus", "", "run only checks whose id, or spec text \"[id] title\" or \"area [id] title\", matches this regular expression")
	fs.StringVar(&f.out, "out", "touchstone-out", "directory for junit.xml and results.json")
	fs.StringVar(&f.fault, "fault", "", "embedded sandbox only: run it with this fault mode")
	fs.Int64Var(&f.seed, "seed", 1, "embedded sandbox only: fixture seed")
	fs.BoolVar(&f.allowLive, "allow-live", false, "allow mutating checks with a live key")
	fs.StringVar(&f.receiverAddr, "receiver-addr", "", "other targets: HOST:PORT the profile's webhook_url is forwarded to; the webhook checks receive deliveries there")
	fs.StringVar(&f.baseline, "baseline", "", "expected failures (JSON: rule, reason, review_by); the run fails on an unexpected failure, a stale entry or an expired one")
	fs.BoolVar(&f.certify, "certify", false, "run the whole catalogue (no --focus or --label-filter) and, when it passes, write a signed certification bundle in OUT/certificate")
	fs.IntVar(&f.parallel, "parallel", 0, "checks run at once (1: one at a time, in check-id order; default 16 against --target, where round trips and the plan's waits dominate, and one per CPU against the embedded sandbox, which shares the CPUs); alone checks always run by themselves")
	fs.IntVar(&f.propertyChecks, "property-checks", 0, "cases each property draws (deep runs); 0 keeps the default (smaller on a real clock, sized to the rate-limit budgets)")
	fs.Uint64Var(&f.propertySeed, "property-seed", 0, "seed of the properties' draws (a failure prints the one that replays it); 0 keeps the fixed default")
	fs.StringVar(&f.signingKey, "signing-key", "", "with --certify: Ed25519 private key (PKCS#8 PEM) to sign the bundle; default a throwaway key whose public half is in the bundle")
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	if code, ok := certifyFlags(fs, &f, stderr); !ok {
		return code
	}
	switch {
	case f.parallel < 0:
		fmt.Fprintf(stderr, "touchstone run: --parallel %d: want at least 1\n", f.parallel)
		return exitUsage
	case f.parallel == 0 && f.target != "":
		f.parallel = 16
	case f.parallel == 0:
		f.parallel = runtime.NumCPU()
	}
	if f.propertyChecks < 0 {
		fmt.Fprintf(stderr, "touchstone run: --property-checks %d: want a positive number of cases (0 keeps the default)\n", f.propertyChecks)
		return exitUsage
	}

	var baseline *reports.Baseline
	if f.baseline != "" {
		b, err := reports.LoadBaseline(f.baseline, catalogue.MustLoad())
		if err != nil {
			fmt.Fprintf(stderr, "touchstone run: --baseline: %v\n", oneLine(err))
			return exitUsage
		}
		baseline = b
	}
	if f.target != "" && f.fault != "" {
		fmt.Fprintln(stderr, "touchstone run: --fault applies to the embedded sandbox only; drop --target or --fault")
		return exitUsage
	}
	filter, err := types.ParseLabelFilter(f.labelFilter)
	if err != nil {
		fmt.Fprintf(stderr, "touchstone run: --label-filter: %v\n", oneLine(err))
		return exitUsage
	}
	var focus *regexp.Regexp
	if f.focus != "" {
		if focus, err = regexp.Compile(f.focus); err != nil {
			fmt.Fprintf(stderr, "touchstone run: --focus: %v\n", oneLine(err))
			return exitUsage
		}
	}
	if selected(filter, focus) == 0 {
		fmt.Fprintf(stderr, "touchstone run: no check matches --label-filter %q%s; nothing to run\n", f.labelFilter, focusNote(f.focus))
		return exitUsage
	}
	if err := targetInputError(f.target, f.fault); err != nil {
		fmt.Fprintf(stderr, "touchstone run: %v\n", oneLine(err))
		return exitUsage
	}
	if err := writableDir(f.out); err != nil {
		fmt.Fprintf(stderr, "touchstone run: --out: %v\n", oneLine(err))
		return exitUsage
	}
	return execute(f, selectedChecks(filter, focus), baseline, stdout, stderr)
}

func focusNote(focus string) string {
	if focus == "" {
		return ""
	}
	return fmt.Sprintf(" and --focus %q", focus)
}

// selected counts the checks a label filter and focus choose: labels are
// the area's and the spec's, focus matches the id or the spec text
// (suites.FocusMatches). Ginkgo is given exactly these checks.
func selected(filter types.LabelFilter, focus *regexp.Regexp) int {
	return len(selectedChecks(filter, focus))
}

func selectedChecks(filter types.LabelFilter, focus *regexp.Regexp) []*check.Check {
	var out []*check.Check
	for _, c := range check.All() {
		if !filter(suites.SpecLabels(c)) {
			continue
		}
		if focus != nil && !suites.FocusMatches(focus, c) {
			continue
		}
		out = append(out, c)
	}
	return out
}

// writableDir makes dir and proves a file can be written in it, before
// anything contacts the target.
func writableDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	fh, err := os.CreateTemp(dir, ".touchstone-probe-*")
	if err != nil {
		return fmt.Errorf("%s is not writable: %v", dir, err)
	}
	fh.Close()
	return os.Remove(fh.Name())
}

func execute(f runFlags, chosen []*check.Check, baseline *reports.Baseline, stdout, stderr io.Writer) int {
	nSelected := len(chosen)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	started := time.Now()
	what := "embedded sandbox"
	if f.target != "" {
		what = f.target
	}
	// A signal marks the run interrupted; Ginkgo (which also hears it)
	// stops the running spec and skips the rest, and the reports are
	// still written.
	var interrupted atomic.Bool
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	go func() {
		if _, ok := <-sigs; ok {
			interrupted.Store(true)
			cancel() // ends starting the target; Ginkgo stops the specs
		}
	}()
	fmt.Fprintf(stdout, "touchstone: starting %s\n", what)
	l, err := launch.Start(ctx, launch.Options{ProfilePath: f.target, Seed: f.seed, Fault: f.fault, AllowLive: f.allowLive, ReceiverAddr: f.receiverAddr})
	if err != nil {
		var ce *launch.ConfigError
		if errors.As(err, &ce) {
			fmt.Fprintf(stderr, "touchstone run: %v\n", err)
			return exitUsage
		}
		if interrupted.Load() {
			fmt.Fprintf(stderr, "touchstone run: interrupted before any check ran: no verdict\n")
			return exitNoVerdict
		}
		fmt.Fprintf(stderr, "touchstone run: no verdict: %v\n", err)
		return exitNoVerdict
	}
	defer l.Close()
	tgt := l.Target
	tgt.Options = check.Options{PropertyChecks: f.propertyChecks, PropertySeed: f.propertySeed}
	red := tgt.Redactor
	console := red.Writer(stdout)
	defer console.Close()
	fmt.Fprintf(console, "target %s (%s)", tgt.Profile.BaseURL, tgt.Profile.Name)
	if f.fault != "" {
		fmt.Fprintf(console, ", fault %s", f.fault)
	}
	if tgt.SchemaError != nil {
		fmt.Fprintf(console, "\nwarning: served OpenAPI documents unusable, responses are not schema-validated: %v", tgt.SchemaError)
	}
	fmt.Fprintf(console, "\nlabel filter %q", f.labelFilter)
	if f.focus != "" {
		fmt.Fprintf(console, ", focus %q", f.focus)
	}
	fmt.Fprintf(console, ", %d checks selected\n", nSelected)
	plan := tgt.Plan()
	est := check.Plan(tgt, chosen)
	if tgt.VirtualClock() {
		fmt.Fprintf(console, "plan: about %d requests from %d checks, %d at a time; the virtual clock moves to a fresh window when a budget is spent\n",
			est.Requests, est.Checks, f.parallel)
	} else {
		fmt.Fprintf(console, "plan: about %d requests and %d failed authentications from %d checks, %d at a time; busiest route budget %s (%d); physical minimum %s (%s)\n",
			est.Requests, est.FailedAuth, est.Checks, f.parallel, est.Busiest, est.BusiestCount, est.Minimum, est.Bound)
	}

	var mu sync.Mutex
	var results []*check.Result
	prog := newProgress(stdout, red, nSelected, plan)
	sched := check.NewSchedule(tgt, chosen, f.parallel)
	// The console hears results in check-id order, as the pool hands them
	// out; the specs only collect them.
	sched.OnResult = func(r *check.Result) {
		replay := ""
		if r.Status == check.Failed {
			replay = reports.ReplayCommand(filepath.Join(f.out, "results.json"), r.CaseID, f.target != "")
		}
		prog.result(r, replay)
	}
	sched.OnFinish = func(*check.Result) { prog.finish1() }
	sched.OnTimetable = func(tt string) {
		prog.Println("the budget probes' clock minutes (counted from the target's current minute):\n" + strings.TrimRight(tt, "\n"))
	}
	collect := func(r *check.Result) {
		mu.Lock()
		results = append(results, r)
		mu.Unlock()
	}
	logFile, err := os.Create(filepath.Join(f.out, "ginkgo.log"))
	if err != nil {
		fmt.Fprintf(stderr, "touchstone run: %v\n", err)
		return exitUsage
	}
	ginkgoLog := red.Writer(logFile)
	prog.start()
	report, _ := runGinkgo(ctx, tgt, sched, collect, chosen, f, ginkgoLog)
	prog.finish()
	if st := plan.Stats(); !tgt.VirtualClock() {
		fmt.Fprintf(console, "traffic: %s; this run took %s against a physical minimum of %s\n", st, time.Since(started).Round(time.Second), est.Minimum)
	}
	ginkgoLog.Close()
	logFile.Close()
	if report.PreRunStats.SpecsThatWillRun > 0 {
		nSelected = report.PreRunStats.SpecsThatWillRun
	}
	for _, reason := range report.SpecialSuiteFailureReasons {
		if strings.Contains(strings.ToLower(reason), "interrupt") {
			interrupted.Store(true)
		}
	}

	run := &reports.Run{Target: tgt.Profile.BaseURL, Started: started.UTC(), Duration: time.Since(started), LabelFilter: f.labelFilter, Focus: f.focus,
		Results: results, Selected: nSelected, Interrupted: interrupted.Load(), Stopped: check.Stopped(tgt),
		Ended: time.Now().UTC(), TargetInfo: reports.DescribeTarget(tgt.Profile), Fault: f.fault,
		Seeds: reports.Seeds{Ginkgo: report.SuiteConfig.RandomSeed}}
	if f.target == "" {
		run.Seeds.Sandbox = f.seed
	}
	run.RootCauses = check.RootCauses(results)
	cat := catalogue.MustLoad()
	if baseline != nil {
		run.Baseline = baseline.Judge(f.baseline, run.Tally(), time.Now())
	}
	doc := reports.NewDocument(run, cat)
	if err := reports.WriteJSON(f.out, doc, red); err != nil {
		fmt.Fprintf(stderr, "touchstone run: write results.json: %v\n", err)
		return exitNoVerdict
	}
	if err := reports.WriteJUnit(f.out, doc, red); err != nil {
		fmt.Fprintf(stderr, "touchstone run: write junit.xml: %v\n", err)
		return exitNoVerdict
	}
	if err := reports.WriteHTML(f.out, doc, cat, red); err != nil {
		fmt.Fprintf(stderr, "touchstone run: write report.html: %v\n", err)
		return exitNoVerdict
	}
	fmt.Fprintf(console, "\nreports: %s/report.html, %s/junit.xml, %s/results.json, %s/ginkgo.log\n", f.out, f.out, f.out, f.out)
	tally := reports.PrintSummary(console, doc, cat)
	for i, rc := range run.RootCauses {
		if i == 0 {
			fmt.Fprintln(console, "\nroot causes (one violation met the same way by many checks; each check's own findings are listed above):")
		}
		fmt.Fprintf(console, "  [%s] %s: in %d checks (%d responses), e.g. %s\n", rc.Rule, clipReason(rc.Reason), len(rc.Checks), rc.Responses, strings.Join(rc.Checks[:min(3, len(rc.Checks))], ", "))
	}
	if run.Baseline != nil {
		for _, line := range run.Baseline.Lines() {
			fmt.Fprintln(console, line)
		}
	}
	certCode := exitOK
	if f.certify {
		certCode = writeCertificate(f, doc, cat, tgt, console, stderr)
	}
	switch {
	case run.Interrupted:
		fmt.Fprintf(stderr, "touchstone run: interrupted: no verdict; %d of %d selected checks not run\n", tally.NotRun, tally.Selected)
		return exitNoVerdict
	case run.Stopped != "":
		fmt.Fprintf(stderr, "touchstone run: no verdict: %s; %d of %d selected checks not run\n", red.String(run.Stopped), tally.NotRun, tally.Selected)
		return exitNoVerdict
	case run.Baseline != nil && !run.Baseline.Passed:
		return exitFailed
	case tally.Total.Failed > 0 && run.Baseline == nil:
		return exitFailed
	case tally.Total.Error > 0 || tally.NotRun > 0:
		return exitNoVerdict
	}
	return certCode
}

// harnessT is the minimal testing.T Ginkgo needs outside `go test`.
type harnessT struct{ failed bool }

func (t *harnessT) Fail() { t.failed = true }

var ginkgoOnce sync.Once

// runGinkgo declares every check as a spec and runs them once; Ginkgo's
// RunSpecs can run only once per process.
// Ginkgo's own reporter writes, verbose and redacted, to log; the console
// shows Touchstone's one line per check.
//
// The checks to run were chosen once (label filter and focus, by
// selectedChecks) and only they are declared: Ginkgo's own focus would
// match its full text, which starts with the suite's description and, on a
// real clock, the lane's containers, so an anchored --focus would choose
// differently there.
func runGinkgo(ctx context.Context, tgt *check.Target, sched *check.Schedule, collect func(*check.Result), chosen []*check.Check, f runFlags, log io.Writer) (types.Report, bool) {
	var report types.Report
	ok := false
	only := make(map[string]bool, len(chosen))
	for _, c := range chosen {
		only[c.ID] = true
	}
	ginkgoOnce.Do(func() {
		testing.Init()
		sc, rc := ginkgo.GinkgoConfiguration()
		suites.DefineWith(suites.Options{Target: func() *check.Target { return tgt }, Collect: collect, Schedule: sched, Context: ctx,
			Select: func(c *check.Check) bool { return only[c.ID] }})
		ginkgo.ReportAfterSuite("touchstone reports", func(r ginkgo.Report) { report = r })
		sc.LabelFilter = f.labelFilter
		sc.Timeout = 30 * time.Minute
		rc.Verbose = true
		rc.SilenceSkips = true
		rc.NoColor = true
		formatter.ColorableStdOut = log
		ok = ginkgo.RunSpecs(&harnessT{}, "Touchstone conformance", sc, rc)
	})
	return report, ok
}

// ansi matches terminal colour codes (Ginkgo colours its parse errors).
var ansi = regexp.MustCompile(`\x1b\[[0-9;]*[A-Za-z]`)

func oneLine(err error) string {
	return strings.Join(strings.Fields(ansi.ReplaceAllString(err.Error(), "")), " ")
}
