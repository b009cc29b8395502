// Package property holds rapid models of the documented rules: each draws
// operation sequences or inputs, drives any target over HTTP through the
// harness's check.T, and compares every answer with a model. Each model is
// registered as a check (id "property/<name>", label "property") so it
// runs inside `touchstone run` and under `go test ./property/...`.
package property

import (
	"flag"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
)

// Label marks every property check.
const Label = "property"

// DefaultChecks is the number of cases a property draws in a default run
// (kept small so every property together costs about a second); the run's
// --property-checks (check.Options.PropertyChecks) raises it for deep runs.
const DefaultChecks = 25

// DefaultSeed seeds every property when the run names no seed.
const DefaultSeed = 1

// realClockChecks caps the default on a target whose clock cannot be moved
// (about 90 requests a case, split over a GET and a PATCH route).
const realClockChecks = 5

// caseShare divides the case count of the properties whose cases are
// expensive (hundreds of requests each), so a default run stays fast.
var caseShare = map[string]int{"property/rate-windows": 8}

// caseBoost multiplies the default case count of cheap properties whose
// faults need a longer drawn path (initiate, a pending_review decision,
// then a money route) than the default count reliably draws.
var caseBoost = map[string]int{"property/customer-lifecycle": 2}

// cases is how many cases property id draws against t's target: the run's
// --property-checks, else the default (sized to a real clock), shared or
// boosted per property.
func cases(t *check.T, id string) (n int, why string) {
	o := t.Target().Options
	switch {
	case o.PropertyChecks > 0:
		n, why = o.PropertyChecks, "--property-checks"
	case !t.Target().VirtualClock():
		// A real clock cannot be moved to a fresh rate-limit window: the
		// traffic plan would wait whole minutes for a deep default.
		n, why = realClockChecks, "real clock: sized to the rate-limit budgets (--property-checks raises it)"
	default:
		n, why = DefaultChecks*max(1, caseBoost[id]), "default"
	}
	if d := caseShare[id]; d > 1 {
		n = max(2, n/d)
	}
	if o.PropertyChecks == 0 {
		// A distant target: a property's cases are one request after
		// another, so its default is sized to a time allowance from the
		// target's round trip and the property's declared traffic.
		rtt := t.Target().Plan().RoundTrip()
		declared := check.Spends()[id].Requests
		if full := DefaultChecks * max(1, caseBoost[id]) / max(1, caseShare[id]); rtt > 0 && declared > 0 && full > 0 {
			perCase := time.Duration(declared/full+1) * rtt
			if fit := int(caseAllowance / perCase); fit < n {
				n = max(2, fit)
				why = fmt.Sprintf("sized to the target's round trip (%s): about %s", rtt.Round(time.Millisecond), caseAllowance)
			}
		}
	}
	return n, why
}

// caseAllowance is about how long a property's default cases may take
// against a distant target (a deep run sets its own count).
const caseAllowance = 3 * time.Second

// configureRapid sets rapid's own flags, which it reads as process-wide
// globals, once for the process (before any property runs, so that
// properties running side by side read them without a race): no fail
// files in the working directory (a faulted sandbox fails properties on
// purpose; the failure carries the seed), the seed, and a ceiling on the
// cases rapid draws; each property stops at its own count (limit).
// Flags given explicitly on the command line (go test -rapid.checks=N)
// win.
var (
	rapidMu         sync.Mutex
	rapidConfigured bool
	noShrink        bool // NoShrinking was called
)

func configureRapid(o check.Options) {
	rapidMu.Lock()
	defer rapidMu.Unlock()
	if rapidConfigured {
		return
	}
	rapidConfigured = true
	if !flag.Parsed() {
		// Outside go test (touchstone run): rapid reads testing.Short
		// and its own -rapid.* flags, which need the testing flags
		// registered and the command line parsed (with no arguments:
		// touchstone parses its own).
		testing.Init()
		_ = flag.CommandLine.Parse(nil)
	}
	set := func(name, value string) {
		explicit := false
		flag.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == name })
		if f := flag.Lookup(name); f != nil && !explicit {
			_ = f.Value.Set(value)
		}
	}
	seed := o.PropertySeed
	if seed == 0 {
		seed = DefaultSeed
	}
	set("rapid.nofailfile", "true")
	shrink := ShrinkBudget
	if noShrink {
		shrink = 0
	}
	set("rapid.shrinktime", shrink.String())
	set("rapid.seed", strconv.FormatUint(seed, 10))
	ceiling := DefaultChecks
	for _, b := range caseBoost {
		ceiling = max(ceiling, DefaultChecks*b)
	}
	set("rapid.checks", strconv.Itoa(max(ceiling, o.PropertyChecks)))
}

// explicitChecks is the case count given on the command line
// (-rapid.checks), which then wins over every property's own.
func explicitChecks() int {
	n := 0
	flag.Visit(func(f *flag.Flag) {
		if f.Name == "rapid.checks" {
			n, _ = strconv.Atoi(f.Value.String())
		}
	})
	return n
}

// recorder is the rapid.TB that collects rapid's messages (the seed, the
// case count) and, from rapid's last replay of the shrunk case, the draws
// and the model's failure with its steps, so that they land in the check's
// result as one failure under the property's rule, instead of aborting
// mid-report.
type recorder struct {
	name string
	msgs []string
	logs []string
	// note is the model's failure in the last run that logged one: rapid
	// logs only its final replay of the shrunk case.
	note *failureNote
	// final: rapid has reported the failure; what runs now is its last
	// replay of the shrunk case.
	final bool
}

func (r *recorder) Helper()      {}
func (r *recorder) Name() string { return r.name }
func (r *recorder) Logf(f string, a ...any) {
	if n, ok := noteOf(a); ok {
		r.note = &n
		return
	}
	r.logs = append(r.logs, fmt.Sprintf(f, a...))
}
func (r *recorder) Log(a ...any)             { r.logs = append(r.logs, fmt.Sprint(a...)) }
func (r *recorder) Skipf(f string, a ...any) { r.Errorf("skip inside rapid: "+f, a...) }
func (r *recorder) Skip(a ...any)            { r.Error(a...) }
func (r *recorder) SkipNow()                 { r.Error("skip inside rapid") }
func (r *recorder) Errorf(f string, a ...any) {
	msg := fmt.Sprintf(f, a...)
	// rapid reports the failure, then replays the shrunk case once more.
	r.final = r.final || strings.HasPrefix(msg, "[rapid] ")
	r.msgs = append(r.msgs, msg)
}
func (r *recorder) Error(a ...any)            { r.msgs = append(r.msgs, fmt.Sprint(a...)) }
func (r *recorder) Fatalf(f string, a ...any) { r.Errorf(f, a...); panic(stop{}) }
func (r *recorder) Fatal(a ...any)            { r.Error(a...); panic(stop{}) }
func (r *recorder) FailNow()                  { r.msgs = append(r.msgs, "failed"); panic(stop{}) }
func (r *recorder) Fail()                     { r.msgs = append(r.msgs, "failed") }
func (r *recorder) Failed() bool              { return len(r.msgs) > 0 }

type stop struct{}

// run runs prop as a rapid property inside check t and records a failure
// (with the shrunk steps, the seed and the replay command) under rule.
// The rule is the first of rules that the failure message names ("IDEM-019:"),
// else rules[0].
func run(t *check.T, id string, rules []string, prop func(*rapid.T)) {
	rec := &recorder{name: id}
	configureRapid(t.Target().Options)
	limit, why := cases(t, id)
	if n := explicitChecks(); n > 0 {
		limit, why = n, "-rapid.checks"
	}
	t.Logf("%d cases (%s)", limit, why)
	// rapid draws up to its process-wide ceiling; this property stops at
	// its own count: later cases return at once without drawing (rapid
	// counts them as passing). Once a case has failed, every call runs
	// the property (the shrinker's and rapid's replays).
	var drawn int
	var failing bool
	// Shrinking is bounded by rapid's own -rapid.shrinktime, set once for
	// the process (configureRapid: ShrinkBudget, or none under
	// NoShrinking). A shrink candidate always runs the property: one that
	// returned at once would be rejected at once, and rapid's shrinker,
	// which caches every candidate it tried, would sweep all of its passes
	// in a tight loop (tens of gigabytes in seconds for a long case).
	// A signal of the check's own (no verdict: the target stopped
	// answering, the check's deadline; a skip) is no failure of the
	// property: rapid would take the panic for one and shrink it. It is
	// kept aside, every later case returns at once, and it reaches the
	// check once rapid is done.
	var signal any
	bounded := func(rt *rapid.T) {
		if signal != nil {
			return
		}
		if !failing {
			if drawn >= limit {
				return
			}
			drawn++
		}
		defer func() {
			if r := recover(); r != nil {
				if check.IsSignal(r) {
					signal = r
					return
				}
				failing = true
				panic(r)
			}
			if rt.Failed() {
				failing = true
			}
		}()
		prop(rt)
	}
	func() {
		defer func() {
			if p := recover(); p != nil {
				if _, ok := p.(stop); !ok {
					panic(p)
				}
			}
		}()
		rapid.Check(rec, bounded)
	}()
	if signal != nil {
		panic(signal) // the check's own stop, skip or no verdict
	}
	if len(rec.msgs) == 0 {
		return
	}
	msg, seed := rec.failure()
	if seed != "" {
		// touchstone replay reads it back from the result's logs.
		t.Logf("%s%s", SeedLog, seed)
	}
	// The failure is recorded under every rule the shrunk failure's
	// complaint names ("IDEM-010/IDEM-017: ..."), else under rules[0].
	complaint, _, _ := strings.Cut(msg, "\n")
	if rec.note != nil {
		complaint = rec.note.complaint
	}
	var named []string
	for _, r := range rules {
		if strings.Contains(complaint, r+":") || strings.Contains(complaint, r+"/") {
			named = append(named, r)
		}
	}
	if len(named) == 0 {
		named = rules[:1]
	}
	for _, r := range named[1:] {
		t.Errorf(r, "%s: property failed (see the failure under %s for the steps)", id, named[0])
	}
	// The failure is shown under its rule: "[WHM-014] GET carries …", not
	// "[WHM-014] WHM-014: GET carries …".
	msg = strings.TrimPrefix(msg, named[0]+": ")
	if rec.note != nil && rec.note.last != nil {
		// The evidence is the failing step's exchange, not whatever
		// the check sent last (its cleanup).
		t.FatalAt(rec.note.last, named[0], "%s", msg)
	}
	t.Fatalf(named[0], "%s", msg)
}

// SeedLog starts the result's log line that names the rapid seed of a
// failed property's case: that seed (touchstone run --property-seed, which
// touchstone replay sets from this line; TOUCHSTONE_RAPID_SEED under go
// test) draws that case first.
const SeedLog = "rapid seed "

var (
	afterRE = regexp.MustCompile(`failed after (\d+) tests`)
	leadRE  = regexp.MustCompile(`^failed after \d+ tests: `)
	seedRE  = regexp.MustCompile(`-rapid\.seed=(\d+)`)
)

// failure is the failure message of a property: the complaint, which case
// failed and with which seed, then the shrunk case's numbered steps (or its
// draws, for a property without steps); and the seed that draws the
// failing case first.
func (r *recorder) failure() (msg, seed string) {
	all := strings.Join(r.msgs, "\n")
	if m := seedRE.FindStringSubmatch(all); m != nil {
		seed = m[1]
	}
	found := "a case failed"
	if m := afterRE.FindStringSubmatch(all); m != nil {
		n, _ := strconv.Atoi(m[1])
		found = fmt.Sprintf("case %d failed", n+1)
	}
	if seed != "" {
		found += " (rapid seed " + seed + ")"
	}
	var b strings.Builder
	if r.note != nil {
		fmt.Fprintf(&b, "%s\n%s; shrunk to %d steps:", r.note.complaint, found, len(r.note.steps))
		for _, l := range r.note.steps {
			b.WriteString("\n" + l)
		}
		return b.String(), seed
	}
	// A property without steps (or whose shrunk case did not fail again
	// on its last replay): rapid's own account and the draws.
	first := strings.SplitN(r.msgs[0], "\n", 2)[0]
	first = strings.TrimSpace(first[strings.Index(first, "]")+1:])
	first = leadRE.ReplaceAllString(first, "")
	fmt.Fprintf(&b, "%s\n%s", first, found)
	var draws []string
	for _, l := range r.logs {
		if d, ok := strings.CutPrefix(l, "[rapid] draw "); ok {
			draws = append(draws, "drawn "+d)
		}
	}
	if len(draws) > 0 {
		b.WriteString("; shrunk to these draws:\n" + strings.Join(draws, "\n"))
	}
	return b.String(), seed
}

// ShrinkBudget is how long a property may spend shrinking a failing case:
// rapid's -rapid.shrinktime for the process, unless given on the command
// line.
const ShrinkBudget = 30 * time.Second

// NoShrinking makes every property of this process report a failure as
// found, without shrinking it (up to ShrinkBudget each otherwise): for
// processes that want only verdicts, such as the fault-mode proof. rapid
// reads its shrink time as a process-wide flag, so this is a choice for
// the process, which takes effect only before the first property runs; it
// tells whether it is in effect. Safe from several goroutines.
func NoShrinking() bool {
	rapidMu.Lock()
	defer rapidMu.Unlock()
	if !rapidConfigured {
		noShrink = true
	}
	return noShrink
}

// steps is a case's log: numbered steps, each with the curl line that
// reproduces it (the key as a placeholder) and the answer's status.
type steps struct {
	lines []string
	last  *client.Response
}

func (s *steps) add(what string, r *client.Response) {
	line := fmt.Sprintf("%d. %s -> %d", len(s.lines)+1, what, r.Status)
	if r.Exchange != nil {
		line += "\n   " + r.Exchange.Curl()
	}
	s.lines = append(s.lines, line)
	s.last = r
}

// note adds a numbered step that is not an HTTP exchange (a control
// operation, a flood).
func (s *steps) note(format string, args ...any) {
	s.lines = append(s.lines, fmt.Sprintf("%d. %s", len(s.lines)+1, fmt.Sprintf(format, args...)))
}

func (s *steps) String() string { return strings.Join(s.lines, "\n") }

// fail stops the case with the model's complaint and the steps so far.
// rapid is told only the complaint with what differs between two runs of
// the same case blanked (ids, keys, times, secrets: stable): it compares
// failure messages to know it is shrinking the same failure, and a message
// holding a fresh uuid made every replay look like another failure, so
// nothing was ever shrunk. The whole complaint and the steps reach the
// recorder in a note, logged by rapid's last replay of the shrunk case.
func (s *steps) fail(rt *rapid.T, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	rt.Logf("%v", failureNote{complaint: msg, steps: append([]string(nil), s.lines...), last: s.last})
	rt.Fatalf("%s", stable(msg))
}

// failureNote is a model's failure as the recorder keeps it.
type failureNote struct {
	complaint string
	steps     []string
	last      *client.Response // the failing step's answer
}

func (n failureNote) String() string {
	return n.complaint + "\nsteps:\n" + strings.Join(n.steps, "\n")
}

func noteOf(args []any) (failureNote, bool) {
	if len(args) != 1 {
		return failureNote{}, false
	}
	n, ok := args[0].(failureNote)
	return n, ok
}

// volatile matches what differs between two runs of one case: uuids (and
// the ts- keys and URLs built on them), timestamps, long hex digests,
// secrets and other long base64 runs.
var volatile = regexp.MustCompile(`[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|` +
	`\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})?|\b\d{2}:\d{2}:\d{2}(\.\d+)?\b|` +
	`[0-9a-fA-F]{16,}|[A-Za-z0-9_]*whsec_[A-Za-z0-9+/=]*|[A-Za-z0-9+/_-]{24,}={0,2}`)

// stable is msg with its volatile parts blanked.
func stable(msg string) string { return volatile.ReplaceAllString(msg, "…") }

// taken counts the HTTP exchanges every property has sent (for the
// benchmark).
var taken atomic.Int64

// counted makes c count its exchanges in taken instead of recording them
// as evidence: a property sends thousands, and its failure message carries
// the shrunk steps with their curl lines.
func counted(c *client.Client) { c.Record = func(*client.Exchange) { taken.Add(1) } }

// StepsTaken is the number of HTTP exchanges the properties have sent so far.
func StepsTaken() int64 { return taken.Load() }
