package property

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"

	"github.com/google/uuid"
	"pgregory.net/rapid"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// The customer lifecycle (document 1, States / Customer lifecycle) as a
// state machine over one fresh Personal customer: verification initiate
// and token, the identity provider's decisions (control API), refreshing
// reads (GET customers/{id}, onboarding status), list reads that never
// refresh, PATCH to Suspended/Blocked/Closed (and refused values), and a
// money route (POST banking/withdrawals). The model predicts every status,
// the verification vocabulary, steps, kyc_status/kyb_status,
// can_proceed_to_kyb, current_step's range (ONB-002: no mapping asserted)
// and whether the money route answers 409 kyc_or_kyb_not_approved.
//
// Decisions follow the control API's documented effect (README, control
// table; fixtures/INTERPRETATIONS.md item 16): approved takes effect on the
// next refreshing read, rejected and pending_review at once (Rejected,
// PendingCompliance) unless the customer is Suspended, Blocked, Closed or
// Rejected.

var vocab = map[string]string{"Draft": "pending", "Onboarding": "in_progress", "PendingCompliance": "in_progress", "Active": "approved",
	"Rejected": "rejected", "Suspended": "blocked", "Blocked": "blocked", "Closed": "closed"}

// mappingRule names each lifecycle status's vocabulary rule.
var mappingRule = map[string]string{"Draft": "LIFE-017", "Onboarding": "LIFE-018", "PendingCompliance": "LIFE-019", "Active": "LIFE-020",
	"Rejected": "LIFE-021", "Suspended": "LIFE-022", "Blocked": "LIFE-023", "Closed": "LIFE-024"}

func stuck(status string) bool {
	return status == "Suspended" || status == "Blocked" || status == "Closed" || status == "Rejected"
}

type lifeMachine struct {
	t        *check.T
	c        *client.Client
	id       string
	status   string // the model's stored status
	hasCase  bool
	decision string // the latest case's decision
	down     bool   // the identity provider is unreachable
	log      steps
}

// refresh is what a refreshing read does to the model: nothing while the
// provider is unreachable (the stored status stands: LIFE-012).
func (m *lifeMachine) refresh() {
	if m.down {
		return
	}
	if m.hasCase && m.decision == "approved" && !stuck(m.status) {
		m.status = "Active"
	}
}

func (m *lifeMachine) data(rt *rapid.T, rule string, r *client.Response) map[string]any {
	var env struct {
		Data map[string]any `json:"data"`
	}
	if r.Status != http.StatusOK || json.Unmarshal(r.Body, &env) != nil || env.Data == nil {
		m.log.fail(rt, "%s: answered %d %s, want 200 with data", rule, r.Status, shape.Clip(r.Body))
	}
	return env.Data
}

func (m *lifeMachine) session(rt *rapid.T, op string) {
	r := m.t.Do(m.c, client.Request{Method: http.MethodPost, Path: api.Customer(m.id) + "/onboarding/kyc/" + op, IdempotencyKey: m.t.NewKey()})
	m.log.add("POST onboarding/kyc/"+op, r)
	m.data(rt, "LIFE-010", r)
	m.refresh()
	if !m.hasCase {
		m.hasCase, m.decision = true, ""
	}
	if m.status == "Draft" {
		m.status = "Onboarding"
	}
}

// Initiate opens (or replays) the verification session: Draft moves to
// Onboarding (LIFE-010); an approved latest case activates (LIFE-011).
// Not drawn while the provider is unreachable (what a session does then is
// not stated).
func (m *lifeMachine) Initiate(rt *rapid.T) {
	if m.down {
		rt.Skip("the provider is unreachable")
	}
	m.session(rt, "initiate")
}

// Token mints a fresh SDK token: a refreshing call like initiate.
func (m *lifeMachine) Token(rt *rapid.T) {
	if !m.hasCase || m.down {
		rt.Skip("no session yet, or the provider is unreachable")
	}
	m.session(rt, "token")
}

// Decide records the provider's decision on the latest case.
func (m *lifeMachine) Decide(rt *rapid.T) {
	if !m.hasCase {
		rt.Skip("no case yet")
	}
	m.decide(rapid.SampledFrom([]string{"approved", "rejected", "pending_review", "pending_review"}).Draw(rt, "decision"))
}

// Approve is the provider's approval (drawn more often than other
// decisions: approval is what refreshing and list reads tell apart).
func (m *lifeMachine) Approve(rt *rapid.T) {
	if !m.hasCase {
		rt.Skip("no case yet")
	}
	m.decide("approved")
}

func (m *lifeMachine) decide(d string) {
	if err := m.t.Control().VerificationDecision(m.t.Context(), m.id, d); err != nil {
		m.t.NoVerdict(err)
	}
	m.log.note("control: the provider decides %s", d)
	m.decision = d
	if !stuck(m.status) {
		switch d {
		case "rejected":
			m.status = "Rejected"
		case "pending_review":
			m.status = "PendingCompliance"
		}
	}
}

// Provider makes the identity provider unreachable or reachable again
// (control API; the case restores it when it ends).
func (m *lifeMachine) Provider(rt *rapid.T) {
	m.down = !m.down
	if err := m.t.Control().Call(m.t.Context(), http.MethodPost, "/provider", map[string]any{"reachable": !m.down}, nil); err != nil {
		m.t.NoVerdict(err)
	}
	m.log.note("control: the identity provider is reachable: %v", !m.down)
}

// KindStatus is GET onboarding/kyc/status: refreshing; the same mapped
// value as the combined route plus customer_status (ONB-009).
func (m *lifeMachine) KindStatus(rt *rapid.T) {
	r := m.t.Do(m.c, client.Request{Method: http.MethodGet, Path: api.Customer(m.id) + "/onboarding/kyc/status"})
	m.log.add("GET onboarding/kyc/status", r)
	d := m.data(rt, m.readRule("ONB-009"), r)
	before := m.status
	m.refresh()
	if d["customer_status"] == m.status && d["kyc_status"] == vocab[m.status] {
		return
	}
	// The single-kind route left the model: it either differs from the
	// combined route (ONB-009), or says what the combined route says and
	// the lifecycle or its vocabulary is what went wrong. The combined
	// route is refreshing too, but the refresh already happened.
	c := m.t.Do(m.c, client.Request{Method: http.MethodGet, Path: api.Customer(m.id) + "/onboarding/status"})
	m.log.add("GET onboarding/status", c)
	combined := m.data(rt, m.readRule("ONB-008"), c)
	same := combined["customer_status"] == d["customer_status"] && combined["kyc_status"] == d["kyc_status"]
	if d["customer_status"] != m.status {
		m.log.fail(rt, "%s: onboarding/kyc/status customer_status %v, the model %s (stored %s, latest case %q; onboarding/status says %v)",
			m.kindRule(same, m.statusRule(before)), d["customer_status"], m.status, before, m.decision, combined["customer_status"])
	}
	m.log.fail(rt, "%s: a %s customer's onboarding/kyc/status kyc_status is %v, want %s (onboarding/status says %v)",
		m.kindRule(same, mappingRule[m.status]), m.status, d["kyc_status"], vocab[m.status], combined["kyc_status"])
}

// kindRule names what a single-kind status answer that left the model
// breaks: rule when the combined route answers the same (the lifecycle or
// the vocabulary went wrong on both), ONB-009 when the two routes differ.
func (m *lifeMachine) kindRule(same bool, rule string) string {
	if same {
		return rule
	}
	return "ONB-009"
}

// readRule is rule, or LIFE-012 alone while the provider is unreachable (a
// refreshing read must still answer 200: a read that fails then breaks
// that sentence, not the refresh it would have made).
func (m *lifeMachine) readRule(rule string) string {
	if m.down {
		return "LIFE-012"
	}
	return rule
}

// Read is GET customers/{id}: refreshing (LIFE-011, LIFE-016).
func (m *lifeMachine) Read(rt *rapid.T) {
	r := m.t.Do(m.c, client.Request{Method: http.MethodGet, Path: api.Customer(m.id)})
	m.log.add("GET customers/{id}", r)
	d := m.data(rt, m.readRule("LIFE-011"), r)
	if inner, ok := d["customer"].(map[string]any); ok {
		d = inner
	}
	before := m.status
	m.refresh()
	if got := d["status"]; got != m.status {
		m.log.fail(rt, "%s: GET customers/{id} says status %v, the model %s (stored %s, latest case %q)", m.statusRule(before), got, m.status, before, m.decision)
	}
}

// statusRule names the rule a wrong status after a refreshing read breaks.
func (m *lifeMachine) statusRule(before string) string {
	switch {
	case stuck(before):
		return "LIFE-016"
	case m.status == "Active" && before != "Active":
		return "LIFE-011"
	case before == "Onboarding" && !m.hasCase:
		return "LIFE-002"
	case before == "Draft":
		return "LIFE-002"
	case before == "Onboarding":
		return "LIFE-010"
	}
	return "LIFE-013"
}

// Status is GET onboarding/status: refreshing; the mapped vocabulary.
func (m *lifeMachine) Status(rt *rapid.T) {
	r := m.t.Do(m.c, client.Request{Method: http.MethodGet, Path: api.Customer(m.id) + "/onboarding/status"})
	m.log.add("GET onboarding/status", r)
	d := m.data(rt, m.readRule("ONB-008"), r)
	before := m.status
	m.refresh()
	if d["customer_status"] != m.status {
		rule := m.statusRule(before)
		// The customer's own status field (GET customers/{id}, refreshing
		// too, but the refresh already happened) and this answer's
		// kyc_status say what the model says: onboarding/status reported
		// something other than the lifecycle status (ONB-008), not a
		// wrong lifecycle (a read that did not refresh is stale in both).
		c := m.t.Do(m.c, client.Request{Method: http.MethodGet, Path: api.Customer(m.id)})
		m.log.add("GET customers/{id}", c)
		cd := m.data(rt, m.readRule("LIFE-011"), c)
		if inner, ok := cd["customer"].(map[string]any); ok {
			cd = inner
		}
		if cd["status"] == m.status && d["kyc_status"] == vocab[m.status] {
			rule = "ONB-008"
		}
		m.log.fail(rt, "%s: onboarding/status customer_status %v, the model %s (stored %s, latest case %q; the customer's status field says %v)", rule, d["customer_status"], m.status, before, m.decision, cd["status"])
	}
	want := vocab[m.status]
	rule := mappingRule[m.status]
	steps, _ := d["steps"].(map[string]any)
	switch {
	case d["kyc_status"] != want:
		m.log.fail(rt, "%s: a %s customer's kyc_status is %v, want %s", rule, m.status, d["kyc_status"], want)
	case d["kyb_status"] != nil:
		m.log.fail(rt, "ONB-006: a Personal customer's kyb_status is %v, want null", d["kyb_status"])
	case steps == nil || steps["kyc"] != want || steps["kyb"] != "not_applicable":
		m.log.fail(rt, "ONB-004: steps %v, want kyc %s and kyb not_applicable", d["steps"], want)
	case d["can_proceed_to_kyb"] != (m.status == "Active"):
		m.log.fail(rt, "ONB-007: can_proceed_to_kyb %v for a %s Personal customer, want %v", d["can_proceed_to_kyb"], m.status, m.status == "Active")
	}
	if cs, _ := d["current_step"].(string); cs != "kyc" && cs != "kyb" && cs != "completed" {
		m.log.fail(rt, "ONB-001: current_step %v, want kyc, kyb or completed", d["current_step"])
	}
}

// List finds the customer in GET customers: the stored status, never
// refreshed (LIFE-015).
func (m *lifeMachine) List(rt *rapid.T) {
	if c := m.listed(rt); c != m.status {
		m.log.fail(rt, "%s: the list shows status %s, the model's stored status %s (the list never refreshes; latest case %q)", m.listRule(c), c, m.status, m.decision)
	}
}

// listed is the customer's status as GET customers lists it.
func (m *lifeMachine) listed(rt *rapid.T) string {
	// Newest first: the case's own customer is on the first small page
	// unless many were created since; small pages keep each step cheap.
	const per = 25
	for page := 1; page <= 400; page++ {
		q := "limit=" + strconv.Itoa(per) + "&page=" + strconv.Itoa(page)
		r := m.t.Do(m.c, client.Request{Method: http.MethodGet, Path: api.P + "/customers", Query: url.Values{"limit": {strconv.Itoa(per)}, "page": {strconv.Itoa(page)}}})
		var env struct {
			Data struct {
				Customers []struct {
					ID     string `json:"id"`
					Status string `json:"status"`
				} `json:"customers"`
			} `json:"data"`
		}
		if r.Status != http.StatusOK || json.Unmarshal(r.Body, &env) != nil {
			m.log.add("GET customers?"+q, r)
			m.log.fail(rt, "LIFE-015: the customer list answered %d", r.Status)
		}
		for _, c := range env.Data.Customers {
			if c.ID == m.id {
				m.log.add("GET customers?"+q, r)
				return c.Status
			}
		}
		if len(env.Data.Customers) < per {
			break
		}
	}
	m.log.fail(rt, "LIFE-015: customer %s is not in GET customers", m.id)
	return ""
}

// ListAgain is another list read (list reads are drawn twice as often).
func (m *lifeMachine) ListAgain(rt *rapid.T) { m.List(rt) }

// Patch sends PATCH status: Suspended, Blocked, Closed are accepted from
// any state (LIFE-013); Active, Draft and Onboarding are refused with 422
// and change nothing (LIFE-014).
func (m *lifeMachine) Patch(rt *rapid.T) {
	s := rapid.SampledFrom([]string{"Suspended", "Blocked", "Closed", "Suspended", "Blocked", "Closed", "Active", "Draft", "Onboarding"}).Draw(rt, "status")
	r := m.t.Do(m.c, client.Request{Method: http.MethodPatch, Path: api.Customer(m.id), JSON: map[string]any{"status": s}, IdempotencyKey: m.t.NewKey()})
	m.log.add("PATCH status "+s, r)
	switch s {
	case "Suspended", "Blocked", "Closed":
		d := m.data(rt, "LIFE-013", r)
		if d["status"] != s {
			m.log.fail(rt, "LIFE-013: PATCH status %s answered status %v", s, d["status"])
		}
		m.status = s
	default:
		if r.Status != http.StatusUnprocessableEntity {
			m.log.fail(rt, "LIFE-014: PATCH status %s answered %d %s, want 422 (only Suspended, Blocked and Closed are accepted)", s, r.Status, shape.Clip(r.Body))
		}
	}
}

// Money posts a fiat withdrawal: a customer that is not Active gets 409
// kyc_or_kyb_not_approved (LIFE-025); an Active one never does.
// The call refreshes nothing.
func (m *lifeMachine) Money(rt *rapid.T) {
	r := m.t.Do(m.c, client.Request{Method: http.MethodPost, Path: api.Customer(m.id) + "/banking/withdrawals", IdempotencyKey: m.t.NewKey(),
		JSON: map[string]any{"beneficiary_id": uuid.NewString(), "currency": "GBP", "amount": 100, "rail": "FPS", "description": "Rent"}})
	m.log.add("POST banking/withdrawals", r)
	var env struct {
		Data struct {
			Code string `json:"code"`
		} `json:"data"`
	}
	_ = json.Unmarshal(r.Body, &env)
	gated := r.Status == http.StatusConflict && env.Data.Code == "kyc_or_kyb_not_approved"
	if gated != (m.status != "Active") {
		if listed := m.listed(rt); listed != m.status {
			// The stored status left the model earlier: that is the fault,
			// not the precondition.
			m.log.fail(rt, "%s: a withdrawal answered %d %s for a customer the list shows %s, the model %s (latest case %q)", m.listRule(listed), r.Status, shape.Clip(r.Body), listed, m.status, m.decision)
		}
		m.log.fail(rt, "%s: a %s customer's withdrawal answered %d %s; want 409 kyc_or_kyb_not_approved exactly when not Active", m.moneyRule(r.Status, env.Data.Code), m.status, r.Status, shape.Clip(r.Body))
	}
}

// blockedRule names each status's sentence that blocks money movement in
// it (Active's allows it).
var blockedRule = map[string]string{"Draft": "LIFE-002", "Onboarding": "LIFE-003", "PendingCompliance": "LIFE-004", "Active": "LIFE-005",
	"Rejected": "LIFE-006", "Suspended": "LIFE-007", "Blocked": "LIFE-008", "Closed": "LIFE-009"}

// moneyRule names what a money route's answer that left the model breaks:
// the model's status's own sentence when the route let a customer that is
// not Active past the precondition (or stopped an Active one), the
// precondition's answer (LIFE-025; POST banking/withdrawals is among the
// routes LIFE-026 reads as money-moving) when a 409 stopped the customer
// under another code.
func (m *lifeMachine) moneyRule(status int, code string) string {
	if m.status != "Active" && status == http.StatusConflict && code != "" {
		return "LIFE-025"
	}
	return blockedRule[m.status]
}

// lifecycleChecks are the checks of lifecycle.go.
func lifecycleChecks() []check.Check {
	rules := []string{"LIFE-002", "LIFE-003", "LIFE-005", "LIFE-006", "LIFE-007", "LIFE-008", "LIFE-009", "LIFE-010", "LIFE-011", "LIFE-013", "LIFE-014", "LIFE-015", "LIFE-016", "LIFE-017", "LIFE-018", "LIFE-019",
		"LIFE-020", "LIFE-021", "LIFE-022", "LIFE-023", "LIFE-024", "LIFE-025", "LIFE-004", "LIFE-012", "ONB-009", "ONB-001", "ONB-004", "ONB-006", "ONB-007", "ONB-008"}
	return []check.Check{
		{
			ID:     "property/customer-lifecycle",
			Alone:  check.WithControl,
			Title:  "random sequences of initiate, token, provider decisions, refreshing and list reads, PATCH status and a money route on a fresh customer match the lifecycle model (status, vocabulary, can_proceed_to_kyb, the kyc_or_kyb_not_approved precondition)",
			Rules:  rules,
			Labels: []string{check.Mutating, Label}, Needs: []string{"keys.tenant"},
			// On a target without the control API no decision arrives (the
			// end user never completes the session the case opens), so the
			// model's status stays where the API alone moves it.
			ControlWhy:   "the identity provider's decisions (approved, rejected, pending_review) and its reachability come from outside the API: only the control API causes them, so activation, PendingCompliance, Rejected and the stale read are not reached",
			ControlRules: []string{"LIFE-011", "LIFE-012", "LIFE-015", "LIFE-016", "LIFE-019", "LIFE-020", "LIFE-021", "LIFE-004", "LIFE-005", "LIFE-006"},
			Run: func(t *check.T) {
				c := t.Client("tenant")
				counted(c)
				decided := t.ServesControl()
				if !decided {
					t.WithoutControl()
				}
				run(t, "property/customer-lifecycle", rules, func(rt *rapid.T) {
					m := &lifeMachine{t: t, c: c, status: "Draft"}
					m.id = createCustomer(t, c)
					m.log.lines = append(m.log.lines, "1. POST customers (a new Personal customer, Draft)")
					defer func() {
						if m.down {
							if err := t.Control().Call(t.Context(), http.MethodPost, "/provider", map[string]any{"reachable": true}, nil); err != nil {
								t.Logf("could not make the identity provider reachable again: %v", err)
							}
						}
					}()
					actions := rapid.StateMachineActions(m)
					if !decided {
						actions = apiOnly(actions, "Decide", "Approve", "Provider")
					}
					rt.Repeat(actions)
				})
			},
		},
	}
}

// Check is rapid's invariant hook: every action already compares its own
// answer with the model.
func (m *lifeMachine) Check(*rapid.T) {}

// listRule names the rules a listed status that differs from the model's
// stored one breaks: the list refreshed, or an earlier step stored a wrong
// status.
func (m *lifeMachine) listRule(got string) string {
	switch {
	case got == "Active" && stuck(m.status):
		return "LIFE-016/LIFE-015"
	case m.status == "Onboarding" && got == "Draft":
		// A list that refreshed could only have activated the customer.
		return "LIFE-010"
	case m.status == "Draft" && got != "Active":
		// A Draft customer has no case: a refresh changes nothing, so the
		// status was stored wrong when the customer was created.
		return "LIFE-002"
	case m.status == "Draft":
		return "LIFE-002/LIFE-015"
	}
	return "LIFE-015"
}
