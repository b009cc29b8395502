// Package property holds rapid models of the documented rules: each draws
// operation sequences or inputs, drives any target over HTTP through the
// harness's check.T, and compares every answer with a model. Each model is
// registered as a check (id "property/<name>", label "property") so it
// runs inside `touchstone run` and under `go test ./property/...`.
package property

import (
	"flag"
	"fmt"

	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

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
	return n, why
}

// rapidOnce sets rapid's own flags, which it reads as process-wide
// globals, once for the process (before any property runs, so that
// properties running side by side read them without a race): no fail
// files in the working directory (a faulted sandbox fails properties on
// purpose; the failure carries the seed), the seed, and a ceiling on the
// cases rapid draws; each property stops at its own count (limit).
// Flags given explicitly on the command line (go test -rapid.checks=N)
// win.
var rapidOnce sync.Once

func configureRapid(o check.Options) {
	rapidOnce.Do(func() {
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
		set("rapid.seed", strconv.FormatUint(seed, 10))
		ceiling := DefaultChecks
		for _, b := range caseBoost {
			ceiling = max(ceiling, DefaultChecks*b)
		}
		set("rapid.checks", strconv.Itoa(max(ceiling, o.PropertyChecks)))
	})
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

// recorder is the rapid.TB that collects rapid's messages (the shrunk
// case, its step log and the seed) so they land in the check's result as
// one failure under the property's rule, instead of aborting mid-report.
type recorder struct {
	name string
	msgs []string
	logs []string
}

func (r *recorder) Helper()                   {}
func (r *recorder) Name() string              { return r.name }
func (r *recorder) Logf(f string, a ...any)   { r.logs = append(r.logs, fmt.Sprintf(f, a...)) }
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
	bounded := func(rt *rapid.T) {
		if !failing {
			if drawn >= limit {
				return
			}
			drawn++
		}
		defer func() {
			if r := recover(); r != nil {
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
	if len(rec.msgs) > 0 {
		all := strings.Join(rec.msgs, "\n")
		// The failure is recorded under every rule the shrunk failure
		// names ("IDEM-010/IDEM-017: ..."), else under rules[0].
		var named []string
		for _, r := range rules {
			if strings.Contains(all, r+":") || strings.Contains(all, r+"/") {
				named = append(named, r)
			}
		}
		if len(named) == 0 {
			named = rules[:1]
		}
		for _, r := range named[1:] {
			t.Errorf(r, "%s: property failed (see the failure under %s for the steps)", id, named[0])
		}
		rule := named[0]
		t.Fatalf(rule, "%s: property failed\n%s\nreplay: touchstone run --focus '^%s$' --property-seed N (N: the seed above)",
			id, all, id)
	}
}

// steps is a case's log: numbered steps, each with the curl line that
// reproduces it (the key as a placeholder) and the answer's status.
type steps struct{ lines []string }

func (s *steps) add(what string, r *client.Response) {
	line := fmt.Sprintf("%d. %s -> %d", len(s.lines)+1, what, r.Status)
	if r.Exchange != nil {
		line += "\n   " + r.Exchange.Curl()
	}
	s.lines = append(s.lines, line)
}

// note adds a numbered step that is not an HTTP exchange (a control
// operation, a flood).
func (s *steps) note(format string, args ...any) {
	s.lines = append(s.lines, fmt.Sprintf("%d. %s", len(s.lines)+1, fmt.Sprintf(format, args...)))
}

func (s *steps) String() string { return strings.Join(s.lines, "\n") }

// fail stops the case with the model's complaint and the steps so far.
func (s *steps) fail(rt *rapid.T, format string, args ...any) {
	rt.Fatalf("%s\nsteps:\n%s", fmt.Sprintf(format, args...), s)
}

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
