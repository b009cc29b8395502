package payoutbatches

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// Execution decisions (document 1, States / Payout batch, the failure_code
// table; States / Fiat withdrawal: "Staff approval does not override
// current customer, parent, compliance or beneficiary controls"). The
// control API plays the operators (submit, approve, execute: no route
// does) and sets the world: a customer erased, a compliance block, a
// source account not ready, a beneficiary's bank registration. What the
// public API can change it changes itself (PATCH a customer's status,
// PATCH a beneficiary). The target decides every item's outcome; the
// checks judge each failure_code, the batch status and counts that
// follow from the items, fiat_payment_id, and the money that left.

// executionWhy is what only the control API does for these checks.
const executionWhy = "no route submits, approves or executes a payout batch (operators do), and the world at execution (a compliance block, an erased customer, a source account's state, a beneficiary's approval and bank registration, funds) is set by staff, providers and banks"

// payerFunds are the GBP funds a payer starts with (minor units).
const payerFunds = 100_000

// payer is a fresh Active customer of the tenant with approved GBP
// beneficiaries, funds and a zero withdrawal fee: a world a check may
// change without touching the profile's fixtures, whose balance only the
// check moves.
type payer struct {
	id   string
	bens []string
}

// setupRules are the rules a payer's setup answers are judged under
// (fresh.Activated: the customer is created, CUST-022, and activated by
// a refreshing read, LIFE-011) and the rules every execution check judges
// (the batch created Draft, its status after execution from its items,
// the counts and total, completed_at, the item codes' reason text, the
// money that left).
var setupRules = []string{"CUST-022", "LIFE-011", "PB-001", "PB-012", "PB-018", "PB-019", "PB-020", "PB-011", "PB-004", "PB-104", "PB-027", "PB-029", "PB-028", "PB-030", "PB-103", "PB-017", "PB-008", "PB-023"}

func executionRules(rules ...string) []string {
	out := append([]string(nil), rules...)
	for _, r := range setupRules {
		if !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}

// newPayer creates a payer with payees PROVIDER_A GBP beneficiaries
// (approved by staff through the control API).
func newPayer(t *check.T, payees int) payer {
	id := fresh.Activated(t, "LIFE-011")
	ctl := t.Control()
	if err := ctl.CustomerFee(t.Context(), id, 0); err != nil {
		t.NoVerdict(err)
	}
	if err := ctl.SetFunds(t.Context(), id, "GBP", payerFunds); err != nil {
		t.NoVerdict(err)
	}
	p := payer{id: id}
	for i := range payees {
		p.bens = append(p.bens, p.payee(t, fmt.Sprintf("Batch Payee %d", i+1), "PROVIDER_A"))
	}
	return p
}

// payee creates a GBP beneficiary of the payer and makes the row of
// provider payable: staff approve it and, for PROVIDER_B, the bank
// registers it.
func (p payer) payee(t *check.T, name, provider string) string {
	for _, row := range fresh.NewBeneficiaries(t, p.id, fresh.GBPPayee(name)) {
		if row["provider"] != provider {
			continue
		}
		id, _ := row["id"].(string)
		fresh.BeneficiaryDecision(t, id, "approved", "")
		if provider == "PROVIDER_B" {
			fresh.BankRegistration(t, id, "Registered")
		}
		return id
	}
	t.Skipf("the target selects no %s row for a GBP beneficiary of a new customer", provider)
	return ""
}

// approvedBatch creates a batch for the payer (Draft, PB-012) and has two
// operators submit and approve it; it returns the batch id.
func (p payer) approvedBatch(t *check.T, rail string, items []any) string {
	body := map[string]any{"currency": "GBP", "items": items}
	if rail != "" {
		body["rail"] = rail
	}
	r := t.Do(t.Client("tenant"), client.Request{Method: http.MethodPost, Path: fresh.BatchesPath(p.id), JSON: body, IdempotencyKey: t.NewKey()})
	b, _ := shape.EnvelopeAnswer(t, r, shape.Want{Rule: "PB-012", Status: http.StatusOK})["payout_batch"].(map[string]any)
	status(t, "PB-012", b, "Draft")
	id := shape.String(t, "PB-012", b, "id")
	fresh.Approved(t, id)
	return id
}

// read is the by-id read of one of the payer's batches.
func (p payer) read(t *check.T, rule, id string) map[string]any {
	r := t.Do(t.Client("tenant"), client.Request{Method: http.MethodGet, Path: fresh.BatchesPath(p.id) + "/" + id})
	b, ok := shape.EnvelopeAnswer(t, r, shape.Want{Rule: rule, Status: http.StatusOK})["payout_batch"].(map[string]any)
	if !ok {
		t.FatalAt(r, rule, "data.payout_batch is not an object")
	}
	return b
}

// executed has an operator execute an Approved batch, leaving every
// item's outcome to the target, and reads it back.
func (p payer) executed(t *check.T, id string) map[string]any {
	if err := t.Control().ExecutePayoutBatch(t.Context(), id); err != nil {
		t.NoVerdict(err)
	}
	b := p.read(t, "PB-017", id)
	leftApproved(t, b)
	return b
}

// balance is the payer's Available GBP balance in minor units (GET
// .../banking/balance), under rule.
func (p payer) balance(t *check.T, rule string) int {
	r := t.Do(t.Client("tenant"), client.Request{Method: http.MethodGet, Path: api.Customer(p.id) + "/banking/balance"})
	data := shape.EnvelopeAnswer(t, r, shape.Want{Rule: rule, Status: http.StatusOK})
	for _, x := range shape.Array(t, rule, data, "balances") {
		if row, ok := x.(map[string]any); ok && row["currency"] == "GBP" {
			return fresh.Int(t, rule, row, "balance_minor")
		}
	}
	t.FatalAt(r, rule, "the payer's balances hold no GBP row after GBP funds arrived")
	return 0
}

// withdrawalCount is how many fiat withdrawals the payer has (GET
// .../banking/withdrawals, pagination.total), under rule.
func (p payer) withdrawalCount(t *check.T, rule string) int {
	r := t.Do(t.Client("tenant"), client.Request{Method: http.MethodGet, Path: api.Customer(p.id) + "/banking/withdrawals"})
	data := shape.EnvelopeAnswer(t, r, shape.Want{Rule: rule, Status: http.StatusOK})
	pg, _ := data["pagination"].(map[string]any)
	if pg == nil {
		t.FatalAt(r, rule, "the withdrawals list has no data.pagination")
	}
	return fresh.Int(t, rule, pg, "total")
}

// settled judges an executed batch from its own items: the batch status
// the items call for (every non-skipped item Completed: Completed with
// completed_at, PB-018; some Completed, some Failed: PartiallyCompleted,
// PB-019; none Completed: Failed, PB-020; completed_at null but on
// Completed, PB-104), success_count and failure_count (PB-011) and
// total_amount (PB-004, every item). It returns the sum of the Completed
// items' amounts and how many completed. Deriving the batch from the
// items keeps a wrong item decision under the item's own rule.
func settled(t *check.T, b map[string]any) (paid, completed int) {
	items := batchItems(t, "PB-008", b)
	failed, skipped, total := 0, 0, 0
	payments := map[any]int{}
	for seq, it := range items {
		if it["status"] == "Completed" && it["fiat_payment_id"] != nil {
			if other, dup := payments[it["fiat_payment_id"]]; dup {
				t.Errorf("PB-001", "Completed items %d and %d share fiat_payment_id %v: a batch submits one fiat withdrawal per item", min(seq, other), max(seq, other), it["fiat_payment_id"])
			}
			payments[it["fiat_payment_id"]] = seq
		}
		amount := fresh.Int(t, "PB-004", it, "amount")
		total += amount
		switch it["status"] {
		case "Completed":
			completed++
			paid += amount
		case "Failed":
			failed++
		case "Skipped":
			skipped++
		default:
			t.Fatalf("PB-023", "item %v is %v after execution; nothing here leaves an item in flight", it["sequence"], it["status"])
		}
	}
	want, rule := "Failed", "PB-020"
	switch {
	case completed > 0 && failed == 0:
		want, rule = "Completed", "PB-018"
	case completed > 0:
		want, rule = "PartiallyCompleted", "PB-019"
	}
	if got := shape.String(t, rule, b, "status"); got != want {
		// The batch's decision is wrong: what follows from it (completed_at)
		// is not judged on top.
		t.Fatalf(rule, "after execution %d items are Completed and %d Failed (%d Skipped): batch status %s, want %s", completed, failed, skipped, got, want)
	}
	if want == "Completed" {
		if s, _ := b["completed_at"].(string); s == "" {
			t.Errorf("PB-018", "completed_at is %v on a batch whose items all completed, want set", b["completed_at"])
		}
	} else if b["completed_at"] != nil {
		t.Errorf("PB-104", "completed_at is %v on a batch that ends %s; it is set only on Completed", b["completed_at"], want)
	}
	if sc, fc := fresh.Int(t, "PB-011", b, "success_count"), fresh.Int(t, "PB-011", b, "failure_count"); sc != completed || fc != failed+skipped {
		t.Errorf("PB-011", "success_count %d failure_count %d, want %d Completed and %d Failed plus Skipped", sc, fc, completed, failed+skipped)
	}
	if got := fresh.Int(t, "PB-004", b, "total_amount"); got != total {
		t.Errorf("PB-004", "total_amount %d after execution, want %d (every item)", got, total)
	}
	return paid, completed
}

// refused asserts an item the world refuses before submission: Failed
// with code and a failure_reason (itemOutcome), and no withdrawal, so
// fiat_payment_id null, all under rule.
func refused(t *check.T, rule string, items map[int]map[string]any, seq int, code string) {
	itemOutcome(t, rule, items, seq, "Failed", code)
	if it := items[seq]; it != nil && it["status"] == "Failed" && it["fiat_payment_id"] != nil {
		t.Errorf(rule, "item %d failed with %s before any submission but carries fiat_payment_id %v; no withdrawal exists", seq, code, it["fiat_payment_id"])
	}
}

// moneyLeft asserts that the payer's balance fell by exactly the
// Completed items' amounts (PB-103; the payer's fee is zero) and that the
// payer has exactly as many withdrawals as Completed items (a refused
// item creates none), under rule.
func (p payer) moneyLeft(t *check.T, rule string, before, paid, completed int) {
	if after := p.balance(t, "PB-103"); before-after != paid {
		t.Errorf("PB-103", "the payer's GBP balance fell by %d during execution; the Completed items sum to %d and nothing else may leave", before-after, paid)
	}
	switch n := p.withdrawalCount(t, rule); {
	case n < completed:
		t.Errorf("PB-001", "the payer has %d fiat withdrawals after execution, want %d, one per Completed item", n, completed)
	case n > completed:
		t.Errorf(rule, "the payer has %d fiat withdrawals after execution, want %d, one per Completed item (a refused item creates none)", n, completed)
	}
}

// executionChecks are the checks of execution.go.
func executionChecks() []check.Check {
	return []check.Check{
		{
			ID:         "payoutbatches/execution-subject-inactive",
			Title:      "A customer PATCHed Suspended after approval: every item of its approved batch fails subject_inactive at execution, no withdrawal is made, nothing leaves, the batch ends Failed",
			Rules:      executionRules("PB-033", "LIFE-013"),
			Labels:     []string{check.Mutating, check.NeedsControl},
			ControlWhy: executionWhy,
			Needs:      []string{"keys.tenant"},
			Run: func(t *check.T) {
				p := newPayer(t, 1)
				id := p.approvedBatch(t, "", []any{fresh.BatchItem(p.bens[0], 1500, "Pay one"), fresh.BatchItem(p.bens[0], 2500, "Pay two")})
				before := p.balance(t, "PB-103")
				fresh.SetStatus(t, "LIFE-013", p.id, "Suspended")
				b := p.executed(t, id)
				items := batchItems(t, "PB-028", b)
				refused(t, "PB-033", items, 1, "subject_inactive")
				refused(t, "PB-033", items, 2, "subject_inactive")
				paid, completed := settled(t, b)
				p.moneyLeft(t, "PB-033", before, paid, completed)
			},
		},
		{
			ID:         "payoutbatches/execution-compliance-blocked",
			Title:      "A customer blocked by compliance after approval (its single fiat withdrawal is 403 compliance_subject_blocked): every item of its approved batch fails withdrawal_error, no withdrawal is made, nothing leaves, the batch ends Failed",
			Rules:      executionRules("PB-038"),
			Labels:     []string{check.Mutating, check.NeedsControl},
			ControlWhy: executionWhy,
			Needs:      []string{"keys.tenant"},
			Run: func(t *check.T) {
				p := newPayer(t, 1)
				id := p.approvedBatch(t, "", []any{fresh.BatchItem(p.bens[0], 1200, "Pay one"), fresh.BatchItem(p.bens[0], 3400, "Pay two")})
				before := p.balance(t, "PB-103")
				compliance := func(state string) error {
					return t.Control().Call(t.Context(), http.MethodPost, "/money-policy/compliance/"+p.id, map[string]any{"state": state}, nil)
				}
				if err := compliance("blocked"); err != nil {
					t.NoVerdict(err)
				}
				defer func() { _ = compliance("") }()
				b := p.executed(t, id)
				items := batchItems(t, "PB-028", b)
				refused(t, "PB-038", items, 1, "withdrawal_error")
				refused(t, "PB-038", items, 2, "withdrawal_error")
				paid, completed := settled(t, b)
				p.moneyLeft(t, "PB-038", before, paid, completed)
			},
		},
		{
			ID:         "payoutbatches/execution-beneficiary-changed",
			Title:      "A beneficiary replaced by PATCH after intake: its item fails beneficiary_not_payable with no withdrawal, the other beneficiary's item completes with one; the batch ends PartiallyCompleted and only the completed amount leaves",
			Rules:      executionRules("PB-034", "BEN-022"),
			Labels:     []string{check.Mutating, check.NeedsControl},
			ControlWhy: executionWhy,
			Needs:      []string{"keys.tenant"},
			Run: func(t *check.T) {
				p := newPayer(t, 2)
				id := p.approvedBatch(t, "", []any{fresh.BatchItem(p.bens[0], 1700, "Unchanged payee"), fresh.BatchItem(p.bens[1], 2900, "Changed payee")})
				before := p.balance(t, "PB-103")
				r := t.Do(t.Client("tenant"), client.Request{Method: http.MethodPatch, Path: fresh.Beneficiaries(p.id) + "/" + p.bens[1], JSON: fresh.GBPPayee("Batch Payee 2 renamed"), IdempotencyKey: t.NewKey()})
				fresh.Success(t, "BEN-022", r)
				b := p.executed(t, id)
				items := batchItems(t, "PB-028", b)
				itemOutcome(t, "PB-034", items, 1, "Completed", "")
				refused(t, "PB-034", items, 2, "beneficiary_not_payable")
				paid, completed := settled(t, b)
				p.moneyLeft(t, "PB-034", before, paid, completed)
			},
		},
		{
			ID:         "payoutbatches/execution-source-account",
			Title:      "A source account or ledger not ready (source_account_not_ready, fiat_withdrawal_prerequisites_missing) fails every item with configuration, a never-funded pot with source_account_pot_missing; no withdrawal is made and nothing leaves",
			Rules:      executionRules("PB-035", "PB-036"),
			Labels:     []string{check.Mutating, check.NeedsControl},
			ControlWhy: executionWhy,
			Needs:      []string{"keys.tenant"},
			Run: func(t *check.T) {
				p := newPayer(t, 1)
				ctl := t.Control()
				defer func() { _ = ctl.SourceAccount(t.Context(), p.id, "GBP", "") }()
				for _, c := range []struct{ state, code, rule string }{
					{"source_account_not_ready", "configuration", "PB-035"},
					{"fiat_withdrawal_prerequisites_missing", "configuration", "PB-035"},
					{"source_account_pot_missing", "source_account_pot_missing", "PB-036"},
				} {
					id := p.approvedBatch(t, "", []any{fresh.BatchItem(p.bens[0], 1100, "Pay one"), fresh.BatchItem(p.bens[0], 2200, "Pay two")})
					before := p.balance(t, "PB-103")
					if err := ctl.SourceAccount(t.Context(), p.id, "GBP", c.state); err != nil {
						t.NoVerdict(err)
					}
					b := p.executed(t, id)
					items := batchItems(t, "PB-028", b)
					refused(t, c.rule, items, 1, c.code)
					refused(t, c.rule, items, 2, c.code)
					paid, completed := settled(t, b)
					if after := p.balance(t, "PB-103"); before-after != paid {
						t.Errorf("PB-103", "source account %s: the balance fell by %d during execution; the Completed items sum to %d", c.state, before-after, paid)
					}
					if completed > 0 {
						// Paid items would drain the next case's world.
						t.Fatalf(c.rule, "source account %s: %d items completed; every item fails with %s", c.state, completed, c.code)
					}
					if err := ctl.SourceAccount(t.Context(), p.id, "GBP", ""); err != nil {
						t.NoVerdict(err)
					}
				}
				if n := p.withdrawalCount(t, "PB-035"); n != 0 {
					t.Errorf("PB-035", "the payer has %d fiat withdrawals after three batches refused at execution, want none", n)
				}
			},
		},
		{
			ID:    "payoutbatches/execution-subject-unavailable",
			Title: "A customer that no longer exists for the tenant at execution: every item of its approved batch fails subject_unavailable with no withdrawal and the batch ends Failed (read from the operator's answer: the public reads now answer 404 'Customer was not found.')",
			// Not PB-103: the payer no longer exists, so no balance of it
			// can be read to compare with what left.
			Rules:      slices.DeleteFunc(executionRules("PB-032", "PB-101", "PB-025"), func(r string) bool { return r == "PB-103" }),
			Labels:     []string{check.Mutating, check.NeedsControl},
			ControlWhy: executionWhy,
			Needs:      []string{"keys.tenant"},
			Run: func(t *check.T) {
				p := newPayer(t, 1)
				id := p.approvedBatch(t, "", []any{fresh.BatchItem(p.bens[0], 1300, "Pay one"), fresh.BatchItem(p.bens[0], 1400, "Pay two"), fresh.BatchItem(p.bens[0], 0, "Skipped")})
				ctl := t.Control()
				if err := ctl.Call(t.Context(), http.MethodPost, "/payout-batches/"+id+"/erase-customer", map[string]any{}, nil); err != nil {
					t.NoVerdict(err)
				}
				r := t.Do(t.Client("tenant"), client.Request{Method: http.MethodGet, Path: fresh.BatchesPath(p.id) + "/" + id})
				if m := shape.FlatAnswer(t, r, shape.Want{Rule: "PB-101", Status: http.StatusNotFound}); m["title"] != "Customer was not found." {
					t.ErrorAt(r, "PB-101", "404 title %v, want 'Customer was not found.'", m["title"])
				}
				// The public surface cannot read the batch any more; the
				// operator's answer to execute is the batch.
				var out struct {
					PayoutBatch json.RawMessage `json:"payout_batch"`
				}
				if err := ctl.Call(t.Context(), http.MethodPost, "/payout-batches/"+id+"/execute", map[string]any{}, &out); err != nil {
					t.NoVerdict(err)
				}
				var b map[string]any
				dec := json.NewDecoder(bytes.NewReader(out.PayoutBatch))
				dec.UseNumber()
				if err := dec.Decode(&b); err != nil || b == nil {
					t.NoVerdict(fmt.Errorf("the control API's execute answer carries no payout_batch: %v", err))
				}
				leftApproved(t, b)
				items := batchItems(t, "PB-028", b)
				refused(t, "PB-032", items, 1, "subject_unavailable")
				refused(t, "PB-032", items, 2, "subject_unavailable")
				itemOutcome(t, "PB-025", items, 3, "Skipped", "validation")
				settled(t, b)
			},
		},
		{
			ID:         "payoutbatches/completed-amount-left",
			Title:      "After execution the amount that left the customer's balance is the sum of the Completed items; the PROVIDER_B item its provider refuses on BACS (withdrawal_failed) and the skipped item take nothing",
			Rules:      executionRules("PB-037", "PB-075", "PB-074", "PB-025"),
			Labels:     []string{check.Mutating, check.NeedsControl},
			ControlWhy: executionWhy,
			Needs:      []string{"keys.tenant"},
			Run: func(t *check.T) {
				p := newPayer(t, 1)
				provB := p.payee(t, "Batch Payee B", "PROVIDER_B")
				id := p.approvedBatch(t, "BACS", []any{fresh.BatchItem(p.bens[0], 100, "Pay one"), fresh.BatchItem(p.bens[0], 200, "Pay two"),
					fresh.BatchItem(provB, 400, "Provider B pay"), fresh.BatchItem(p.bens[0], 0, "Skipped")})
				before := p.balance(t, "PB-103")
				b := p.executed(t, id)
				items := batchItems(t, "PB-028", b)
				itemOutcome(t, "PB-074", items, 1, "Completed", "")
				itemOutcome(t, "PB-074", items, 2, "Completed", "")
				providerRefused(t, items, 3)
				itemOutcome(t, "PB-025", items, 4, "Skipped", "validation")
				paid, _ := settled(t, b)
				if after := p.balance(t, "PB-103"); before-after != paid {
					t.Fatalf("PB-103", "the balance fell by %d after execution; the Completed items sum to %d (the refused 400 and the skipped item take nothing)", before-after, paid)
				}
			},
		},
	}
}
