// Package property holds rapid models of the documented rules: each draws
// operation sequences or inputs, drives any target over HTTP through the
// harness's check.T, and compares every answer with a model. Each model is
// registered as a check (id "property/<name>", label "property") so it
// runs inside `touchstone run` and under `go test ./property/...`.
package property

import (
	"context"
	"flag"
	"fmt"
	"hash/fnv"
	"os"
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
// (kept small so every property together costs about a second);
// TOUCHSTONE_RAPID_CHECKS (or -rapid.checks / RAPID_CHECKS when set
// explicitly) raises it for deep runs.
const DefaultChecks = 25

// realClockChecks caps the default on a target whose clock cannot be moved
// (about 90 requests a case, split over a GET and a PATCH route).
const realClockChecks = 5

var checksMu sync.Mutex

// caseShare divides the case count of the properties whose cases are
// expensive (hundreds of requests each), so a default run stays fast.
var caseShare = map[string]int{"property/rate-windows": 8}

// caseBoost multiplies the default case count of cheap properties whose
// faults need a longer drawn path (initiate, a pending_review decision,
// then a money route) than the default count reliably draws.
var caseBoost = map[string]int{"property/customer-lifecycle": 2}

// checks is the number of cases to draw: TOUCHSTONE_RAPID_CHECKS, else
// DefaultChecks.
func checks() int {
	if v, err := strconv.Atoi(os.Getenv("TOUCHSTONE_RAPID_CHECKS")); err == nil && v > 0 {
		return v
	}
	return DefaultChecks
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
func (r *recorder) Log(a ...any)              { r.logs = append(r.logs, fmt.Sprint(a...)) }
func (r *recorder) Skipf(f string, a ...any)  { r.Errorf("skip inside rapid: "+f, a...) }
func (r *recorder) Skip(a ...any)             { r.Error(a...) }
func (r *recorder) SkipNow()                  { r.Error("skip inside rapid") }
func (r *recorder) Errorf(f string, a ...any) { r.msgs = append(r.msgs, fmt.Sprintf(f, a...)) }
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
	checksMu.Lock()
	if !flag.Parsed() {
		// Outside go test (touchstone run): rapid reads testing.Short and
		// its own -rapid.* flags, which need the testing flags registered
		// and the command line parsed (with no arguments: touchstone
		// parses its own).
		testing.Init()
		_ = flag.CommandLine.Parse(nil)
	}
	// Never write fail files into the working directory (a faulted
	// sandbox fails properties on purpose): the failure message carries
	// the seed. -rapid.nofailfile=false given explicitly keeps them.
	if !explicit("rapid.nofailfile", "RAPID_NOFAILFILE") {
		_ = flag.Set("rapid.nofailfile", "true")
	}
	if f := flag.Lookup("rapid.checks"); f != nil && !explicit("rapid.checks", "RAPID_CHECKS") {
		n := checks()
		if !t.Target().VirtualClock() && os.Getenv("TOUCHSTONE_RAPID_CHECKS") == "" {
			// A real clock cannot be moved to a fresh rate-limit window:
			// stay well under 600 requests per route and minute.
			n = min(n, realClockChecks)
			t.Logf("real clock: %d cases (TOUCHSTONE_RAPID_CHECKS raises it; pace the target yourself)", n)
		}
		if b := caseBoost[id]; b > 1 && os.Getenv("TOUCHSTONE_RAPID_CHECKS") == "" {
			// A cheap property whose rules need longer sequences draws
			// more cases by default (deep runs set the count themselves).
			n *= b
		}
		if d := caseShare[id]; d > 1 {
			// A property whose cases cost hundreds of requests draws a
			// share of the count (at least 2).
			n = max(2, n/d)
		}
		_ = f.Value.Set(strconv.Itoa(n))
	}
	if f := flag.Lookup("rapid.shrinktime"); f != nil && !explicit("rapid.shrinktime", "RAPID_SHRINKTIME") {
		// rapid's own default (30 s) unless the verdict alone is wanted.
		d := 30 * time.Second
		if t.Context().Value(unshrunk{}) != nil {
			d = 0
		}
		_ = f.Value.Set(d.String())
	}
	// A fixed seed per property unless one is given (-rapid.seed,
	// RAPID_SEED, TOUCHSTONE_RAPID_SEED; "0" draws a random one): a
	// default run is deterministic, so a fault is caught every time.
	if f := flag.Lookup("rapid.seed"); f != nil && !explicit("rapid.seed", "RAPID_SEED") {
		seed := os.Getenv("TOUCHSTONE_RAPID_SEED")
		if seed == "" {
			h := fnv.New64a()
			h.Write([]byte(id))
			seed = strconv.FormatUint(h.Sum64()|1, 10)
		}
		_ = f.Value.Set(seed)
	}
	checksMu.Unlock()
	func() {
		defer func() {
			if p := recover(); p != nil {
				if _, ok := p.(stop); !ok {
					panic(p)
				}
			}
		}()
		rapid.Check(rec, func(rt *rapid.T) { pace(t); prop(rt) })
	}()
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
// failed property's case: TOUCHSTONE_RAPID_SEED set to it draws that case
// first (touchstone replay sets it).
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

type unshrunk struct{}

// Unshrunk marks ctx so that the properties run under it report a failure
// as found, without shrinking it (up to 30 s each otherwise): for callers
// that want only the verdict, such as the fault-mode proof.
func Unshrunk(ctx context.Context) context.Context {
	return context.WithValue(ctx, unshrunk{}, true)
}

// explicit reports whether the rapid flag was given on the command line or
// its environment variable set, which then wins over the harness's value.
func explicit(name, env string) bool {
	if os.Getenv(env) != "" {
		return true
	}
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
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

func itoa(n int) string { return strconv.Itoa(n) }

// taken counts the HTTP exchanges every property has sent (for the
// benchmark).
var taken atomic.Int64

// counted makes c count its exchanges in taken instead of recording them
// as evidence: a property sends thousands, and its failure message carries
// the shrunk steps with their curl lines.
func counted(c *client.Client) { c.Record = func(*client.Exchange) { taken.Add(1) } }

// StepsTaken is the number of HTTP exchanges the properties have sent so far.
func StepsTaken() int64 { return taken.Load() }

// paced is the step count at the last fresh rate-limit window.
var paced atomic.Int64

// pace starts a fresh clock-minute window (virtual clock only) before a
// case once 300 steps have been sent in the current one, so a deep run
// stays under the documented 600 requests per route and minute. On a real
// clock it does nothing: deep runs there must be paced by the operator.
func pace(t *check.T) {
	now := taken.Load()
	if now-paced.Load() < 300 {
		return
	}
	paced.Store(now)
	if err := t.Target().FreshWindow(t.Context()); err != nil {
		t.NoVerdict(err)
	}
}
