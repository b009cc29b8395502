package check

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/google/uuid"

	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/control"
	"github.com/touchstone-harness/touchstone/internal/profile"
	"github.com/touchstone-harness/touchstone/internal/traffic"
)

// T is what a running check uses: fixtures, clients, assertions. Failures
// are recorded with the rule id they violate.
type T struct {
	ctx    context.Context
	target *Target
	check  *Check
	caseID string

	mu         sync.Mutex
	failures   []Failure
	skip       string
	logs       []string
	exchanges  []*client.Exchange
	without    bool              // ran its form for a target without the control API (WithoutControl)
	notJudged  map[string]string // rule -> why it was not judged here (NotJudged)
	shared     []string          // control calls other checks would see (noteControl)
	controlled []string          // every control call, "METHOD TEMPLATE" (noteControl)
	notServed  []string          // control calls the target's capabilities do not list (noteRefused)
	refused    []string          // control calls the target lists but refused (noteRefused)
}

// Failure is one violated rule with its evidence.
type Failure struct {
	Rule    string `json:"rule"`
	Message string `json:"message"`
	// Exchange is the evidence: the exchange the failure is about (ErrorAt,
	// FatalAt, the shape assertions), else the last one before it.
	Exchange *client.Exchange `json:"-"`
	// Occurrences, when above 1, is how many answers of the check showed
	// the same violation (one failure is kept, with the first as evidence).
	Occurrences int `json:"occurrences,omitempty"`
	// Reason is the violation without the request it was seen on (for
	// the schema rule), so a run can tell one cause met by many checks.
	Reason string `json:"-"`
}

type stopSignal struct{}
type skipSignal struct{}
type noVerdict struct{ err error }

// IsSignal tells whether a recovered panic value is one of T's own
// (a stop, a skip, no verdict): code that recovers panics for its own
// reasons (a property engine) must let these through to the check.
func IsSignal(v any) bool {
	switch v.(type) {
	case stopSignal, skipSignal, noVerdict:
		return true
	}
	return false
}

// Context is cancelled when the run is.
func (t *T) Context() context.Context { return t.ctx }

// Profile is the target's profile.
func (t *T) Profile() *profile.Profile { return t.target.Profile }

// Target is the target under test.
func (t *T) Target() *Target { return t.target }

// CaseID identifies this run of this check in every request it sends.
func (t *T) CaseID() string { return t.caseID }

// Client returns a client using the profile key of that name; the check is
// skipped when the profile lacks it.
func (t *T) Client(keyName string) *client.Client {
	key := t.target.Profile.Key(keyName)
	if key == "" {
		t.Skipf("profile has no keys.%s", keyName)
	}
	return &client.Client{
		BaseURL: t.target.Profile.BaseURL,
		Key:     key,
		KeyName: keyName,
		HTTP:    t.target.HTTP,
		CaseID:  t.caseID,
		Record:  t.record,
	}
}

// Anonymous returns a client that sends no key.
func (t *T) Anonymous() *client.Client {
	return &client.Client{BaseURL: t.target.Profile.BaseURL, HTTP: t.target.HTTP, CaseID: t.caseID, Record: t.record}
}

// Customer returns a customer fixture id or skips.
func (t *T) Customer(name string) string {
	id := t.target.Profile.CustomerMap()[name]
	if id == "" {
		t.Skipf("profile has no customers.%s", name)
	}
	return id
}

// Beneficiary returns a beneficiary fixture id or skips.
func (t *T) Beneficiary(name string) string {
	id := t.target.Profile.BeneficiaryMap()[name]
	if id == "" {
		t.Skipf("profile has no beneficiaries.%s", name)
	}
	return id
}

// Crypto returns a crypto fixture id (customer, wallet_btc, whitelist_btc)
// or skips.
func (t *T) Crypto(name string) string {
	id := t.target.Profile.CryptoMap()[name]
	if id == "" {
		t.Skipf("profile has no crypto.%s", name)
	}
	return id
}

// Control returns the control API client or skips.
func (t *T) Control() *control.Client {
	if t.target.Control == nil {
		t.Skipf("target has no control API (control_url)")
	}
	cc := *t.target.Control
	cc.OnCall = t.noteControl
	cc.OnRefused = t.noteRefused
	return &cc
}

// noteControl records a control call that changes what other checks see:
// a global setting, or a write naming one of the profile's shared
// fixtures (a customer, beneficiary or wallet every check may use). Such
// a check must carry the label Alone (a test enforces it).
func (t *T) noteControl(method, path string) {
	t.mu.Lock()
	t.controlled = append(t.controlled, method+" "+traffic.Template(path))
	t.mu.Unlock()
	shared := control.Global(method, path)
	if !shared && method != "GET" {
		for _, id := range t.target.fixtureIDs() {
			if strings.Contains(path, id) {
				shared = true
				break
			}
		}
	}
	if shared {
		t.mu.Lock()
		t.shared = append(t.shared, method+" "+path)
		t.mu.Unlock()
	}
}

// WithoutControl records that the check runs the form the API alone can
// drive, on a target without the control API or a virtual clock: the
// rules of Check.ControlRules are not judged (the result names the
// others only), and the log says which and why (Check.ControlWhy).
func (t *T) WithoutControl() {
	t.mu.Lock()
	t.without = true
	t.mu.Unlock()
	if len(t.check.ControlRules) > 0 {
		t.Logf("not judged on this target: %s (%s)", strings.Join(t.check.ControlRules, ", "), t.check.ControlWhy)
	}
}

// NotJudged records that the check could not judge rules on this target
// (a route the target does not serve, no key to judge with): the result
// leaves them out of its rules and names them with why, so that they are
// reported skipped with the reason, never passed. A check left with no
// rule it judged is skipped. A rule the check judges after all (another
// row of its table) is judged: call this only for the rules no part of
// the check judged.
func (t *T) NotJudged(why string, rules ...string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.notJudged == nil {
		t.notJudged = map[string]string{}
	}
	for _, r := range rules {
		if _, ok := t.notJudged[r]; !ok {
			t.notJudged[r] = why
		}
	}
	t.logs = append(t.logs, fmt.Sprintf("not judged on this target: %s (%s)", strings.Join(rules, ", "), why))
}

// NeedVirtualClock skips unless the target's clock is virtual.
func (t *T) NeedVirtualClock() {
	t.Control()
	if !t.target.VirtualClock() {
		t.Skipf("target clock is real; this form of the check needs a virtual clock (the control calls %s)", strings.Join(control.ClockOps, ", "))
	}
	t.mu.Lock()
	t.shared = append(t.shared, "needs a virtual clock")
	t.mu.Unlock()
}

// Do sends a request; a transport failure ends the check without a verdict.
func (t *T) Do(c *client.Client, r client.Request) *client.Response {
	resp, err := c.Do(t.ctx, r)
	if err != nil {
		t.NoVerdict(err)
	}
	return resp
}

// DoRaw sends header lines byte for byte (see client.DoRaw); a transport
// failure ends the check without a verdict.
func (t *T) DoRaw(c *client.Client, method, path string, header [][2]string, body []byte) *client.Response {
	resp, err := c.DoRaw(t.ctx, method, path, header, body)
	if err != nil {
		t.NoVerdict(err)
	}
	return resp
}

// NewKey returns a fresh Idempotency-Key.
func (t *T) NewKey() string { return "ts-" + uuid.NewString() }

// Errorf records a violation of rule and lets the check go on. The
// evidence is the last exchange the check sent; when the failure is about
// one response, use ErrorAt.
// Declares tells whether the running check may fail under a rule
// (Check.Declares).
func (t *T) Declares(rule string) bool { return t.check.Declares(rule) }

func (t *T) Errorf(rule, format string, args ...any) {
	t.fail(rule, nil, fmt.Sprintf(format, args...))
}

// Fatalf records a violation of rule and stops the check (evidence as
// Errorf).
func (t *T) Fatalf(rule, format string, args ...any) {
	t.fail(rule, nil, fmt.Sprintf(format, args...))
	panic(stopSignal{})
}

// ErrorAt records a violation of rule about response r, whose exchange is
// the failure's evidence (not whatever the check sent last), and lets the
// check go on.
func (t *T) ErrorAt(r *client.Response, rule, format string, args ...any) {
	t.fail(rule, exchangeOf(r), fmt.Sprintf(format, args...))
}

// FatalAt is ErrorAt that stops the check.
func (t *T) FatalAt(r *client.Response, rule, format string, args ...any) {
	t.fail(rule, exchangeOf(r), fmt.Sprintf(format, args...))
	panic(stopSignal{})
}

func exchangeOf(r *client.Response) *client.Exchange {
	if r == nil {
		return nil
	}
	return r.Exchange
}

// Skipf stops the check as skipped with a reason.
func (t *T) Skipf(format string, args ...any) {
	t.mu.Lock()
	t.skip = fmt.Sprintf(format, args...)
	t.mu.Unlock()
	panic(skipSignal{})
}

// NoVerdict stops the check without a verdict: the harness could not tell.
func (t *T) NoVerdict(err error) {
	t.noteRefused(err) // a control call not served, even one sent without T.Control
	panic(noVerdict{err})
}

// Logf adds a line to the check's log.
func (t *T) Logf(format string, args ...any) {
	t.mu.Lock()
	t.logs = append(t.logs, fmt.Sprintf(format, args...))
	t.mu.Unlock()
}

// Failed tells whether any failure has been recorded.
func (t *T) Failed() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.failures) > 0
}

// fail records a failure; ex is its evidence, or nil for the last
// exchange the check sent.
func (t *T) fail(rule string, ex *client.Exchange, msg string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if n := len(t.exchanges); ex == nil && n > 0 {
		ex = t.exchanges[n-1]
	}
	t.failures = append(t.failures, Failure{Rule: rule, Message: strings.TrimSpace(msg), Exchange: ex})
}

func (t *T) record(ex *client.Exchange) {
	ex.Roles = t.target.keyRoles()
	t.mu.Lock()
	t.exchanges = append(t.exchanges, ex)
	t.mu.Unlock()
}

// Go runs f in n goroutines released together and waits for them. A
// failure or skip inside f is recorded as usual.
func (t *T) Go(n int, f func(i int)) {
	var wg sync.WaitGroup
	start := make(chan struct{})
	var verdictErr error
	var vmu sync.Mutex
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			defer func() {
				if r := recover(); r != nil {
					switch v := r.(type) {
					case stopSignal, skipSignal:
					case noVerdict:
						vmu.Lock()
						verdictErr = v.err
						vmu.Unlock()
					default:
						vmu.Lock()
						verdictErr = fmt.Errorf("panic in goroutine: %v", r)
						vmu.Unlock()
					}
				}
			}()
			<-start
			f(i)
		}(i)
	}
	close(start)
	wg.Wait()
	if verdictErr != nil {
		t.NoVerdict(verdictErr)
	}
	if t.Failed() {
		panic(stopSignal{})
	}
}

// problemCode is the code member of a JSON error body (problem+json or
// flat), or "".
func problemCode(r *client.ResponseRecord) string {
	if r.Status < 400 || len(r.Body) == 0 {
		return ""
	}
	var m struct {
		Code any `json:"code"`
	}
	if json.Unmarshal(r.Body, &m) != nil {
		return ""
	}
	s, _ := m.Code.(string)
	return s
}
