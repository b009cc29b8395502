package payoutbatches

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// Item validation at intake (document 1, Endpoints / Payout batches: "HTTP
// 200 is not success"; States / Payout batch, item statuses).

func itemsChecks() []check.Check {
	return []check.Check{
		{
			ID:     "payoutbatches/item-validation",
			Title:  "Items with a zero, negative or fractional amount, an omitted or all-zero beneficiary, or a missing, unapproved, provisioning or other-currency beneficiary are Skipped with failure_code validation; the rest stay Pending",
			Rules:  []string{"PB-049", "PB-050", "PB-051", "PB-052", "PB-053", "PB-054", "PB-055", "PB-056", "PB-057", "PB-031", "PB-024", "PB-029", "PB-040", "PB-012", "PB-048", "PB-008"},
			Labels: []string{check.Mutating},
			Needs:  append(needs, "beneficiaries.eur", "beneficiaries.usd", "beneficiaries.gbp_pending", "beneficiaries.gbp_provisioning"),
			Run: func(t *check.T) {
				gbp := t.Beneficiary("gbp")
				labels := []string{"", "valid", "zero amount", "negative amount", "fractional amount", "omitted beneficiary", "all-zero beneficiary",
					"unknown beneficiary", "unapproved beneficiary", "provisioning beneficiary", "EUR beneficiary on a GBP batch", "valid", "valid, more than the balance"}
				rules := []string{"", "PB-024", "PB-049", "PB-050", "PB-051", "PB-053", "PB-054", "PB-055", "PB-056", "PB-056", "PB-057", "PB-024", "PB-024"}
				items := []any{
					fresh.BatchItem(gbp, 500, "Valid one"),
					fresh.BatchItem(gbp, 0, "Zero"),
					fresh.BatchItem(gbp, -500, "Negative"),
					fresh.BatchItem(gbp, 10.5, "Fractional"),
					fresh.BatchItem("", 500, "No beneficiary"),
					fresh.BatchItem("00000000-0000-0000-0000-000000000000", 500, "Zero uuid"),
					fresh.BatchItem("6a0f3a52-8f0e-4c55-9b8c-2d3f5e7a1b90", 500, "Unknown"),
					fresh.BatchItem(t.Beneficiary("gbp_pending"), 500, "Unapproved"),
					fresh.BatchItem(t.Beneficiary("gbp_provisioning"), 500, "Provisioning"),
					fresh.BatchItem(t.Beneficiary("eur"), 500, "Wrong currency"),
					fresh.BatchItem(gbp, 700, "Valid two"),
					// Valid at intake whatever the balance: intake moves and
					// reserves no money (funds are the submission's).
					fresh.BatchItem(gbp, 9_000_000_000_000, "Valid three"),
				}
				valid := map[int]bool{1: true, 11: true, 12: true}
				r := fresh.PostBatch(t, map[string]any{"currency": "GBP", "items": items})
				if r.Status == http.StatusBadRequest {
					t.FatalAt(r, "PB-052", "a fractional item amount was a body-binding 400; the item should be Skipped")
				}
				data := shape.EnvelopeAnswer(t, r, shape.Want{Rule: "PB-048", Status: http.StatusOK})
				b, _ := data["payout_batch"].(map[string]any)
				status(t, "PB-012", b, "Draft")
				got := batchItems(t, "PB-008", b)
				for seq := 1; seq <= len(items); seq++ {
					it := got[seq]
					want := "Skipped"
					if valid[seq] {
						want = "Pending"
					}
					if it == nil {
						t.Fatalf("PB-008", "no item with sequence %d", seq)
					}
					if it["status"] != want {
						t.ErrorAt(r, rules[seq], "item %d (%s): status %v, want %s", seq, labels[seq], it["status"], want)
						continue
					}
					if want == "Skipped" && it["failure_code"] != "validation" {
						t.ErrorAt(r, "PB-031", "item %d (%s): failure_code %v, want validation", seq, labels[seq], it["failure_code"])
					}
					if want == "Pending" && it["failure_code"] != nil {
						t.ErrorAt(r, "PB-029", "item %d: Pending with failure_code %v", seq, it["failure_code"])
					}
					// A valid item's amount is the integer minor units sent
					// (scale 2 whatever the currency).
					if sent := map[int]string{1: "500", 11: "700", 12: "9000000000000"}[seq]; sent != "" && fmt.Sprint(it["amount"]) != sent {
						t.ErrorAt(r, "PB-040", "item %d: amount %v, want %s (integer minor units as sent)", seq, it["amount"], sent)
					}
				}
				// Scale 2 for every currency: a EUR and a USD item keep the
				// integer minor units sent as well.
				for _, c := range []struct{ cur, ben string }{{"EUR", t.Beneficiary("eur")}, {"USD", t.Beneficiary("usd")}} {
					r := fresh.PostBatch(t, map[string]any{"currency": c.cur, "items": []any{fresh.BatchItem(c.ben, 1234, "Invoice Alpha")}})
					b, _ := shape.EnvelopeAnswer(t, r, shape.Want{Rule: "PB-040", Status: http.StatusOK})["payout_batch"].(map[string]any)
					if it := batchItems(t, "PB-040", b)[1]; it == nil || fmt.Sprint(it["amount"]) != "1234" {
						t.ErrorAt(r, "PB-040", "%s item of 1234 minor units: stored %v, want 1234 (integer minor units, scale 2)", c.cur, it)
					}
				}
			},
		},
		{
			ID:           "payoutbatches/all-skipped-rejected",
			Title:        "A batch whose every item is skipped is Rejected, answered 200 with success true, approved_at and completed_at null",
			Rules:        []string{"PB-013", "PB-022", "PB-021", "SVC-011"},
			Labels:       []string{check.Mutating},
			ControlWhy:   "an operator's attempt to submit a Rejected batch has no API route (operators act through the control API)",
			ControlRules: []string{"PB-021"},
			Needs:        needs,
			Run: func(t *check.T) {
				gbp := t.Beneficiary("gbp")
				r := fresh.PostBatch(t, map[string]any{"currency": "GBP", "items": []any{fresh.BatchItem(gbp, 0, "Zero"), fresh.BatchItem(gbp, 100, "")}})
				shape.StatusAnswer(t, r, shape.Want{Rule: "SVC-011", Status: http.StatusOK, What: "a batch whose every item is refused", Why: "such a batch fails inside an HTTP 200", Continue: true})
				data := shape.EnvelopeAnswer(t, r, shape.Want{Rule: "PB-013", Status: http.StatusOK})
				b, _ := data["payout_batch"].(map[string]any)
				status(t, "PB-013", b, "Rejected")
				if b["approved_at"] != nil || b["completed_at"] != nil {
					t.ErrorAt(r, "PB-022", "Rejected batch has approved_at %v completed_at %v, want null", b["approved_at"], b["completed_at"])
				}
				// Rejected is terminal: an operator cannot submit it.
				if !t.ServesControl() {
					t.WithoutControl()
				} else {
					id := shape.String(t, "PB-021", b, "id")
					if err := fresh.BatchAction(t, id, "submit", "ops-alice"); err == nil {
						t.Fatalf("PB-021", "a Rejected batch was submitted by an operator; Rejected is terminal")
					}
					if got := shape.String(t, "PB-021", fresh.ReadBatch(t, "PB-021", id), "status"); got != "Rejected" {
						t.Fatalf("PB-021", "a Rejected batch now reads %s", got)
					}
				}
			},
		},
		{
			ID:     "payoutbatches/overlong-reference-invalid-amount",
			Title:  "On BACS, FPS, SCT and ACH an item whose reference is over 256 characters and whose amount is invalid is recorded with amount 1, reference null, and a reason naming only the reference; at 256 characters the amount stays as sent",
			Rules:  []string{"PB-087", "PB-025", "PB-029", "PB-008"},
			Labels: []string{check.Mutating},
			Needs:  append(needs, "beneficiaries.eur", "beneficiaries.usd"),
			Run: func(t *check.T) {
				long := strings.Repeat("R", 257)
				atLimit := strings.Repeat("S", 256)
				for _, c := range []struct{ currency, rail, ben string }{
					{"GBP", "BACS", "gbp"}, {"GBP", "FPS", "gbp"}, {"EUR", "SCT", "eur"}, {"USD", "ACH", "usd"},
				} {
					ben := t.Beneficiary(c.ben)
					b := fresh.Batch(t, "PB-087", map[string]any{"currency": c.currency, "rail": c.rail, "items": []any{
						fresh.BatchItem(ben, 0, long), fresh.BatchItem(ben, -9, long), fresh.BatchItem(ben, 100, "Kept reference"),
						fresh.BatchItem(ben, 0, atLimit),
					}})
					expectItems(t, "PB-087", b, map[int]itemWant{
						1: {status: "Skipped", refNull: true, amount: ip(1)}, 2: {status: "Skipped", refNull: true, amount: ip(1)},
						3: {status: "Pending", ref: sp("Kept reference"), amount: ip(100)},
						4: {status: "Skipped", amount: ip(0)},
					}, func(seq int) string {
						return c.rail + ": " + []string{"", "zero amount, 257-char reference", "negative amount, 257-char reference", "valid", "zero amount, 256-char reference"}[seq]
					})
					items := batchItems(t, "PB-087", b)
					for _, seq := range []int{1, 2} {
						reason, _ := items[seq]["failure_reason"].(string)
						low := strings.ToLower(reason)
						if !strings.Contains(low, "reference") || strings.Contains(low, "amount") {
							t.Errorf("PB-087", "%s item %d: failure_reason %q should name only the reference", c.rail, seq, reason)
						}
					}
				}
			},
		},
	}
}
