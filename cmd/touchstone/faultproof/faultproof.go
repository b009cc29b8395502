// Package faultproof proves the harness: it runs the checks that name a
// fault's rule against the sandbox started with that fault, and reports
// whether they failed naming that rule. It also runs every check against
// the faithful sandbox, where nothing may fail.
package faultproof

import (
	"context"
	"fmt"
	"hash/fnv"
	"runtime"
	"slices"
	"sort"
	"sync"

	"github.com/touchstone-harness/touchstone/cmd/touchstone/launch"
	"github.com/touchstone-harness/touchstone/fixtures/sandbox"
	"github.com/touchstone-harness/touchstone/internal/catalogue"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/property"
)

// Outcome is one fault's verdict.
type Outcome struct {
	Fault       string   `json:"fault"`
	Rule        string   `json:"rule"`
	Description string   `json:"description"`
	Checks      []string `json:"checks"`    // checks that name the rule
	CaughtBy    []string `json:"caught_by"` // checks that failed naming the rule
	Caught      bool     `json:"caught"`
	Note        string   `json:"note,omitempty"`
	// Source is what the ledger credits: "fault:NAME" for a fault mode,
	// "variant:NAME" for a wrong-server variant.
	Source string `json:"source,omitempty"`
	// FailedUnder are the rule ids the checks' failures were reported
	// under, each declared by the check that reported it: the rules this
	// fault proves able to fail under their own id.
	FailedUnder []string `json:"failed_under,omitempty"`
	// Pairs are "check RULE" for each declared rule a check failed under.
	Pairs []string `json:"pairs,omitempty"`
	// Undeclared are failures under a rule their check does not declare,
	// "check RULE" (a defect of the check: it must report under a rule
	// it names).
	Undeclared []string `json:"undeclared,omitempty"`
	// Bystanders are the checks of other areas, naming no rule of the
	// fault's area, run beside its own (a fixed sample: Bystanders);
	// Stray those of them that did not pass, "check: status RULES" (a
	// fault that breaks more than its rule is itself a defect).
	Bystanders []string `json:"bystanders,omitempty"`
	Stray      []string `json:"stray,omitempty"`
}

// WideRules are rules every answer of a kind obeys, so that a fault or
// variant breaking one is seen by checks of other areas too, each with why;
// their bystanders' failures are expected, not a defect of the fault.
var WideRules = map[string]string{
	"ENV-001":  "every v1 envelope carries message: any check reading an envelope sees it missing",
	"ENV-008":  "every customer object's member names: any check reading a customer sees them",
	"ERR-014":  "every problem+json answer's media type: any check reading a refusal sees it",
	"CORR-003": "the X-Correlation-Id length check: the check-order checks send the same header",
	"ERR-037":  "every 404 of an unknown or unreachable id has code null: any check reading such a 404 (bindings, reach, each resource's reads) sees the code",
	"CORR-001": "X-Correlation-Id is optional on every request: the checks of every area send none, so each sees the refusal",
	"CORR-006": "every answer to a request without X-Correlation-Id carries a generated one: the served OpenAPI document requires the header, so any check's schema judgement (VER-012) sees it missing",
	"CORR-007": "every error answer carries X-Correlation-Id: the served OpenAPI document requires the header, so any check's schema judgement (VER-012) sees it missing",
	"ERR-019":  "idempotency_key_invalid answers every mutating call without a key: the check-order checks assert its status",
	"IDEM-002": "the check-order checks reach step 5 (idempotency_key_invalid) with a 7-character Idempotency-Key",
	"TEN-001":  "the check-order checks send X-Tenant-Id as one of the steps a request fails at once",
	"IDEM-019": "every replay of a write answers the stored result: a check of any area that retries a write with its key sees the replay change",
	"ENV-005":  "every list payload's named key: any check reading the customer list reads it under data.customers",
	"PAGE-021": "the banking withdrawals list's pagination: any check counting a customer's withdrawals reads it",
	"ERR-022":  "api_key_authentication_failed is every 401's code: every refused-key check asserts its status",
	"ERR-001":  "every refusal of a missing or malformed Idempotency-Key is 400: the route sentences restating it (PB-089's payout batch create without a key) are seen by their area's checks",
	"ERR-002":  "every v1 401 uses the problem+json body: every refused-key check (auth/format-*, auth/unknown-key ...) reads the 401's members",
	"ENV-003":  "every v1 envelope repeats its HTTP status in status_code: any check reading an envelope sees it differ",
	"PAGE-018": "the customer list's pagination: any check reading the customer list sees it missing",
	"BAL-002":  "every banking/balance row's balance_major is a JSON number: the served OpenAPI document states its type, so any check reading a balance (payout batches' funds, VER-012) sees it",
	"BAL-004":  "every banking/balance answer holds data.balances: any check reading a balance (payout batches' funds, exchange, withdrawals) sees it missing",
	"CUST-001": "every customer object's id is a UUID: the served OpenAPI document states its format, so any check reading a customer (schema judgement, VER-012) sees it",
	"CUST-003": "every customer object's display_name is a string: the served OpenAPI document states its type, so any check reading a customer (VER-012) sees it",
	"CUST-004": "every customer object's user_type is Personal or Business: the served OpenAPI document states the enum, so any check reading a customer (VER-012) sees it",
	"CUST-005": "every customer object's jurisdiction is an alpha-2 code: the served OpenAPI document states its pattern, so any check reading a customer (VER-012) sees it",
	"CUST-006": "every customer object's status is a lifecycle status: the served OpenAPI document states the enum, so any check reading a customer (VER-012) sees it",
	"CUST-007": "every customer object's record_type is Customer: the served OpenAPI document states it, so any check reading a customer (VER-012) sees it",
	"CUST-008": "every customer object's timestamps carry an offset: the served OpenAPI document states their format, so any check reading a customer (VER-012) sees it",
	"LIFE-005": "an Active customer passes the shared money precondition: every money check of every area moves money for an Active customer and sees it refused",
	"BEN-021":  "every beneficiary create answers data.beneficiaries[]: any check creating a payee (payout batches, withdrawals, the properties' setups) reads it there",
}

// BystanderCount is how many checks of other areas each fault and variant
// runs beside its own, to show it breaks nothing else.
const BystanderCount = 3

// Bystanders is the fixed sample of checks a fault or variant breaking
// rule runs to show it breaks nothing else: runnable checks of other
// areas that name no rule of the rule's area and run alone in no way
// (no virtual-clock moves, no budget probes), picked by a hash of name.
func Bystanders(name, rule string) []*check.Check {
	area := ruleArea(rule)
	var pool []*check.Check
	for _, c := range check.All() {
		if !runnable(c) || c.Budget != nil || c.HasLabel(check.Alone) || c.Area() == area || namesArea(c, area) {
			continue
		}
		pool = append(pool, c)
	}
	if len(pool) == 0 {
		return nil
	}
	h := fnv.New64a()
	h.Write([]byte(name))
	seed := h.Sum64()
	var out []*check.Check
	seen := map[int]bool{}
	for i := 0; len(out) < BystanderCount && i < 4*BystanderCount; i++ {
		j := int((seed + uint64(i)*0x9e3779b97f4a7c15) % uint64(len(pool)))
		if !seen[j] {
			seen[j] = true
			out = append(out, pool[j])
		}
	}
	return out
}

// ruleArea is a rule's area in the catalogue ("" when unknown).
func ruleArea(rule string) string {
	if cat, err := catalogue.Load(); err == nil {
		if r := cat.Canonical(rule); r != nil {
			return r.Area
		}
	}
	return ""
}

// namesArea tells whether the check names a rule of the area.
func namesArea(c *check.Check, area string) bool {
	for _, r := range c.Rules {
		if ruleArea(r) == area {
			return true
		}
	}
	return false
}

// runBystanders runs the sample (less the checks in skip) and records what
// did not pass.
func (o *Outcome) runBystanders(ctx context.Context, tgt *check.Target, skip map[string]string) {
	for _, c := range Bystanders(o.Fault, o.Rule) {
		if skip[c.ID] != "" {
			continue
		}
		o.Bystanders = append(o.Bystanders, c.ID)
		res := check.Run(ctx, tgt, c)
		if (res.Status == check.Failed || res.Status == check.Error) && WideRules[o.Rule] == "" {
			var rules []string
			for _, f := range res.Failures {
				rules = append(rules, f.Rule)
			}
			// A bystander failing only under the schema rule read an answer
			// the fault changed: the served document describes it, as the
			// fault's own checks' schema failures (Others) are not counted.
			if res.Status == check.Failed && slices.Equal(sortedSet(rules), []string{check.SchemaRule}) {
				continue
			}
			o.Stray = append(o.Stray, fmt.Sprintf("%s: %s %v %s", c.ID, res.Status, sortedSet(rules), res.Error))
		}
	}
}

// FailedUnder sorts a check result's failures by whether the check
// declares their rule: the declared rule ids, and "check RULE" for each
// failure under a rule the check does not name.
func FailedUnder(r *check.Result) (declared, undeclared []string) {
	c := check.Get(r.ID)
	seen := map[string]bool{}
	for _, f := range r.Failures {
		if seen[f.Rule] {
			continue
		}
		seen[f.Rule] = true
		if c != nil && c.Declares(f.Rule) {
			declared = append(declared, f.Rule)
		} else {
			undeclared = append(undeclared, r.ID+" "+f.Rule)
		}
	}
	return declared, undeclared
}

// runnable leaves out checks that wait on real time.
func runnable(c *check.Check) bool { return !c.HasLabel(check.Slow) }

// Prove runs one fault.
func Prove(ctx context.Context, f sandbox.Fault) Outcome {
	o := Outcome{Fault: f.Name, Rule: f.Rule, Description: f.Description, Source: FaultSource + f.Name}
	if f.Rule == "" {
		o.Note = "fault names no rule"
		return o
	}
	// The verdict needs the rule a property failed under, not its shrunk
	// case.
	property.NoShrinking()
	var checks []*check.Check
	for _, c := range check.ForRule(f.Rule) {
		if runnable(c) {
			checks = append(checks, c)
			o.Checks = append(o.Checks, c.ID)
		}
	}
	if len(checks) == 0 {
		o.Note = "no check names rule " + f.Rule
		return o
	}
	l, err := launch.Start(ctx, launch.Options{Seed: 1, Fault: f.Name})
	if err != nil {
		o.Note = "sandbox did not start: " + err.Error()
		return o
	}
	defer l.Close()
	for _, c := range checks {
		o.record(c, check.Run(ctx, l.Target, c))
	}
	o.runBystanders(ctx, l.Target, nil)
	o.finish()
	return o
}

// record adds one check's result to the outcome.
func (o *Outcome) record(c *check.Check, res *check.Result) {
	d, u := FailedUnder(res)
	o.FailedUnder = append(o.FailedUnder, d...)
	for _, r := range d {
		o.Pairs = append(o.Pairs, c.ID+" "+r)
	}
	o.Undeclared = append(o.Undeclared, u...)
	for _, fl := range res.Failures {
		if fl.Rule == o.Rule {
			o.CaughtBy = append(o.CaughtBy, c.ID)
			break
		}
	}
	if res.Status == check.Error && o.Note == "" {
		o.Note = fmt.Sprintf("%s reached no verdict: %s", c.ID, res.Error)
	}
}

func (o *Outcome) finish() {
	o.Caught = len(o.CaughtBy) > 0
	o.FailedUnder = sortedSet(o.FailedUnder)
	o.Undeclared = sortedSet(o.Undeclared)
}

// ProveAll runs every fault, each against its own sandbox, GOMAXPROCS at
// a time; the outcomes are in sandbox.Faults() order.
func ProveAll(ctx context.Context) []Outcome {
	return ProveEach(ctx, sandbox.Faults(), runtime.GOMAXPROCS(0))
}

// ProveEach runs faults at most workers at a time (at least one), each
// against its own sandbox, and returns their outcomes in the order given.
func ProveEach(ctx context.Context, faults []sandbox.Fault, workers int) []Outcome {
	out := make([]Outcome, len(faults))
	workers = max(1, min(workers, len(faults)))
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i] = Prove(ctx, faults[i])
			}
		}()
	}
	for i := range faults {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}

// Baseline runs every runnable check against the faithful sandbox.
func Baseline(ctx context.Context) ([]*check.Result, error) {
	l, err := launch.Start(ctx, launch.Options{Seed: 1})
	if err != nil {
		return nil, err
	}
	defer l.Close()
	var out []*check.Result
	for _, c := range check.All() {
		if runnable(c) {
			out = append(out, check.Run(ctx, l.Target, c))
		}
	}
	return out, nil
}

// sortedSet returns the distinct strings of xs, sorted.
func sortedSet(xs []string) []string {
	if len(xs) == 0 {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	sort.Strings(out)
	return out
}
