package property

import (
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"
	"pgregory.net/rapid"

	"github.com/touchstone-harness/touchstone/internal/amount"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/rails"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// Payout batches (document 1, States / Payout batch; Endpoints / Payout
// batches) as a state machine: a random batch (currencies, canonical rails,
// aliases, spellings and an omitted rail; valid items and items skipped for
// a bad amount, a missing beneficiary, one in another currency, or a
// reference the rail refuses, judged by internal/rails), then operator
// submit, approve, reject and execute (forced item outcomes and stuck items
// included) through the control API in random order, illegal moves
// included. After every step the by-id read is compared with the model:
// status, item statuses and failure codes in sequence order, item_count,
// success_count, failure_count (PB-011), total_amount, approved_at and
// completed_at. The customer is a fresh Active one with its own approved
// GBP beneficiary and funds, so natural outcomes are predictable.

type pbItem struct {
	amount int64
	status string
	code   string
}

type pbMachine struct {
	t         *check.T
	c         *client.Client
	cust, ben string
	id        string
	currency  string
	rail      string
	asked     string
	status    string
	submitter string
	items     []pbItem
	approved  *time.Time
	completed *time.Time
	log       steps
}

var pbCodes = []string{"withdrawal_error", "withdrawal_failed", "beneficiary_not_payable", "configuration", "subject_inactive"}

// create posts the case's batch and predicts its intake. Now and then an
// AUD batch goes first: 422 unsupported_currency, nothing created (PB-093).
func (m *pbMachine) create(rt *rapid.T) {
	if rapid.IntRange(0, 9).Draw(rt, "AUD first") == 0 {
		r := m.t.Do(m.c, client.Request{Method: http.MethodPost, Path: fresh.BatchesPath(m.cust), IdempotencyKey: m.t.NewKey(),
			JSON: map[string]any{"currency": "AUD", "items": []any{map[string]any{"beneficiary_id": m.ben, "amount": 100}}}})
		m.log.add("POST an AUD batch", r)
		if r.Status != http.StatusUnprocessableEntity || envCode(r) != "unsupported_currency" {
			m.log.fail(rt, "PB-093: an AUD batch answered %d %s, want 422 unsupported_currency", r.Status, shape.Clip(r.Body))
		}
	}
	m.currency = rapid.SampledFrom([]string{"GBP", "GBP", "GBP", "GBP", "EUR", "USD"}).Draw(rt, "currency")
	canon := rails.Canonical(m.currency)
	if m.currency == "GBP" {
		canon = []string{"FPS", "CHAPS"} // BACS outcomes depend on the beneficiary's provider (PB-075)
	}
	options := append([]string{""}, canon...)
	for alias, to := range rails.Aliases(m.currency) {
		if to != "BACS" {
			options = append(options, alias)
		}
	}
	asked := rapid.SampledFrom(options).Draw(rt, "rail")
	if asked != "" {
		asked = rapid.SampledFrom(rails.Spellings(asked)).Draw(rt, "spelling")
	}
	m.rail, _ = rails.Resolve(m.currency, asked)
	m.asked = asked
	m.items = nil
	n := rapid.IntRange(1, 6).Draw(rt, "items")
	var items []any
	for range n {
		it := map[string]any{"beneficiary_id": m.ben}
		a := rapid.Int64Range(1, 5000).Draw(rt, "amount")
		skip := m.currency != "GBP" // the beneficiary is GBP
		switch rapid.IntRange(0, 9).Draw(rt, "flaw") {
		case 0:
			a = rapid.SampledFrom([]int64{0, -1, -250}).Draw(rt, "bad amount")
			skip = true
		case 1:
			it["beneficiary_id"] = uuid.NewString()
			skip = true
		case 2:
			g := refGen(m.rail).Draw(rt, "reference")
			if len(strings.TrimSpace(g.ref)) > rails.MaxReference {
				g.ref = "Rent" // keep PB-087's quirk out of the model
			}
			it["reference"] = g.ref
			skip = skip || rails.Reference(m.rail, &g.ref).Skipped
		}
		it["amount"] = a
		st := "Pending"
		code := ""
		if skip {
			st, code = "Skipped", "validation"
		}
		m.items = append(m.items, pbItem{amount: a, status: st, code: code})
		items = append(items, it)
	}
	body := map[string]any{"currency": m.currency, "items": items}
	if asked != "" {
		body["rail"] = asked
	}
	r := m.t.Do(m.c, client.Request{Method: http.MethodPost, Path: fresh.BatchesPath(m.cust), JSON: body, IdempotencyKey: m.t.NewKey()})
	m.log.add(fmt.Sprintf("POST a %s batch, rail %q, %d items", m.currency, asked, n), r)
	var env struct {
		Data struct {
			Batch struct {
				ID string `json:"id"`
			} `json:"payout_batch"`
		} `json:"data"`
	}
	if r.Status != http.StatusOK || json.Unmarshal(r.Body, &env) != nil || env.Data.Batch.ID == "" {
		m.log.fail(rt, "PB-012: creating the batch answered %d %s, want 200 with data.payout_batch", r.Status, shape.Clip(r.Body))
	}
	m.id, m.submitter, m.approved, m.completed = env.Data.Batch.ID, "", nil, nil
	m.status = "Rejected"
	for _, it := range m.items {
		if it.status == "Pending" {
			m.status = "Draft"
		}
	}
}

func (m *pbMachine) control(rt *rapid.T, op, operator string, outcomes map[int]string) error {
	var err error
	if op == "execute" {
		err = m.t.Control().ExecutePayoutBatch(m.t.Context(), m.id, outcomes)
	} else {
		err = m.t.Control().PayoutBatchAction(m.t.Context(), m.id, op, operator)
	}
	what := fmt.Sprintf("%d. control: %s by %s", len(m.log.lines)+1, op, operator)
	if op == "execute" {
		what = fmt.Sprintf("%d. control: execute, forced outcomes %v", len(m.log.lines)+1, outcomes)
	}
	if err != nil {
		what += " (refused)"
	}
	m.log.lines = append(m.log.lines, what)
	return err
}

// legal compares the control API's acceptance with the model's.
func (m *pbMachine) legal(rt *rapid.T, rule, op string, want bool, err error) bool {
	if want && err != nil {
		m.log.fail(rt, "%s: %s of a %s batch was refused: %v", rule, op, m.status, err)
	}
	if !want && err == nil {
		switch m.status {
		case "Completed", "PartiallyCompleted", "Failed", "Rejected":
			// A move out of a terminal status breaks its terminality.
			rule = "PB-021"
		}
		m.log.fail(rt, "%s: %s of a %s batch was accepted, the model refuses it", rule, op, m.status)
	}
	return want
}

// renew replaces a batch in a terminal status by a new one half the time
// (the other half, operator moves on it are tried and must be refused).
func (m *pbMachine) renew(rt *rapid.T) {
	switch m.status {
	case "Completed", "PartiallyCompleted", "Failed", "Rejected":
		if rapid.Bool().Draw(rt, "new batch") {
			m.create(rt)
		}
	}
}

func (m *pbMachine) Submit(rt *rapid.T) {
	m.renew(rt)
	op := rapid.SampledFrom([]string{"ops-a", "ops-b"}).Draw(rt, "operator")
	if m.legal(rt, "PB-014", "submit", m.status == "Draft", m.control(rt, "submit", op, nil)) {
		m.status, m.submitter = "PendingApproval", op
	}
}

func (m *pbMachine) Approve(rt *rapid.T) {
	m.renew(rt)
	op := rapid.SampledFrom([]string{"ops-a", "ops-b"}).Draw(rt, "operator")
	at := m.clock()
	if m.legal(rt, "PB-015", "approve by "+op, m.status == "PendingApproval" && op != m.submitter, m.control(rt, "approve", op, nil)) {
		m.status, m.approved = "Approved", &at
	}
}

func (m *pbMachine) Reject(rt *rapid.T) {
	m.renew(rt)
	op := rapid.SampledFrom([]string{"ops-a", "ops-b"}).Draw(rt, "operator")
	if m.legal(rt, "PB-016", "reject", m.status == "PendingApproval", m.control(rt, "reject", op, nil)) {
		m.status = "Rejected"
	}
}

func (m *pbMachine) Execute(rt *rapid.T) {
	m.renew(rt)
	outcomes := map[int]string{}
	for i, it := range m.items {
		if it.status == "Pending" && rapid.Bool().Draw(rt, "forced") {
			outcomes[i+1] = rapid.SampledFrom(append([]string{"stuck", "stuck"}, pbCodes...)).Draw(rt, "outcome")
		}
	}
	at := m.clock()
	if !m.legal(rt, "PB-017", "execute", m.status == "Approved", m.control(rt, "execute", "", outcomes)) {
		return
	}
	stuck, completed, failed := false, 0, 0
	for i := range m.items {
		it := &m.items[i]
		if it.status != "Pending" {
			continue
		}
		switch o := outcomes[i+1]; o {
		case "stuck":
			it.status, stuck = "Executing", true
		case "":
			it.status = "Completed"
			completed++
		default:
			it.status, it.code = "Failed", o
			failed++
		}
	}
	switch {
	case stuck:
		m.status = "Executing"
	case completed > 0 && failed == 0:
		m.status, m.completed = "Completed", &at
	case completed > 0:
		m.status = "PartiallyCompleted"
	default:
		m.status = "Failed"
	}
}

// Advance moves the virtual clock, so timestamps tell steps apart.
func (m *pbMachine) Advance(rt *rapid.T) {
	d := time.Duration(rapid.IntRange(1, 120).Draw(rt, "seconds")) * time.Second
	if _, err := m.t.Control().Advance(m.t.Context(), d); err != nil {
		m.t.NoVerdict(err)
	}
	m.log.note("control: the clock advances %s", d)
}

func (m *pbMachine) clock() time.Time {
	c, err := m.t.Control().Clock(m.t.Context())
	if err != nil {
		m.t.NoVerdict(err)
	}
	return c.Now
}

// Check reads the batch back and compares it with the model.
func (m *pbMachine) Check(rt *rapid.T) {
	r := m.t.Do(m.c, client.Request{Method: http.MethodGet, Path: fresh.BatchesPath(m.cust) + "/" + m.id})
	var env struct {
		Data struct {
			B struct {
				Status      string      `json:"status"`
				Rail        string      `json:"rail"`
				ItemCount   json.Number `json:"item_count"`
				Success     json.Number `json:"success_count"`
				Failure     json.Number `json:"failure_count"`
				Total       json.Number `json:"total_amount"`
				ApprovedAt  *string     `json:"approved_at"`
				CompletedAt *string     `json:"completed_at"`
				Items       []struct {
					Sequence int     `json:"sequence"`
					Status   string  `json:"status"`
					Code     *string `json:"failure_code"`
				} `json:"items"`
			} `json:"payout_batch"`
		} `json:"data"`
	}
	if !okInto(r, &env) {
		m.log.add("GET payout-batches/{id}", r)
		m.log.fail(rt, "PB-044: reading the batch answered %d %s", r.Status, shape.Clip(r.Body))
	}
	b := env.Data.B
	bad := func(rule, format string, args ...any) {
		m.log.add("GET payout-batches/{id}", r)
		m.log.fail(rt, "%s: "+format, append([]any{rule}, args...)...)
	}
	if b.Status != m.status {
		bad(m.statusRule(), "status %s, the model %s", b.Status, m.status)
	}
	if b.Rail != m.rail {
		rule := "PB-060"
		if m.asked == "" {
			rule = "PB-064/PB-060"
		}
		bad(rule, "rail %s, want %s (canonical)", b.Rail, m.rail)
	}
	completed, failed, skipped := 0, 0, 0
	var sums []string
	for i, it := range m.items {
		sums = append(sums, fmt.Sprint(it.amount))
		switch it.status {
		case "Completed":
			completed++
		case "Failed":
			failed++
		case "Skipped":
			skipped++
		}
		if i >= len(b.Items) || b.Items[i].Sequence != i+1 {
			bad("PB-044", "items are not in sequence order: position %d holds %+v", i+1, b.Items)
		}
		got := b.Items[i]
		code := ""
		if got.Code != nil {
			code = *got.Code
		}
		if got.Status != it.status || code != it.code {
			bad(m.itemRule(it), "item %d is %s/%q, the model %s/%q", i+1, got.Status, code, it.status, it.code)
		}
	}
	total, _ := amount.Sum(sums...)
	if b.Total.String() != total.String() {
		bad("PB-004", "total_amount %s, want %s", b.Total, total)
	}
	if b.ItemCount.String() != fmt.Sprint(len(m.items)) || b.Success.String() != fmt.Sprint(completed) || b.Failure.String() != fmt.Sprint(skipped+failed) {
		bad("PB-011", "counts item/success/failure %s/%s/%s, want %d/%d/%d", b.ItemCount, b.Success, b.Failure, len(m.items), completed, skipped+failed)
	}
	if !sameInstant(b.ApprovedAt, m.approved) {
		bad("PB-015/PB-005/PB-022", "approved_at %v, want %v", str(b.ApprovedAt), m.approved)
	}
	if !sameInstant(b.CompletedAt, m.completed) {
		bad("PB-019/PB-018/PB-005/PB-022", "completed_at %v, want %v (set only when the batch Completed)", str(b.CompletedAt), m.completed)
	}
}

func (m *pbMachine) statusRule() string {
	switch m.status {
	case "Rejected":
		return "PB-013/PB-016"
	case "Executing":
		return "PB-023"
	case "Completed":
		return "PB-018"
	case "PartiallyCompleted":
		return "PB-019"
	case "Failed":
		return "PB-020"
	case "Draft":
		return "PB-012"
	case "PendingApproval":
		return "PB-014"
	}
	return "PB-015"
}

func (m *pbMachine) itemRule(it pbItem) string {
	if it.status == "Skipped" {
		return "PB-031"
	}
	if it.status == "Executing" {
		return "PB-023"
	}
	return "PB-017"
}

func str(p *string) string {
	if p == nil {
		return "null"
	}
	return *p
}

// sameInstant: both null, or both set to the same instant.
func sameInstant(got *string, want *time.Time) bool {
	if got == nil || want == nil {
		return got == nil && want == nil
	}
	t, err := time.Parse(time.RFC3339Nano, *got)
	return err == nil && t.Equal(*want)
}

// pbCustomer makes a fresh Active customer with an approved GBP
// beneficiary and ample funds (setup: no verdict on failure).
func pbCustomer(t *check.T, c *client.Client) (cust, ben string) {
	cust = createCustomer(t, c)
	fresh.Initiate(t, cust, "kyc")
	fresh.Decide(t, cust, "approved")
	if st := fresh.Status(t, "LIFE-011", cust); st != "Active" {
		t.NoVerdict(fmt.Errorf("the batch customer is %s after approval, want Active", st))
	}
	b := fresh.NewBeneficiaries(t, cust, fresh.GBPPayee("Grace Payee"))
	ben, _ = b[0]["id"].(string)
	// Setup: a record that is not PendingApproval refuses the decision.
	_ = t.Control().BeneficiaryDecision(t.Context(), ben, "approved", "property")
	_ = t.Control().BankRegistration(t.Context(), ben, "Registered") // PROVIDER_B only; others refuse
	funds := new(big.Int).Exp(big.NewInt(10), big.NewInt(13), nil)
	if err := t.Control().Call(t.Context(), http.MethodPost, "/withdrawals/funds/"+cust, map[string]any{"currency": "GBP", "available_minor": json.Number(funds.String())}, nil); err != nil {
		t.NoVerdict(err)
	}
	return cust, ben
}

// payoutbatchesChecks are the checks of payoutbatches.go.
func payoutbatchesChecks() []check.Check {
	rules := []string{"PB-093", "PB-004", "PB-005", "PB-011", "PB-012", "PB-013", "PB-014", "PB-015", "PB-016", "PB-017", "PB-018", "PB-019", "PB-020",
		"PB-021", "PB-022", "PB-023", "PB-031", "PB-044", "PB-060", "PB-064", "LIFE-011"}
	return []check.Check{
		{
			ID:     "property/payout-batches",
			Title:  "random batches (valid and skipped items over currencies, rails and references) and operator submit/approve/reject/execute in random order (illegal moves included) match the batch model after every step",
			Rules:  rules,
			Labels: []string{check.Mutating, Label}, Needs: []string{"keys.tenant"},
			ControlWhy:   "submit, approve, reject and execute are operator actions with no API route (document 1, States / Payout batch): only the control API makes them, so a batch stays as its intake left it",
			ControlRules: []string{"PB-014", "PB-015", "PB-016", "PB-017", "PB-018", "PB-019", "PB-020", "PB-021", "PB-023"},
			Run: func(t *check.T) {
				operated := t.Target().VirtualClock()
				var cust, ben string
				c := t.Client("tenant")
				if operated {
					t.NeedVirtualClock()
					cust, ben = pbCustomer(t, c)
				} else {
					// The profile's Active customer and its Approved (and
					// Registered) GBP payee: a batch that no operator moves
					// pays nothing.
					t.WithoutControl()
					cust, ben = t.Customer("active_personal"), t.Beneficiary("gbp")
				}
				counted(c)
				run(t, "property/payout-batches", rules, func(rt *rapid.T) {
					m := &pbMachine{t: t, c: c, cust: cust, ben: ben}
					m.create(rt)
					if !operated {
						// Intake only: new batches, each read back.
						rt.Repeat(map[string]func(*rapid.T){"New": m.create, "": m.Check})
						return
					}
					rt.Repeat(rapid.StateMachineActions(m))
				})
			},
		},
	}
}
