package check

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/openapicheck"
	"github.com/touchstone-harness/touchstone/internal/traffic"
)

// Status is a check's outcome.
type Status string

const (
	Passed  Status = "passed"
	Failed  Status = "failed"
	Skipped Status = "skipped"
	// Error means the harness reached no verdict (target unreachable,
	// transport failure, harness bug); it is not a finding about the target.
	Error Status = "error"
)

// SchemaRule is the rule every response is validated under: responses
// match the target's own served OpenAPI documents.
const SchemaRule = "VER-012"

// Result is the outcome of one check with its evidence.
type Result struct {
	ID         string    `json:"id"`
	Area       string    `json:"area"`
	Title      string    `json:"title"`
	Rules      []string  `json:"rules"`
	Labels     []string  `json:"labels"`
	Status     Status    `json:"status"`
	SkipReason string    `json:"skip_reason,omitempty"`
	Error      string    `json:"error,omitempty"`
	Failures   []Failure `json:"failures,omitempty"`
	Logs       []string  `json:"logs,omitempty"`
	// NotRun marks a check the run never started (the target had stopped
	// answering, or the run was interrupted); its Status is Error.
	NotRun bool `json:"not_run,omitempty"`
	// FailedAuth is how many failed authentications the check caused.
	FailedAuth int `json:"failed_auth,omitempty"`
	// Shared lists what the check did that every other check would see
	// (a virtual clock, a global control setting, a shared fixture
	// changed through the control API): such a check must be Alone.
	Shared []string `json:"-"`
	// Control lists the control calls the check made, "METHOD TEMPLATE"
	// below /_sandbox (TestDeclarations records them in spend.json, from
	// which a skip on a target without the control API says what the
	// check needed it for).
	Control []string `json:"-"`
	// NotJudged are the check's rules it judges only with the sandbox
	// control API and did not judge here (it ran its form for a target
	// without it: T.WithoutControl): Rules leaves them out; NotJudgedWhy
	// is what only that API does (Check.ControlWhy).
	NotJudged    []string `json:"not_judged,omitempty"`
	NotJudgedWhy string   `json:"not_judged_why,omitempty"`
	// ControlMissing are the control calls (operation ids of the control
	// contract) whose absence skipped the check: serving them would
	// unlock it (control.go).
	ControlMissing []string `json:"control_missing,omitempty"`
	// NotJudgedReasons are the rules the check found it could not judge
	// on this target (T.NotJudged: a route not served, no key to judge
	// with), each with the reason; they are in NotJudged too.
	NotJudgedReasons map[string]string `json:"not_judged_reasons,omitempty"`
	CaseID           string            `json:"case_id"`
	Started          time.Time         `json:"started"`
	Duration         time.Duration     `json:"duration_ns"`
	// A result keeps only the exchanges its failures point at (their
	// evidence); a passing check's transcript is dropped when it ends.
}

// FailedRules lists the distinct rule ids of the failures.
func (r *Result) FailedRules() []string {
	seen := map[string]bool{}
	var out []string
	for _, f := range r.Failures {
		if !seen[f.Rule] {
			seen[f.Rule] = true
			out = append(out, f.Rule)
		}
	}
	return out
}

// Summary is the failure text: one block per failure, rule id first.
func (r *Result) Summary() string {
	switch r.Status {
	case Skipped:
		return "skipped: " + r.SkipReason
	case Error:
		return "no verdict: " + r.Error
	}
	var b strings.Builder
	for i, f := range r.Failures {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "[%s] %s", f.Rule, f.Message)
		if f.Exchange != nil {
			fmt.Fprintf(&b, "\n  reproduce: %s", f.Exchange.Curl())
		}
	}
	return b.String()
}

// Run executes one check against a target, in a fresh window on a virtual
// clock (the serial path: the fault proof, replays). It never panics.
func Run(ctx context.Context, target *Target, c *Check) *Result {
	return run(ctx, target, c, true)
}

// run executes one check; fresh starts it in a fresh window on a virtual
// clock.
func run(ctx context.Context, target *Target, c *Check, fresh bool) *Result {
	res := &Result{ID: c.ID, Area: c.Area(), Title: c.Title, Rules: c.Rules, Labels: c.Labels, Started: time.Now().UTC()}
	t := &T{ctx: ctx, target: target, check: c, caseID: c.ID + "#" + shortID()}
	res.CaseID = t.caseID
	defer func() { res.Duration = time.Since(res.Started) }()

	// The client's guard refuses writes on live keys unless the target
	// opted in (--allow-live).
	client.AllowLive(target.HTTP, target.AllowLive)
	st := stallOf(target)
	if msg := st.stoppedReason(); msg != "" {
		res.Status, res.Error, res.NotRun = Error, "not run: "+msg, true
		return res
	}
	if err := context.Cause(ctx); err != nil {
		res.Status, res.Error, res.NotRun = Error, "not run: "+err.Error(), true
		return res
	}
	parent := ctx
	// The check's deadline counts its own time, not its waits for the
	// traffic plan (the limiters' turn, a probe's minute).
	waits := &traffic.Waits{}
	ctx, cancel := context.WithCancelCause(traffic.WithWaits(ctx, waits))
	defer cancel(nil)
	limit, used, last := checkTimeout(target, c), time.Duration(0), time.Now()
	watch := time.NewTicker(100 * time.Millisecond)
	defer watch.Stop()
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case now := <-watch.C:
				if !waits.Waiting() {
					used += now.Sub(last)
				}
				last = now
				if used > limit {
					cancel(context.DeadlineExceeded)
					return
				}
			}
		}
	}()
	t.ctx = ctx

	// A probe runs alone on a virtual clock (and on the serial path): its
	// requests are its own, never held.
	if c.ProbesBudget() && !traffic.IsProbe(ctx) {
		t.ctx = traffic.AsProbe(t.ctx, nil)
	}
	if reason := preflight(target, c); reason != "" {
		res.Status, res.SkipReason = Skipped, reason
		res.ControlMissing = preflightMissing(target, c, reason)
		return res
	}
	if fresh {
		if err := target.FreshWindow(ctx); err != nil {
			res.Status, res.Error = Error, "control API: "+err.Error()
			return res
		}
	}
	if c.ProbesBudget() && fresh {
		// What it spent is not for the checks after it.
		defer target.FreshWindow(context.WithoutCancel(ctx))
	}
	status, errText, transport := execute(t, c)
	status, errText, res.ControlMissing = t.controlVerdict(status, errText)
	st.observe(transport, t.answered(), errText)
	var stop *stopError
	if status != Skipped && errors.As(context.Cause(parent), &stop) {
		// The run stopped while the check ran (the target stopped
		// answering): its requests and waits were ended by the stop, not
		// by the target, so whatever it concluded is no verdict.
		switch {
		case errText == "":
			errText = "cut short when the run stopped (" + stop.reason + ")"
		default:
			errText = "cut short when the run stopped: " + errText
		}
		status = Error
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	res.Logs, res.Shared, res.Control, res.Rules = t.logs, t.shared, t.controlled, c.judged(t.without)
	if t.without && len(c.ControlRules) > 0 {
		res.NotJudged, res.NotJudgedWhy = c.ControlRules, c.ControlWhy
	}
	if len(t.notJudged) > 0 {
		res.NotJudgedReasons = t.notJudged
		res.Rules = slices.DeleteFunc(slices.Clone(res.Rules), func(r string) bool { _, ok := t.notJudged[r]; return ok })
		for _, r := range c.Rules {
			if _, ok := t.notJudged[r]; ok && !slices.Contains(res.NotJudged, r) {
				res.NotJudged = append(res.NotJudged, r)
			}
		}
		if len(res.Rules) == 0 && status == Passed {
			// A check that judged nothing is no pass.
			var whys []string
			for _, r := range c.Rules {
				if w, ok := t.notJudged[r]; ok && !slices.Contains(whys, w) {
					whys = append(whys, w)
				}
			}
			status, t.skip = Skipped, "judged none of its rules on this target: "+strings.Join(whys, "; ")
		}
	}
	if status == Passed || status == Failed {
		t.failures = append(t.failures, validateSchemas(target, t.exchanges)...)
		requests, harness := validateRequests(target, t.exchanges)
		if t.failures = append(t.failures, requests...); harness != "" && len(t.failures) == 0 {
			status, errText = Error, harness
		}
	}
	res.Failures = t.failures
	res.FailedAuth = failedAuths(t.exchanges)
	switch {
	case status == Skipped:
		res.Status, res.SkipReason = Skipped, t.skip
	case status == Error:
		res.Status, res.Error = Error, errText
	case len(t.failures) > 0:
		res.Status = Failed
	default:
		res.Status = Passed
	}
	return res
}

func execute(t *T, c *Check) (status Status, errText string, transport bool) {
	defer func() {
		if r := recover(); r != nil {
			switch v := r.(type) {
			case stopSignal:
				status = Failed
			case skipSignal:
				status = Skipped
			case noVerdict:
				var lw *client.LiveWriteError
				var te *client.TransportError
				switch {
				case errors.As(v.err, &lw):
					// The client refused a write on a live key: not a
					// finding and not a harness failure.
					status = Skipped
					t.mu.Lock()
					t.skip = "refused: " + lw.Error()
					t.mu.Unlock()
				default:
					status, errText = Error, v.err.Error()
					transport = errors.As(v.err, &te)
					if transport && context.Cause(t.ctx) == context.DeadlineExceeded {
						errText = fmt.Sprintf("check exceeded its deadline (%s): %s", checkTimeout(t.target, c), errText)
					}
				}
			default:
				status, errText = Error, fmt.Sprintf("harness panic: %v\n%s", r, debug.Stack())
			}
		}
	}()
	c.Run(t)
	return Passed, "", false
}

// answered tells whether any exchange of the check got a whole HTTP
// response (status, headers and body read without error).
func (t *T) answered() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, ex := range t.exchanges {
		if ex.Response != nil && ex.Error == "" {
			return true
		}
	}
	return false
}

func checkTimeout(target *Target, c *Check) time.Duration {
	b, def := target.Bounds, DefaultBounds()
	if c.HasLabel(Slow) {
		return cmp.Or(b.SlowCheck, def.SlowCheck)
	}
	return cmp.Or(b.Check, def.Check)
}

// StallLimit is how many checks in a row may end on a transport failure
// (timeout, reset, unreadable or oversized answer) without one whole HTTP
// answer before the run decides the target has stopped answering and runs
// nothing more: a stalled target costs StallLimit request timeouts, not
// one per check.
var StallLimit = 3

type stall struct {
	mu          sync.Mutex
	consecutive int
	stopped     string
}

func stallOf(t *Target) *stall { return &t.stall }

func (s *stall) observe(transport, answered bool, errText string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case transport && !answered:
		s.consecutive++
		if s.consecutive >= StallLimit && s.stopped == "" {
			if len(errText) > 300 {
				errText = errText[:300] + "…"
			}
			s.stopped = fmt.Sprintf("the target stopped answering: %d checks in a row ended on a transport failure with no whole HTTP answer (last: %s)", s.consecutive, errText)
		}
	case answered:
		s.consecutive = 0
	}
}

func (s *stall) stoppedReason() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stopped
}

// stopError is the cause a schedule's context ends with once the target
// stopped answering.
type stopError struct{ reason string }

func (e *stopError) Error() string { return e.reason }

// Stopped returns why the run against target stopped early, or "".
func Stopped(target *Target) string { return stallOf(target).stoppedReason() }

// preflight returns a skip reason when the target cannot run the check.
func preflight(target *Target, c *Check) string {
	p := target.Profile
	for _, need := range c.Needs {
		kind, name, _ := strings.Cut(need, ".")
		var have string
		switch kind {
		case "keys":
			have = p.Key(name)
		case "customers":
			have = p.CustomerMap()[name]
		case "beneficiaries":
			have = p.BeneficiaryMap()[name]
		case "crypto":
			have = p.CryptoMap()[name]
		case "webhook_url":
			have = p.WebhookURL
		case "cors_allowed_origin":
			have = p.CORSAllowedOrigin
		}
		if have == "" {
			return "profile has no " + need
		}
	}
	if reason, _ := controlPreflight(target, c); reason != "" {
		return reason
	}
	if c.HasLabel(Mutating) && !target.AllowLive {
		if name := p.LiveRole(); name != "" {
			return fmt.Sprintf("refused: keys.%s is a live key and the check mutates; pass --allow-live to opt in", name)
		}
	}
	return ""
}

func validateSchemas(target *Target, exs []*client.Exchange) []Failure {
	if target.Schemas == nil {
		return nil
	}
	var c collapser
	for _, ex := range exs {
		if ex.Response == nil {
			continue
		}
		if err := target.Schemas.Validate(ex); err != nil {
			c.add(SchemaRule, "response does not match the target's OpenAPI document: ", err, ex)
		}
	}
	return c.failures()
}

// collapser records a schema mismatch once per reason within a check: a
// target that breaks a rule on every response (a header it never sends)
// gives one failure with its count and first evidence, not one per
// response.
type collapser struct {
	order []string
	by    map[string]*Failure
	n     map[string]int
}

func (c *collapser) add(rule, prefix string, err error, ex *client.Exchange) {
	reason := err.Error()
	var m *openapicheck.Mismatch
	if errors.As(err, &m) {
		reason = m.Reason
	}
	key := rule + "\x00" + reason
	if c.by == nil {
		c.by, c.n = map[string]*Failure{}, map[string]int{}
	}
	if c.by[key] == nil {
		c.order = append(c.order, key)
		c.by[key] = &Failure{Rule: rule, Message: prefix + err.Error(), Exchange: ex, Reason: reason}
	}
	c.n[key]++
}

func (c *collapser) failures() []Failure {
	var out []Failure
	for _, k := range c.order {
		f := *c.by[k]
		if n := c.n[k]; n > 1 {
			f.Occurrences = n
			f.Message += fmt.Sprintf(" (the same in %d responses of this check; the first is the evidence)", n)
		}
		out = append(out, f)
	}
	return out
}

// failedAuths counts the failed authentications among exs' answers.
func failedAuths(exs []*client.Exchange) int {
	n := 0
	for _, ex := range exs {
		if r := ex.Response; r != nil && (r.Status == 401 || r.Status == 403) && traffic.IsFailedAuth(r.Status, problemCode(r)) {
			n++
		}
	}
	return n
}
