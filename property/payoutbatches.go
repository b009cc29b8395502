package property

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"net/http"
	"slices"
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
// submit, approve, reject and execute through the control API in random
// order, illegal moves included. Before an execution the world may change
// (document 1, States / Payout batch, the failure_code table): the
// customer no longer Active, a compliance block, the source account not
// ready or a pot never funded, the second beneficiary changed since
// intake; the control API sets only that world (and restores it after),
// and the target decides each item. An item's submission may also be
// interrupted (left Executing), a fact no request causes. After every
// step the by-id read is compared with the model: item statuses and
// failure codes in sequence order first (each under the rule of the
// decision the world calls for), then item_count, success_count,
// failure_count (PB-011), total_amount, the batch status, approved_at
// and completed_at. The customer is a fresh Active one with two approved
// GBP beneficiaries of its own and funds, so outcomes are predictable.

type pbItem struct {
	amount int64
	status string
	code   string
	payee  int // which of the machine's beneficiaries (0 or 1)
	rule   string
}

type pbMachine struct {
	t         *check.T
	c         *client.Client
	cust      string
	bens      [2]string
	id        string
	currency  string
	rail      string
	asked     string // the rail as sent ("" omitted)
	railName  string // the table's name it spells
	status    string
	submitter string
	items     []pbItem
	approved  *time.Time
	completed *time.Time
	log       steps
}

// pbWorld is a fact an execution may meet: how the control API sets it
// and takes it back, the failure_code every affected item gets and that
// code's rule. "changed" touches only the second beneficiary's items.
type pbWorld struct {
	name, code, rule string
}

var pbWorlds = []pbWorld{
	{"", "", ""},
	{"", "", ""},
	{"customer suspended", "subject_inactive", "PB-033"},
	{"compliance blocked", "withdrawal_error", "PB-038"},
	{"source account not ready", "configuration", "PB-035"},
	{"source account pot never funded", "source_account_pot_missing", "PB-036"},
	{"second beneficiary changed", "beneficiary_not_payable", "PB-034"},
}

// setWorld sets a world fact for the next execution and returns what
// takes it back (nothing for a beneficiary change: later batches are
// taken in at the new version).
func (m *pbMachine) setWorld(w pbWorld) func() {
	ctl, ctx := m.t.Control(), m.t.Context()
	must := func(err error) {
		if err != nil {
			m.t.NoVerdict(err)
		}
	}
	compliance := func(state string) error {
		return ctl.Call(ctx, http.MethodPost, "/money-policy/compliance/"+m.cust, map[string]any{"state": state}, nil)
	}
	switch w.code {
	case "subject_inactive":
		must(ctl.CustomerStatus(ctx, m.cust, "Suspended"))
		return func() { must(ctl.CustomerStatus(ctx, m.cust, "Active")) }
	case "withdrawal_error":
		must(compliance("blocked"))
		return func() { must(compliance("")) }
	case "configuration":
		must(ctl.SourceAccount(ctx, m.cust, "GBP", "source_account_not_ready"))
		return func() { must(ctl.SourceAccount(ctx, m.cust, "GBP", "")) }
	case "source_account_pot_missing":
		must(ctl.SourceAccount(ctx, m.cust, "GBP", "source_account_pot_missing"))
		return func() { must(ctl.SourceAccount(ctx, m.cust, "GBP", "")) }
	case "beneficiary_not_payable":
		must(ctl.ChangeBeneficiary(ctx, m.bens[1]))
	}
	return func() {}
}

// create posts the case's batch and predicts its intake. Now and then an
// AUD batch goes first: 422 unsupported_currency, nothing created (PB-093).
func (m *pbMachine) create(rt *rapid.T) {
	if rapid.IntRange(0, 9).Draw(rt, "AUD first") == 0 {
		r := m.t.Do(m.c, client.Request{Method: http.MethodPost, Path: fresh.BatchesPath(m.cust), IdempotencyKey: m.t.NewKey(),
			JSON: map[string]any{"currency": "AUD", "items": []any{map[string]any{"beneficiary_id": m.bens[0], "amount": 100}}}})
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
	aliases := rails.Aliases(m.currency)
	// In sorted order: a map's order would change what a replay draws.
	for _, alias := range slices.Sorted(maps.Keys(aliases)) {
		if aliases[alias] != "BACS" {
			options = append(options, alias)
		}
	}
	name := rapid.SampledFrom(options).Draw(rt, "rail")
	asked := name
	if asked != "" {
		asked = rapid.SampledFrom(rails.Spellings(asked)).Draw(rt, "spelling")
	}
	m.rail, _ = rails.Resolve(m.currency, asked)
	m.asked, m.railName = asked, name
	m.items = nil
	n := rapid.IntRange(1, 6).Draw(rt, "items")
	var items []any
	for range n {
		payee := rapid.IntRange(0, 1).Draw(rt, "payee")
		it := map[string]any{"beneficiary_id": m.bens[payee]}
		a := rapid.Int64Range(1, 5000).Draw(rt, "amount")
		skip := m.currency != "GBP" // the beneficiary is GBP
		why := ""                   // the rule of the item's one flaw
		if skip {
			why = "PB-057"
		}
		switch rapid.IntRange(0, 9).Draw(rt, "flaw") {
		case 0:
			a = rapid.SampledFrom([]int64{0, -1, -250}).Draw(rt, "bad amount")
			skip, why = true, "PB-050"
			if a == 0 {
				why = "PB-049"
			}
		case 1:
			it["beneficiary_id"] = uuid.NewString()
			skip, why = true, "PB-055"
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
		m.items = append(m.items, pbItem{amount: a, status: st, code: code, payee: payee, rule: why})
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
	if r.Status != http.StatusOK && asked != "" {
		rule := m.railRule()
		if asked != name {
			// A tolerated spelling refused (PB-060), unless the row's
			// exact name is refused too.
			body["rail"] = name
			exact := m.t.Do(m.c, client.Request{Method: http.MethodPost, Path: fresh.BatchesPath(m.cust), JSON: body, IdempotencyKey: m.t.NewKey()})
			m.log.add(fmt.Sprintf("POST the same batch on rail %q", name), exact)
			rule = "PB-060"
			if exact.Status != http.StatusOK {
				rule = map[string]string{"GBP": "PB-062", "EUR": "PB-065", "USD": "PB-068"}[m.currency]
				if !slices.Contains(rails.Canonical(m.currency), name) {
					rule = m.railRule()
				}
			}
		}
		m.log.fail(rt, "%s: creating a %s batch on rail %q answered %d %s, want 200 (stored %s)", rule, m.currency, asked, r.Status, shape.Clip(r.Body), m.rail)
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

func (m *pbMachine) control(rt *rapid.T, op, operator string, interrupted []int, world string) error {
	var err error
	if op == "execute" {
		err = m.t.Control().ExecutePayoutBatch(m.t.Context(), m.id, interrupted...)
	} else {
		err = m.t.Control().PayoutBatchAction(m.t.Context(), m.id, op, operator)
	}
	what := fmt.Sprintf("%d. control: %s by %s", len(m.log.lines)+1, op, operator)
	if op == "execute" {
		what = fmt.Sprintf("%d. control: execute (world: %s; submissions interrupted: items %v)", len(m.log.lines)+1, world, interrupted)
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
			m.Check(rt) // the new batch as created, before an operator acts on it
		}
	}
}

func (m *pbMachine) Submit(rt *rapid.T) {
	m.renew(rt)
	op := rapid.SampledFrom([]string{"ops-a", "ops-b"}).Draw(rt, "operator")
	if m.legal(rt, "PB-014", "submit", m.status == "Draft", m.control(rt, "submit", op, nil, "")) {
		m.status, m.submitter = "PendingApproval", op
	}
}

func (m *pbMachine) Approve(rt *rapid.T) {
	m.renew(rt)
	op := rapid.SampledFrom([]string{"ops-a", "ops-b"}).Draw(rt, "operator")
	at := m.clock()
	if m.legal(rt, "PB-015", "approve by "+op, m.status == "PendingApproval" && op != m.submitter, m.control(rt, "approve", op, nil, "")) {
		m.status, m.approved = "Approved", &at
	}
}

func (m *pbMachine) Reject(rt *rapid.T) {
	m.renew(rt)
	op := rapid.SampledFrom([]string{"ops-a", "ops-b"}).Draw(rt, "operator")
	if m.legal(rt, "PB-016", "reject", m.status == "PendingApproval", m.control(rt, "reject", op, nil, "")) {
		m.status = "Rejected"
	}
}

func (m *pbMachine) Execute(rt *rapid.T) {
	m.renew(rt)
	w := pbWorlds[0]
	var interrupted []int
	if m.status == "Approved" {
		w = rapid.SampledFrom(pbWorlds).Draw(rt, "world")
		if w.code == "" {
			for i, it := range m.items {
				if it.status == "Pending" && rapid.IntRange(0, 3).Draw(rt, "interrupted") == 0 {
					interrupted = append(interrupted, i+1)
				}
			}
		}
	}
	name := w.name
	if name == "" {
		name = "unchanged"
	}
	undo := m.setWorld(w)
	at := m.clock()
	err := m.control(rt, "execute", "", interrupted, name)
	undo()
	if !m.legal(rt, "PB-017", "execute", m.status == "Approved", err) {
		return
	}
	stuck, completed, failed := false, 0, 0
	for i := range m.items {
		it := &m.items[i]
		if it.status != "Pending" {
			continue
		}
		switch {
		case slices.Contains(interrupted, i+1):
			it.status, it.rule, stuck = "Executing", "PB-026", true
		case w.code != "" && (w.code != "beneficiary_not_payable" || it.payee == 1):
			it.status, it.code, it.rule = "Failed", w.code, w.rule
			failed++
		default:
			it.status, it.rule = "Completed", "PB-027"
			completed++
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
	// An executed batch that still reads Approved did not move (PB-017):
	// its items, still Pending, are not judged on top.
	switch m.status {
	case "Executing", "Completed", "PartiallyCompleted", "Failed":
		if b.Status == "Approved" {
			bad("PB-017", "the batch still reads Approved after an operator executed it, the model %s", m.status)
		}
	}
	// The items first: a wrong item decision is reported under its own
	// rule, not under the batch status or counts that follow from it.
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
		switch {
		case got.Status != it.status:
			bad(m.itemRule(it), "item %d is %s/%q, the model %s/%q", i+1, got.Status, code, it.status, it.code)
		case code != it.code && it.status == "Skipped":
			bad("PB-031", "skipped item %d has failure_code %q, want validation", i+1, code)
		case code != it.code:
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
	if b.Status != m.status {
		bad(m.statusRule(), "status %s, the model %s", b.Status, m.status)
	}
	if b.Rail != m.rail {
		bad(m.railRule(), "rail %s (asked %q), want %s (canonical)", b.Rail, m.asked, m.rail)
	}
	if !sameInstant(b.ApprovedAt, m.approved) {
		bad(m.timeRule(m.approved != nil, "PB-015"), "approved_at %v, want %v", str(b.ApprovedAt), m.approved)
	}
	if !sameInstant(b.CompletedAt, m.completed) {
		bad(m.timeRule(m.completed != nil, "PB-018"), "completed_at %v, want %v (set only when the batch Completed)", str(b.CompletedAt), m.completed)
	}
}

// railRule is the rule deciding the batch's stored rail: the currency's
// default (none asked); a canonical rail asked in another spelling,
// returned canonical (PB-003); else the rails table's row of the name
// asked (a currency's canonical rails, or the alias's row).
func (m *pbMachine) railRule() string {
	switch {
	case m.asked == "":
		return map[string]string{"GBP": "PB-064", "EUR": "PB-067", "USD": "PB-071"}[m.currency]
	case slices.Contains(rails.Canonical(m.currency), m.railName):
		if m.asked != m.railName {
			return "PB-003"
		}
		return map[string]string{"GBP": "PB-062", "EUR": "PB-065", "USD": "PB-068"}[m.currency]
	}
	return map[string]string{"FPS": "PB-063", "SCT": "PB-066", "DOMESTIC_WIRE": "PB-069", "INTERNATIONAL_WIRE": "PB-070"}[rails.Aliases(m.currency)[m.railName]]
}

// timeRule is the rule a wrong approved_at or completed_at is judged
// under: the transition that sets it (set), else the status that leaves
// it null: Rejected (PB-022), PartiallyCompleted or Failed (PB-104), in
// flight (PB-005).
func (m *pbMachine) timeRule(set bool, setter string) string {
	switch {
	case set:
		return setter
	case m.status == "Rejected":
		return "PB-022"
	case m.status == "PartiallyCompleted" || m.status == "Failed":
		return "PB-104"
	}
	return "PB-005"
}

func (m *pbMachine) statusRule() string {
	switch m.status {
	case "Rejected":
		if m.submitter == "" {
			return "PB-013"
		}
		return "PB-016"
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

// itemRule is the rule an item's wrong status is judged under: the
// decision the model took for it (a skipped item's flaw, the world's
// code at execution, an interrupted or completed submission), else
// PB-024 (Pending: valid at intake, not yet executed) or PB-031.
func (m *pbMachine) itemRule(it pbItem) string {
	switch {
	case it.rule != "":
		return it.rule
	case it.status == "Skipped":
		return "PB-031"
	}
	return "PB-024"
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

// pbCustomer makes a fresh Active customer with two approved GBP
// beneficiaries and ample funds (setup: no verdict on failure).
func pbCustomer(t *check.T, c *client.Client) (cust string, bens [2]string) {
	cust = createCustomer(t, c)
	fresh.Initiate(t, cust, "kyc")
	fresh.Decide(t, cust, "approved")
	if st := fresh.Status(t, "LIFE-011", cust); st != "Active" {
		t.NoVerdict(fmt.Errorf("the batch customer is %s after approval, want Active", st))
	}
	for i, name := range []string{"Grace Payee", "Henry Payee"} {
		b := fresh.NewBeneficiaries(t, cust, fresh.GBPPayee(name))
		bens[i], _ = b[0]["id"].(string)
		// Setup: a record that is not PendingApproval refuses the decision.
		_ = t.Control().BeneficiaryDecision(t.Context(), bens[i], "approved", "property")
		_ = t.Control().BankRegistration(t.Context(), bens[i], "Registered") // PROVIDER_B only; others refuse
	}
	funds := new(big.Int).Exp(big.NewInt(10), big.NewInt(13), nil)
	if err := t.Control().Call(t.Context(), http.MethodPost, "/withdrawals/funds/"+cust, map[string]any{"currency": "GBP", "available_minor": json.Number(funds.String())}, nil); err != nil {
		t.NoVerdict(err)
	}
	return cust, bens
}

// payoutbatchesChecks are the checks of payoutbatches.go.
func payoutbatchesChecks() []check.Check {
	rules := []string{"PB-093", "PB-004", "PB-005", "PB-011", "PB-012", "PB-013", "PB-014", "PB-015", "PB-016", "PB-017", "PB-018", "PB-019", "PB-020",
		"PB-021", "PB-022", "PB-023", "PB-024", "PB-026", "PB-027", "PB-031", "PB-049", "PB-050", "PB-055", "PB-057", "PB-033", "PB-034", "PB-035", "PB-036", "PB-038", "PB-044", "PB-003", "PB-060", "PB-062",
		"PB-063", "PB-064", "PB-065", "PB-066", "PB-067", "PB-068", "PB-069", "PB-070", "PB-071", "PB-104", "LIFE-011"}
	return []check.Check{
		{
			ID:          "property/payout-batches",
			Alone:       check.WithControl,
			SerialGroup: "fiat balances",
			Title:       "random batches (valid and skipped items over currencies, rails and references) and operator submit/approve/reject/execute in random order (illegal moves included) match the batch model after every step",
			Rules:       rules,
			Labels:      []string{check.Mutating, Label}, Needs: []string{"keys.tenant"},
			ControlWhy:   "submit, approve, reject and execute are operator actions with no API route (document 1, States / Payout batch), and the world at execution (a customer's status, a compliance block, a source account's state, a beneficiary's change) is set by staff and banks: only the control API makes them, so a batch stays as its intake left it",
			ControlRules: []string{"PB-014", "PB-015", "PB-016", "PB-017", "PB-018", "PB-019", "PB-020", "PB-021", "PB-023", "PB-026", "PB-027", "PB-033", "PB-034", "PB-035", "PB-036", "PB-038", "PB-104"},
			Run: func(t *check.T) {
				operated := t.Target().VirtualClock()
				var cust string
				var bens [2]string
				c := t.Client("tenant")
				if operated {
					t.NeedVirtualClock()
					cust, bens = pbCustomer(t, c)
				} else {
					// The profile's Active customer and its Approved (and
					// Registered) GBP payee: a batch that no operator moves
					// pays nothing.
					t.WithoutControl()
					cust = t.Customer("active_personal")
					bens = [2]string{t.Beneficiary("gbp"), t.Beneficiary("gbp")}
				}
				counted(c)
				run(t, "property/payout-batches", rules, func(rt *rapid.T) {
					m := &pbMachine{t: t, c: c, cust: cust, bens: bens}
					m.create(rt)
					if !operated {
						// Intake only: new batches, each read back.
						rt.Repeat(map[string]func(*rapid.T){"New": m.create, "": m.Check})
						return
					}
					// rapid.StateMachineActions(m), spelled out: the same
					// actions under the same names.
					rt.Repeat(map[string]func(*rapid.T){"Submit": m.Submit, "Approve": m.Approve, "Reject": m.Reject, "Execute": m.Execute, "Advance": m.Advance, "": m.Check})
				})
			},
		},
	}
}
