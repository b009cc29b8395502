package payoutbatches

import (
	"net/http"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// The operator lifecycle (document 1, States / Payout batch), driven
// through the control API: operators have no public route.

// newDraft creates a Draft batch of the given items and returns its id.
func newDraft(t *check.T, currency, rail string, items []any) string {
	body := map[string]any{"currency": currency, "items": items}
	if rail != "" {
		body["rail"] = rail
	}
	b := fresh.Batch(t, "PB-012", body)
	status(t, "PB-012", b, "Draft")
	return shape.String(t, "PB-012", b, "id")
}

// execute has an operator execute an Approved batch and reads it back.
// Every item's outcome is the target's decision; interrupted only names
// items whose submission is interrupted (left Executing, which no
// request can cause).
func execute(t *check.T, id string, interrupted ...int) map[string]any {
	if err := t.Control().ExecutePayoutBatch(t.Context(), id, interrupted...); err != nil {
		t.NoVerdict(err)
	}
	b := fresh.ReadBatch(t, "PB-017", id)
	leftApproved(t, b)
	return b
}

// leftApproved stops the check when a batch an operator executed still
// reads Approved (PB-017: Approved moves to Executing); its items, still
// Pending, are not judged on top.
func leftApproved(t *check.T, b map[string]any) {
	if b["status"] == "Approved" {
		t.Fatalf("PB-017", "after the operator executed it the batch still reads Approved; it moves to Executing")
	}
}

// itemOutcome asserts one executed item by sequence.
func itemOutcome(t *check.T, rule string, items map[int]map[string]any, seq int, wantStatus, wantCode string) {
	it := items[seq]
	if it == nil {
		t.Fatalf("PB-008", "no item with sequence %d", seq)
	}
	if it["status"] != wantStatus {
		t.Errorf(rule, "item %d: status %v, want %s (failure_code %v)", seq, it["status"], wantStatus, it["failure_code"])
		return
	}
	switch wantStatus {
	case "Completed":
		if id, _ := it["fiat_payment_id"].(string); id == "" {
			// No withdrawal behind a Completed item: the money checks
			// that follow would fail on it too.
			t.Fatalf("PB-027", "Completed item %d has fiat_payment_id %v, want the withdrawal id", seq, it["fiat_payment_id"])
		}
		if it["failure_code"] != nil {
			t.Errorf("PB-029", "Completed item %d has failure_code %v, want null", seq, it["failure_code"])
		}
	case "Executing", "Pending":
		if it["failure_code"] != nil {
			t.Errorf("PB-029", "%s item %d has failure_code %v, want null", wantStatus, seq, it["failure_code"])
		}
	default:
		switch {
		case it["failure_code"] == wantCode:
		case it["failure_code"] == nil && wantStatus == "Failed":
			t.Errorf("PB-028", "Failed item %d has no failure_code, want %s", seq, wantCode)
		default:
			t.Errorf(rule, "item %d: failure_code %v, want %s", seq, it["failure_code"], wantCode)
		}
		if _, ok := it["failure_reason"].(string); !ok {
			t.Errorf("PB-030", "Failed item %d has failure_reason %v, want text", seq, it["failure_reason"])
		}
	}
}

// providerRefused asserts the item of a PROVIDER_B beneficiary on a rail
// its provider does not take: Failed item by item after approval (PB-075)
// with withdrawal_failed and the provider's message (PB-037, PB-030).
func providerRefused(t *check.T, items map[int]map[string]any, seq int) {
	if it := items[seq]; it != nil && it["status"] != "Failed" {
		t.Errorf("PB-075", "item %d (a PROVIDER_B beneficiary on a rail its provider refuses): status %v, want Failed", seq, it["status"])
		return
	}
	itemOutcome(t, "PB-037", items, seq, "Failed", "withdrawal_failed")
}

// lifecycleChecks are the checks of lifecycle.go.
func lifecycleChecks() []check.Check {
	return []check.Check{
		{
			ID:     "payoutbatches/lifecycle-completed",
			Title:  "Draft → PendingApproval (submit) → Approved by a different operator (approved_at set; the submitter cannot approve) → Executing → Completed (completed_at set, items Completed with fiat_payment_id)",
			Rules:  []string{"PB-001", "PB-014", "PB-015", "PB-017", "PB-018", "PB-005", "PB-027", "PB-029", "PB-009", "PB-011", "PB-021", "PB-025", "PB-030", "PB-012", "PB-004", "PB-008", "PB-019", "PB-020", "PB-023", "PB-104"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  needs,
			Run: func(t *check.T) {
				t.Control()
				ben := t.Beneficiary("gbp")
				id := newDraft(t, "GBP", "FPS", []any{fresh.BatchItem(ben, 100, "Pay one"), fresh.BatchItem(ben, 200, "Pay two"), fresh.BatchItem(ben, 0, "Skip me")})
				if err := fresh.BatchAction(t, id, "submit", "ops-alice"); err != nil {
					t.Fatalf("PB-014", "an operator could not submit a Draft batch: %v", err)
				}
				status(t, "PB-014", fresh.ReadBatch(t, "PB-014", id), "PendingApproval")
				if err := fresh.BatchAction(t, id, "approve", "ops-alice"); err == nil {
					t.Fatalf("PB-015", "the operator who submitted the batch approved it; a different operator must approve")
				}
				b := fresh.ReadBatch(t, "PB-015", id)
				status(t, "PB-015", b, "PendingApproval")
				if b["approved_at"] != nil {
					t.Fatalf("PB-005", "approved_at is %v before approval", b["approved_at"])
				}
				if err := fresh.BatchAction(t, id, "approve", "ops-bob"); err != nil {
					t.Fatalf("PB-015", "a different operator could not approve: %v", err)
				}
				b = fresh.ReadBatch(t, "PB-015", id)
				status(t, "PB-015", b, "Approved")
				if s, _ := b["approved_at"].(string); s == "" {
					t.Fatalf("PB-015", "approved_at is %v after approval, want set", b["approved_at"])
				}
				if b["completed_at"] != nil {
					t.Fatalf("PB-005", "completed_at is %v before completion", b["completed_at"])
				}
				for seq, it := range batchItems(t, "PB-009", b) {
					if it["fiat_payment_id"] != nil {
						t.Errorf("PB-009", "item %d of an Approved batch not yet executed has fiat_payment_id %v; no withdrawal exists yet", seq, it["fiat_payment_id"])
					}
				}
				b = execute(t, id)
				// The items first, then the batch they call for: Completed
				// with completed_at (settled, PB-018).
				items := batchItems(t, "PB-018", b)
				itemOutcome(t, "PB-018", items, 1, "Completed", "")
				itemOutcome(t, "PB-018", items, 2, "Completed", "")
				itemOutcome(t, "PB-025", items, 3, "Skipped", "validation")
				settled(t, b)
				if err := fresh.BatchAction(t, id, "submit", "ops-alice"); err == nil {
					t.Fatalf("PB-021", "a Completed batch was submitted again; Completed is terminal")
				}
			},
		},
		{
			ID:     "payoutbatches/lifecycle-rejected",
			Title:  "PendingApproval → Rejected when an operator rejects; approved_at and completed_at stay null and the batch is terminal",
			Rules:  []string{"PB-016", "PB-022", "PB-021", "PB-012"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  needs,
			Run: func(t *check.T) {
				t.Control()
				id := newDraft(t, "GBP", "", []any{fresh.BatchItem(t.Beneficiary("gbp"), 100, "Reject me")})
				if err := fresh.BatchAction(t, id, "submit", "ops-alice"); err != nil {
					t.NoVerdict(err)
				}
				if err := fresh.BatchAction(t, id, "reject", "ops-bob"); err != nil {
					t.Fatalf("PB-016", "an operator could not reject a PendingApproval batch: %v", err)
				}
				b := fresh.ReadBatch(t, "PB-016", id)
				status(t, "PB-016", b, "Rejected")
				if b["approved_at"] != nil || b["completed_at"] != nil {
					t.Fatalf("PB-022", "Rejected batch has approved_at %v completed_at %v, want null", b["approved_at"], b["completed_at"])
				}
				if err := fresh.BatchAction(t, id, "approve", "ops-carol"); err == nil {
					t.Fatalf("PB-021", "a Rejected batch was approved; Rejected is terminal")
				}
			},
		},
		{
			ID:     "payoutbatches/execution-stuck-item",
			Title:  "An item stuck in Executing (failure_code null) keeps the batch Executing, never terminal",
			Rules:  []string{"PB-023", "PB-026", "PB-027", "PB-029", "PB-017", "PB-012", "PB-005", "PB-008"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  needs,
			Run: func(t *check.T) {
				t.Control()
				ben := t.Beneficiary("gbp")
				id := newDraft(t, "GBP", "", []any{fresh.BatchItem(ben, 100, "Goes through"), fresh.BatchItem(ben, 100, "Gets stuck")})
				fresh.Approved(t, id)
				b := execute(t, id, 2)
				got := batchItems(t, "PB-026", b) // item 2 is the one interrupted
				status(t, "PB-023", b, "Executing")
				itemOutcome(t, "PB-027", got, 1, "Completed", "")
				itemOutcome(t, "PB-026", got, 2, "Executing", "")
				if b["completed_at"] != nil {
					t.Errorf("PB-005", "completed_at is %v on a batch still Executing; it is null until the batch completes", b["completed_at"])
				}
			},
		},
		{
			ID:     "payoutbatches/provider-b-rails",
			Title:  "PROVIDER_B beneficiaries fail item by item after approval on SCT and BACS with withdrawal_failed, and are paid on FPS and CHAPS; PROVIDER_A items in the same batch complete",
			Rules:  []string{"PB-001", "PB-075", "PB-074", "PB-037", "PB-030", "PB-027", "PB-028", "PB-029", "PB-017", "PB-012", "PB-004", "PB-008", "PB-011", "PB-018", "PB-019", "PB-020", "PB-023", "PB-104"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  append(needs, "beneficiaries.eur", "beneficiaries.gbp_provider_b", "beneficiaries.eur_provider_b"),
			Run: func(t *check.T) {
				t.Control()
				gbpA, gbpB := t.Beneficiary("gbp"), t.Beneficiary("gbp_provider_b")
				for _, c := range []struct {
					currency, rail, a, b string
					bFails               bool
				}{
					{"GBP", "BACS", gbpA, gbpB, true}, {"EUR", "SCT", t.Beneficiary("eur"), t.Beneficiary("eur_provider_b"), true},
					{"GBP", "FPS", gbpA, gbpB, false}, {"GBP", "CHAPS", gbpA, gbpB, false},
				} {
					id := newDraft(t, c.currency, c.rail, []any{fresh.BatchItem(c.a, 100, "Provider A pay"), fresh.BatchItem(c.b, 100, "Provider B pay")})
					fresh.Approved(t, id)
					b := execute(t, id)
					got := batchItems(t, "PB-075", b)
					itemOutcome(t, "PB-074", got, 1, "Completed", "")
					if c.bFails {
						providerRefused(t, got, 2)
					} else {
						itemOutcome(t, "PB-074", got, 2, "Completed", "")
					}
					// The batch status follows from the items.
					settled(t, b)
				}
			},
		},
		{
			ID:     "payoutbatches/no-operator-route",
			Title:  "No public route submits, approves or executes a batch: such requests change nothing and the batch stays Draft",
			Rules:  []string{"PB-046", "PB-012"},
			Labels: []string{check.Mutating},
			Needs:  needs,
			Run: func(t *check.T) {
				id := newDraft(t, "GBP", "", []any{fresh.BatchItem(t.Beneficiary("gbp"), 100, "Stay draft")})
				base := fresh.BatchesPath(t.Customer("active_personal")) + "/" + id
				for _, p := range []string{"/submit", "/approve", "/execute", ""} {
					for _, m := range []string{http.MethodPost, http.MethodPatch, http.MethodPut} {
						r := t.Do(t.Client("tenant"), client.Request{Method: m, Path: base + p, JSON: map[string]any{"status": "Approved"}, IdempotencyKey: t.NewKey()})
						if r.Status/100 == 2 {
							t.ErrorAt(r, "PB-046", "%s %s answered %d; no route moves a batch", m, base+p, r.Status)
						}
					}
				}
				status(t, "PB-046", fresh.ReadBatch(t, "PB-046", id), "Draft")
			},
		},
	}
}
