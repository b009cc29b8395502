// Package check holds Touchstone's checks as plain functions over an HTTP
// client, so that the same check runs under Ginkgo (touchstone run, go test,
// the ginkgo CLI) and directly (the fault-mode proof, properties). A check
// sees a target only over HTTP; it never imports the sandbox.
package check

import (
	"fmt"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Labels every check may carry, besides its area.
const (
	Mutating     = "mutating"      // creates or changes state on the target
	NeedsControl = "needs-control" // needs the sandbox control API
	Slow         = "slow"          // waits on real time
	Destructive  = "destructive"   // leaves a fixture unusable (e.g. suspends a customer)
)

// Check is one executable specification of one or more catalogued rules.
type Check struct {
	// ID is "area/slug", stable; the catalogue refers to it.
	ID    string
	Title string
	// Rules are the catalogue ids this check proves.
	Rules  []string
	Labels []string
	// Needs names profile fixtures the check uses ("keys.subject",
	// "customers.child"); a target lacking one skips the check with the reason.
	Needs []string
	// Alone says when the check must have the target to itself (see
	// Solitude); Register adds the label Alone, and a check carrying the
	// label without the field is alone Always. Measured by
	// TestAloneDeclarations.
	Alone Solitude
	// SerialGroup names a limited resource on the target the check shares
	// with others of its group (the same fixture's rows, or balances read
	// before and after): the scheduler never runs two checks of one group
	// at once, though each may run beside any other check.
	SerialGroup string
	// Budget declares the rate-limit budgets a check that probes them on
	// purpose spends (see Budget); nil for every other check.
	Budget *Budget
	// RealClockShare, when set, is the share of its declared traffic
	// (spend.json, measured on a virtual clock) the check sends on a real
	// clock, for the run's estimate (a property runs fewer cases there).
	RealClockShare float64
	// ControlWhy says what only the sandbox control API (or a clock the
	// harness can move) does for the check that the API itself cannot: a
	// staff or provider decision, an armed failure, a day of time. For a
	// check labelled NeedsControl it is the skip reason on a target
	// without a control API; for one with ControlRules, why those rules
	// are judged only there. `touchstone rules --needs-control` lists it.
	ControlWhy string
	// ControlRules are rules, of Rules, that a check running on any target
	// judges only with the control API and a virtual clock: on another
	// target it runs the form the API alone can drive (t.WithoutControl)
	// and its result names the other rules only.
	ControlRules []string
	Run          func(t *T)
	// File and Line are where the check's Run function is written (set by
	// Register from Body), so `touchstone rules --rule ID` can point at the
	// code.
	File string `json:"-"`
	Line int    `json:"-"`
}

// judged are the rules a result names: all of them, or, when the check
// ran its form for a target without the control API, all but its
// ControlRules.
func (c *Check) judged(without bool) []string {
	if !without || len(c.ControlRules) == 0 {
		return c.Rules
	}
	var out []string
	for _, r := range c.Rules {
		if !slices.Contains(c.ControlRules, r) {
			out = append(out, r)
		}
	}
	return out
}

// Declares tells whether the check may fail under a rule: one it names,
// or the schema rule, under which the runner validates every answer of
// every check against the target's served documents (SchemaRule).
func (c *Check) Declares(rule string) bool {
	return rule == SchemaRule || slices.Contains(c.Rules, rule)
}

// Area is the part of the id before the slash.
func (c *Check) Area() string { a, _, _ := strings.Cut(c.ID, "/"); return a }

// HasLabel tells whether the check carries a label.
func (c *Check) HasLabel(l string) bool {
	for _, x := range c.Labels {
		if x == l {
			return true
		}
	}
	return false
}

var (
	mu       sync.Mutex
	registry = map[string]*Check{}
	idRe     = regexp.MustCompile(`^[a-z][a-z0-9-]*/[a-z0-9][a-z0-9-]*$`)
	ruleRe   = regexp.MustCompile(`^[A-Z][A-Z0-9]*-[0-9]{3}$`)
)

// Register adds checks to the registry. It panics on a malformed or
// duplicate id: that is a programming error found by any test run.
func Register(cs ...Check) {
	mu.Lock()
	defer mu.Unlock()
	for i := range cs {
		c := cs[i]
		if !idRe.MatchString(c.ID) {
			panic(fmt.Sprintf("check: malformed id %q", c.ID))
		}
		if _, dup := registry[c.ID]; dup {
			panic(fmt.Sprintf("check: duplicate id %q", c.ID))
		}
		if len(c.Rules) == 0 {
			panic(fmt.Sprintf("check %s: names no rule", c.ID))
		}
		for _, r := range c.Rules {
			if !ruleRe.MatchString(r) {
				panic(fmt.Sprintf("check %s: malformed rule id %q", c.ID, r))
			}
		}
		for _, r := range c.ControlRules {
			if !slices.Contains(c.Rules, r) {
				panic(fmt.Sprintf("check %s: control rule %s is not among its rules", c.ID, r))
			}
		}
		if len(c.ControlRules) > 0 && (c.ControlWhy == "" || c.HasLabel(NeedsControl)) {
			panic(fmt.Sprintf("check %s: control rules need a ControlWhy and no label %s (the check runs on any target)", c.ID, NeedsControl))
		}
		if c.Run == nil || c.Title == "" {
			panic(fmt.Sprintf("check %s: needs a title and a Run", c.ID))
		}
		if c.Alone == NotAlone && c.HasLabel(Alone) {
			c.Alone = Always
		}
		if c.Alone != NotAlone && !c.HasLabel(Alone) {
			c.Labels = append(append([]string(nil), c.Labels...), Alone)
		}
		file, line := c.Body()
		c.File, c.Line = SourcePath(file), line
		registry[c.ID] = &c
	}
}

// Body is where the check's Run function is written: the compiled file
// name and the line of its func keyword (a Ginkgo spec carries it as its
// code location).
func (c *Check) Body() (file string, line int) {
	f := runtime.FuncForPC(reflect.ValueOf(c.Run).Pointer())
	if f == nil {
		return "", 0
	}
	return f.FileLine(f.Entry())
}

// All returns every registered check, sorted by id.
func All() []*Check {
	mu.Lock()
	defer mu.Unlock()
	out := make([]*Check, 0, len(registry))
	for _, c := range registry {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Get returns a check by id.
func Get(id string) *Check {
	mu.Lock()
	defer mu.Unlock()
	return registry[id]
}

// ForRule returns the checks that name a rule.
func ForRule(rule string) []*Check {
	var out []*Check
	for _, c := range All() {
		for _, r := range c.Rules {
			if r == rule {
				out = append(out, c)
				break
			}
		}
	}
	return out
}

// modulePath is the module's import path, which file names carry when
// built with -trimpath.
const modulePath = "github.com/touchstone-harness/touchstone/"

// repoRoot is the checkout this package was compiled from.
var repoRoot = func() string {
	_, self, _, _ := runtime.Caller(0) // <root>/internal/check/check.go
	return filepath.ToSlash(filepath.Dir(filepath.Dir(filepath.Dir(self)))) + "/"
}()

// SourcePath turns a compiled file name into a repository-relative path
// ("suites/idempotency/conflicts.go").
func SourcePath(file string) string {
	file = filepath.ToSlash(file)
	if rel, ok := strings.CutPrefix(file, repoRoot); ok {
		return rel
	}
	if i := strings.Index(file, modulePath); i >= 0 {
		return file[i+len(modulePath):]
	}
	return file
}
