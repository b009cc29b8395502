package property

import (
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"

	"pgregory.net/rapid"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// Beneficiary approval (document 1, States / Beneficiary approval;
// Resources / Beneficiary) as a state machine over one fresh Active
// customer with funds: create (one record per selected provider), staff
// decisions (control API), PROVIDER_B bank registration moves (control),
// PATCH replace, DELETE, reads and a fiat withdrawal as the payability
// probe. The model predicts approval_status (new records PendingApproval:
// BEN-013; decisions move only PendingApproval: BEN-014; registration
// leaves it unchanged: BEN-015), no rejection reason (BEN-010), PATCH
// answering new ids (BEN-012) or 409 beneficiary_update_failed once a
// PROVIDER_B registration started (BEN-018, BEN-019), and payability
// (BEN-009): a withdrawal is accepted exactly when Approved and, for
// PROVIDER_B, Registered; refused with 409 beneficiary_not_approved before
// approval and beneficiary_not_ready while unregistered; never accepted
// after DELETE (BEN-023). A replaced record leaves the model (what its
// reads answer after supersession is not stated).

type benRow struct {
	id, provider string
	approval     string
	registration string // PROVIDER_B: "" until the control API moves it
	deleted      bool
}

type benMachine struct {
	t    *check.T
	c    *client.Client
	cust string
	rows []*benRow
	log  steps
	// staff: decisions and registration moves come from outside (a target
	// without the control API): a record's approval may move on from
	// PendingApproval and its bank registration start at any time, which
	// the model learns by reading it before a PATCH or a withdrawal.
	staff bool
}

func (m *benMachine) rowsOf(rt *rapid.T, rule string, r *client.Response) []*benRow {
	var env struct {
		Data struct {
			Beneficiaries []struct {
				ID       string `json:"id"`
				Provider string `json:"provider"`
				Approval string `json:"approval_status"`
			} `json:"beneficiaries"`
		} `json:"data"`
	}
	if r.Status/100 != 2 || json.Unmarshal(r.Body, &env) != nil || len(env.Data.Beneficiaries) == 0 {
		m.log.fail(rt, "%s: answered %d %s, want data.beneficiaries", rule, r.Status, shape.Clip(r.Body))
	}
	var out []*benRow
	for _, b := range env.Data.Beneficiaries {
		if rule == "BEN-021" && b.Approval != "" && b.Approval != "PendingApproval" {
			m.log.fail(rt, "BEN-013: a new beneficiary (%s) is %s, want PendingApproval", b.Provider, b.Approval)
		}
		out = append(out, &benRow{id: b.ID, provider: b.Provider, approval: "PendingApproval"})
	}
	return out
}

func (m *benMachine) pick(rt *rapid.T, ok func(*benRow) bool) *benRow {
	var c []*benRow
	for _, b := range m.rows {
		if ok(b) {
			c = append(c, b)
		}
	}
	if len(c) == 0 {
		rt.Skip("no such beneficiary")
	}
	return c[rapid.IntRange(0, len(c)-1).Draw(rt, "beneficiary")]
}

func (m *benMachine) Create(rt *rapid.T) {
	if len(m.rows) >= 8 {
		rt.Skip("enough beneficiaries")
	}
	r := m.t.Do(m.c, client.Request{Method: http.MethodPost, Path: fresh.Beneficiaries(m.cust), JSON: fresh.GBPPayee("Grace Payee"), IdempotencyKey: m.t.NewKey()})
	m.log.add("POST beneficiaries (GBP)", r)
	m.rows = append(m.rows, m.rowsOf(rt, "BEN-021", r)...)
}

func (m *benMachine) Decide(rt *rapid.T) {
	b := m.pick(rt, func(b *benRow) bool { return b.approval == "PendingApproval" && !b.deleted })
	d := rapid.SampledFrom([]string{"approved", "approved", "rejected"}).Draw(rt, "decision")
	if err := m.t.Control().BeneficiaryDecision(m.t.Context(), b.id, d, "property reason"); err != nil {
		m.log.fail(rt, "BEN-013/BEN-014: the staff decision on a record the model holds PendingApproval was refused: %v", err)
	}
	m.log.note("control: staff decide %s on %s", d, b.id)
	b.approval = map[string]string{"approved": "Approved", "rejected": "Rejected"}[d]
	// The decision's move is judged at once (BEN-014), so that a later
	// read or payment does not blame another rule for it.
	if got := m.read(rt, b)["approval_status"]; got != b.approval {
		m.log.fail(rt, "BEN-014: after a staff decision %s the record reads approval_status %v, want %s", d, got, b.approval)
	}
}

func (m *benMachine) Register(rt *rapid.T) {
	b := m.pick(rt, func(b *benRow) bool { return b.provider == "PROVIDER_B" && !b.deleted })
	st := rapid.SampledFrom([]string{"Pending", "Registered", "Registered", "NeedsReview"}).Draw(rt, "registration")
	if err := m.t.Control().BankRegistration(m.t.Context(), b.id, st); err != nil {
		m.t.NoVerdict(err)
	}
	m.log.note("control: bank registration of %s moves to %s", b.id, st)
	b.registration = st
	// The registration's move is judged at once (BEN-015): the approval
	// state is unchanged and the registration reads the new status.
	d := m.read(rt, b)
	if d["approval_status"] != b.approval {
		m.log.fail(rt, "BEN-015: a bank registration move to %s changed approval_status to %v, the model %s", st, d["approval_status"], b.approval)
	}
	if reg, _ := d["bank_registration"].(map[string]any); reg == nil || reg["status"] != st {
		m.log.fail(rt, "BEN-015: after a bank registration move to %s, bank_registration is %v", st, d["bank_registration"])
	}
}

func (m *benMachine) Patch(rt *rapid.T) {
	b := m.pick(rt, func(b *benRow) bool { return !b.deleted })
	m.sync(rt, b)
	r := m.t.Do(m.c, client.Request{Method: http.MethodPatch, Path: fresh.Beneficiaries(m.cust) + "/" + b.id, JSON: fresh.GBPPayee("Ada Payee"), IdempotencyKey: m.t.NewKey()})
	m.log.add("PATCH beneficiaries/"+b.id, r)
	if b.provider == "PROVIDER_B" && b.registration != "" {
		// That it is refused is BEN-018's; how (409
		// beneficiary_update_failed) is BEN-019's reading.
		if r.Status/100 == 2 {
			m.log.fail(rt, "BEN-018: PATCH of a PROVIDER_B record whose bank registration started (%s) was taken (%d %s); it cannot be replaced through PATCH", b.registration, r.Status, shape.Clip(r.Body))
		}
		if r.Status != http.StatusConflict || envCode(r) != "beneficiary_update_failed" {
			m.log.fail(rt, "BEN-019: PATCH of a PROVIDER_B record whose bank registration started (%s) answered %d %s, want 409 beneficiary_update_failed", b.registration, r.Status, shape.Clip(r.Body))
		}
		return
	}
	repl := m.rowsOf(rt, "BEN-022", r)
	for _, n := range repl {
		if n.id == b.id {
			m.log.fail(rt, "BEN-012: PATCH answered the replaced record's own id %s; a replacement is a new record", b.id)
		}
	}
	for i, x := range m.rows {
		if x == b {
			m.rows = append(m.rows[:i], m.rows[i+1:]...)
			break
		}
	}
	m.rows = append(m.rows, repl...)
}

func (m *benMachine) Delete(rt *rapid.T) {
	b := m.pick(rt, func(b *benRow) bool { return !b.deleted })
	r := m.t.Do(m.c, client.Request{Method: http.MethodDelete, Path: fresh.Beneficiaries(m.cust) + "/" + b.id, IdempotencyKey: m.t.NewKey()})
	m.log.add("DELETE beneficiaries/"+b.id, r)
	if r.Status/100 != 2 {
		m.log.fail(rt, "BEN-023: DELETE answered %d %s, want success", r.Status, shape.Clip(r.Body))
	}
	b.deleted = true
}

func (m *benMachine) Read(rt *rapid.T) {
	b := m.pick(rt, func(b *benRow) bool { return !b.deleted })
	d := m.read(rt, b)
	if m.staff {
		m.learn(rt, b, d)
	}
	if d["approval_status"] != b.approval {
		rule := "BEN-014"
		switch {
		case b.approval == "PendingApproval":
			rule = "BEN-013"
		case b.registration != "":
			rule = "BEN-015"
		}
		m.log.fail(rt, "%s: approval_status %v, the model %s (registration %q)", rule, d["approval_status"], b.approval, b.registration)
	}
	if _, shown := d["rejection_reason"]; shown {
		m.log.fail(rt, "BEN-010: the read carries rejection_reason")
	}
	if b.registration != "" {
		reg, _ := d["bank_registration"].(map[string]any)
		if reg == nil || reg["status"] != b.registration {
			m.log.fail(rt, "BEN-015: bank_registration %v, the model %s", d["bank_registration"], b.registration)
		}
	}
}

// read reads a record (GET beneficiaries/{id}).
func (m *benMachine) read(rt *rapid.T, b *benRow) map[string]any {
	r := m.t.Do(m.c, client.Request{Method: http.MethodGet, Path: fresh.Beneficiaries(m.cust) + "/" + b.id})
	m.log.add("GET beneficiaries/"+b.id, r)
	var env struct {
		Data map[string]any `json:"data"`
	}
	if r.Status != http.StatusOK || json.Unmarshal(r.Body, &env) != nil {
		m.log.fail(rt, "BEN-020: reading the beneficiary answered %d %s", r.Status, shape.Clip(r.Body))
	}
	d := env.Data
	if in, ok := d["beneficiary"].(map[string]any); ok {
		d = in
	}
	return d
}

// sync reads a record when staff decide outside the model, and learns
// what they did.
func (m *benMachine) sync(rt *rapid.T, b *benRow) {
	if m.staff {
		m.learn(rt, b, m.read(rt, b))
	}
}

// learn takes a staff decision and a started bank registration from a
// read: a decision moves only PendingApproval (BEN-014), and moves it once.
func (m *benMachine) learn(rt *rapid.T, b *benRow, d map[string]any) {
	got, _ := d["approval_status"].(string)
	if got != b.approval && b.approval == "PendingApproval" && (got == "Approved" || got == "Rejected") {
		m.log.note("staff decided %s on %s (read)", got, b.id)
		b.approval = got
	}
	if b.provider != "PROVIDER_B" {
		return
	}
	reg, _ := d["bank_registration"].(map[string]any)
	if st, _ := reg["status"].(string); st != "" && st != "NotStarted" {
		b.registration = st
	}
}

// Pay probes payability with a one-penny FPS withdrawal.
func (m *benMachine) Pay(rt *rapid.T) {
	b := m.pick(rt, func(*benRow) bool { return true })
	if !b.deleted {
		m.sync(rt, b)
	}
	r := m.t.Do(m.c, client.Request{Method: http.MethodPost, Path: api.Customer(m.cust) + "/banking/withdrawals", IdempotencyKey: m.t.NewKey(),
		JSON: map[string]any{"beneficiary_id": b.id, "currency": "GBP", "amount": 1, "rail": "FPS", "description": "Rent"}})
	m.log.add("POST banking/withdrawals to "+b.id, r)
	payable := !b.deleted && b.approval == "Approved" && (b.provider != "PROVIDER_B" || b.registration == "Registered")
	switch {
	case b.deleted:
		if r.Status/100 == 2 {
			m.log.fail(rt, "BEN-023: a withdrawal to a deleted (disabled) beneficiary answered %d", r.Status)
		}
	case payable:
		if r.Status != http.StatusOK {
			m.log.fail(rt, "BEN-009: a withdrawal to an Approved%s beneficiary answered %d %s, want 200", map[bool]string{true: ", Registered"}[b.provider == "PROVIDER_B"], r.Status, shape.Clip(r.Body))
		}
	case b.approval != "Approved":
		if r.Status != http.StatusConflict || envCode(r) != "beneficiary_not_approved" {
			m.log.fail(rt, "BEN-009: a withdrawal to a %s beneficiary answered %d %s, want 409 beneficiary_not_approved", b.approval, r.Status, shape.Clip(r.Body))
		}
	default:
		if r.Status != http.StatusConflict || envCode(r) != "beneficiary_not_ready" {
			m.log.fail(rt, "BEN-009: a withdrawal to an Approved PROVIDER_B beneficiary with registration %q answered %d %s, want 409 beneficiary_not_ready", b.registration, r.Status, shape.Clip(r.Body))
		}
	}
}

// Check is rapid's invariant hook: every action compares its own answer.
func (m *benMachine) Check(*rapid.T) {}

// envCode is data.code of an envelope (or the flat code).
func envCode(r *client.Response) string {
	var e struct {
		Code string `json:"code"`
		Data struct {
			Code string `json:"code"`
		} `json:"data"`
	}
	_ = json.Unmarshal(r.Body, &e)
	if e.Data.Code != "" {
		return e.Data.Code
	}
	return e.Code
}

// benCustomer is a fresh Active customer with GBP funds and no
// beneficiary: the model's creates are its only ones, so that a create
// answering without data.beneficiaries fails the property under BEN-021
// instead of stopping its setup.
func benCustomer(t *check.T, c *client.Client) string {
	cust := createCustomer(t, c)
	fresh.Initiate(t, cust, "kyc")
	fresh.Decide(t, cust, "approved")
	if st := fresh.Status(t, "LIFE-011", cust); st != "Active" {
		t.NoVerdict(fmt.Errorf("the beneficiary customer is %s after approval, want Active", st))
	}
	funds := new(big.Int).Exp(big.NewInt(10), big.NewInt(13), nil)
	if err := t.Control().Call(t.Context(), http.MethodPost, "/withdrawals/funds/"+cust, map[string]any{"currency": "GBP", "available_minor": json.Number(funds.String())}, nil); err != nil {
		t.NoVerdict(err)
	}
	return cust
}

// beneficiariesChecks are the checks of beneficiaries.go.
func beneficiariesChecks() []check.Check {
	rules := []string{"BEN-009", "BEN-010", "BEN-012", "BEN-013", "BEN-014", "BEN-015", "BEN-018", "BEN-019", "BEN-020", "BEN-021", "BEN-022", "BEN-023", "LIFE-011"}
	return []check.Check{
		{
			ID:     "property/beneficiary-approval",
			Alone:  check.WithControl,
			Title:  "random creates, staff decisions, bank registration moves, PATCH replacements, DELETEs, reads and withdrawals match the beneficiary approval and payability model",
			Rules:  rules,
			Labels: []string{check.Mutating, Label}, Needs: []string{"keys.tenant"},
			ControlWhy:   "staff decisions and bank registration moves are made outside the API (document 1, States / Beneficiary approval): only the control API makes them when the model draws them",
			ControlRules: []string{"BEN-014", "BEN-015", "BEN-018", "BEN-019"},
			Run: func(t *check.T) {
				staffed := t.Target().VirtualClock()
				var cust string
				c := t.Client("tenant")
				if staffed {
					t.NeedVirtualClock()
					cust = benCustomer(t, c)
				} else {
					// The profile's Active customer: its payees stay
					// PendingApproval until the target's staff decide.
					t.WithoutControl()
					cust = t.Customer("active_personal")
				}
				counted(c)
				run(t, "property/beneficiary-approval", rules, func(rt *rapid.T) {
					m := &benMachine{t: t, c: c, cust: cust, staff: !staffed}
					actions := rapid.StateMachineActions(m)
					if !staffed {
						actions = apiOnly(actions, "Decide", "Register")
					}
					rt.Repeat(actions)
				})
			},
		},
	}
}
