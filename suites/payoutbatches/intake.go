package payoutbatches

import (
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/rails"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// Intake refusals (document 1, Endpoints / Payout batches, Create errors;
// document 2, Operation codes and Limits).

func intakeChecks() []check.Check {
	return []check.Check{
		{
			ID:     "payoutbatches/create-moves-no-money",
			Title:  "Creating a Draft batch moves no money and reserves no funds: the customer's balance reads the same before and after",
			Rules:  []string{"PB-045"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant", "customers.parent", "customers.child", "beneficiaries.child_gbp"},
			Run: func(t *check.T) {
				child := t.Customer("child")
				balancePath := api.P + "/customers/" + t.Customer("parent") + "/end-customers/" + child + "/balance"
				balance := func() int {
					r := t.Do(t.Client("tenant"), client.Request{Method: http.MethodGet, Path: balancePath})
					return shape.Int(t, "PB-045", shape.EnvelopeAnswer(t, r, shape.Want{Rule: "PB-045", Status: http.StatusOK}), "total_amount")
				}
				before := balance()
				r := t.Do(t.Client("tenant"), client.Request{Method: http.MethodPost, Path: fresh.BatchesPath(child), IdempotencyKey: t.NewKey(),
					JSON: map[string]any{"currency": "GBP", "items": []any{fresh.BatchItem(t.Beneficiary("child_gbp"), 5000, "Child payout"), fresh.BatchItem(t.Beneficiary("child_gbp"), 2500, "Child payout two")}}})
				b, _ := shape.EnvelopeAnswer(t, r, shape.Want{Rule: "PB-045", Status: http.StatusOK})["payout_batch"].(map[string]any)
				status(t, "PB-045", b, "Draft")
				if after := balance(); after != before {
					t.Fatalf("PB-045", "the customer's GBP balance moved from %d to %d when a Draft batch of 7500 was created", before, after)
				}
				// Create validates every item: two identical zero-amount
				// items, one before and one after a valid item (and after
				// the first, skipped), are judged alike.
				ben := t.Beneficiary("child_gbp")
				r = t.Do(t.Client("tenant"), client.Request{Method: http.MethodPost, Path: fresh.BatchesPath(child), IdempotencyKey: t.NewKey(),
					JSON: map[string]any{"currency": "GBP", "items": []any{fresh.BatchItem(ben, 0, "Zero"), fresh.BatchItem(ben, 100, "Valid"), fresh.BatchItem(ben, 0, "Zero")}}})
				b, _ = shape.EnvelopeAnswer(t, r, shape.Want{Rule: "PB-045", Status: http.StatusOK})["payout_batch"].(map[string]any)
				if items, _ := b["items"].([]any); len(items) == 3 {
					first, _ := items[0].(map[string]any)
					third, _ := items[2].(map[string]any)
					if first["status"] != third["status"] {
						t.ErrorAt(r, "PB-045", "two identical zero-amount items are judged apart: item 1 is %v, item 3 (after a skipped and a valid item) is %v; create validates every item", first["status"], third["status"])
					}
				}
			},
		},
		{
			ID:     "payoutbatches/create-refusals",
			Title:  "POST payout-batches refuses a missing currency, AUD and other currencies, no items and over 500 items with their 422 codes; 500 items are accepted; an item whose beneficiary_id is not a uuid or whose amount is not a number fails body binding (400); rail and reference may be omitted",
			Rules:  []string{"PB-092", "PB-093", "PB-094", "PB-095", "PB-039", "PB-012"},
			Labels: []string{check.Mutating},
			Needs:  needs,
			Run: func(t *check.T) {
				ben := t.Beneficiary("gbp")
				one := []any{fresh.BatchItem(ben, 100, "Rent")}
				for _, body := range []map[string]any{{"items": one}, {"currency": nil, "items": one}, {"currency": "", "items": one}} {
					shape.EnvelopeAnswer(t, fresh.PostBatch(t, body), shape.Want{Rule: "PB-092", Status: http.StatusUnprocessableEntity, Code: "currency_required"})
				}
				// Since 2026-09-02 (document 2, Versioning: VER-010, a dated
				// restatement of PB-093) as well.
				for _, cur := range []string{"AUD", "CHF", "JPY", "XYZ"} {
					shape.EnvelopeAnswer(t, fresh.PostBatch(t, map[string]any{"currency": cur, "items": one}), shape.Want{Rule: "PB-093", Status: http.StatusUnprocessableEntity, Code: "unsupported_currency"})
				}
				for _, body := range []map[string]any{{"currency": "GBP"}, {"currency": "GBP", "items": []any{}}, {"currency": "GBP", "items": nil}} {
					shape.EnvelopeAnswer(t, fresh.PostBatch(t, body), shape.Want{Rule: "PB-094", Status: http.StatusUnprocessableEntity, Code: "items_required"})
				}
				many := func(n int) []any {
					out := make([]any, n)
					for i := range out {
						out[i] = fresh.BatchItem(ben, 100, "Payroll")
					}
					return out
				}
				shape.EnvelopeAnswer(t, fresh.PostBatch(t, map[string]any{"currency": "GBP", "items": many(501)}), shape.Want{Rule: "PB-095", Status: http.StatusUnprocessableEntity, Code: "too_many_items"})
				b := fresh.Batch(t, "PB-095", map[string]any{"currency": "GBP", "items": many(500)})
				if n := fresh.Int(t, "PB-095", b, "item_count"); n != 500 {
					t.Fatalf("PB-095", "a 500-item batch has item_count %d", n)
				}
				status(t, "PB-012", b, "Draft")
				// The body's types (PB-039): beneficiary_id a uuid, amount a
				// number (a boolean or a quoted non-number is the wrong type;
				// whether a quoted integer binds is left open); a body that
				// does not bind is the 400 with errors and no code.
				for _, item := range []map[string]any{
					{"beneficiary_id": "not-a-uuid", "amount": 100, "reference": "Rent"},
					{"beneficiary_id": ben, "amount": "one hundred", "reference": "Rent"},
					{"beneficiary_id": ben, "amount": true, "reference": "Rent"},
				} {
					shape.ProblemAnswer(t, fresh.PostBatch(t, map[string]any{"currency": "GBP", "items": []any{item}}), shape.Want{Rule: "PB-039", Status: http.StatusBadRequest})
				}
				// rail and reference are optional.
				status(t, "PB-039", fresh.Batch(t, "PB-039", map[string]any{"currency": "GBP", "items": []any{map[string]any{"beneficiary_id": ben, "amount": 100}}}), "Draft")
			},
		},
		{
			ID:     "payoutbatches/unsupported-rail",
			Title:  "A rail the batch currency does not offer (book transfer, another currency's rail) is 422 unsupported_rail with data.detail naming the allowed rails",
			Rules:  []string{"PB-072", "PB-073", "PB-096"},
			Labels: []string{check.Mutating},
			Needs:  needs,
			Run: func(t *check.T) {
				ben := t.Beneficiary("gbp")
				cases := map[string][]string{
					"GBP": {"BOOK_TRANSFER", "book-transfer", "INTERNAL", "SCT", "ACH", "SEPA"},
					"EUR": {"BOOK_TRANSFER", "FPS", "CHAPS", "SCT INSTANT", "SEPA_INSTANT_X"},
					"USD": {"BOOK_TRANSFER", "FPS", "SCT", "RTP"},
				}
				for _, cur := range slices.Sorted(maps.Keys(cases)) {
					bad := cases[cur]
					for _, rail := range bad {
						r := fresh.PostBatch(t, map[string]any{"currency": cur, "rail": rail, "items": []any{fresh.BatchItem(ben, 100, "Rent")}})
						if book := strings.EqualFold(strings.ReplaceAll(rail, "-", "_"), "BOOK_TRANSFER"); book && (r.Status != http.StatusUnprocessableEntity || shape.BodyCode(r) != "unsupported_rail") {
							t.ErrorAt(r, "PB-072", "%s batch on the book-transfer rail %q answered %d code %q, want 422 unsupported_rail", cur, rail, r.Status, shape.BodyCode(r))
							continue // the refusal's form is not judged on a batch taken
						}
						if r.Status/100 == 2 {
							// Another currency's rail, neither canonical nor an
							// alias for the batch currency: refused (reading PB-073).
							t.ErrorAt(r, "PB-073", "%s batch on rail %q (not a rail of %s) was taken (%d); want 422 unsupported_rail", cur, rail, cur, r.Status)
							continue
						}
						data := shape.EnvelopeAnswer(t, r, shape.Want{Rule: "PB-096", Status: http.StatusUnprocessableEntity, Code: "unsupported_rail"})
						detail, _ := data["detail"].(string)
						for _, allowed := range rails.Canonical(cur) {
							if !strings.Contains(detail, allowed) {
								t.ErrorAt(r, "PB-096", "%s rail %q: data.detail %q does not list the allowed rail %s", cur, rail, detail, allowed)
							}
						}
					}
				}
			},
		},
		{
			ID:     "payoutbatches/subject-not-active",
			Title:  "POST payout-batches for a customer that is not Active is 422 subject_not_active",
			Rules:  []string{"PB-097"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant", "customers.suspended", "customers.draft", "beneficiaries.gbp"},
			Run: func(t *check.T) {
				for _, name := range []string{"suspended", "draft"} {
					r := t.Do(t.Client("tenant"), client.Request{Method: http.MethodPost, Path: fresh.BatchesPath(t.Customer(name)), IdempotencyKey: t.NewKey(),
						JSON: map[string]any{"currency": "GBP", "items": []any{fresh.BatchItem(t.Beneficiary("gbp"), 100, "Rent")}}})
					shape.EnvelopeAnswer(t, r, shape.Want{Rule: "PB-097", Status: http.StatusUnprocessableEntity, Code: "subject_not_active"})
				}
			},
		},
		{
			ID:     "payoutbatches/create-not-found",
			Title:  "POST payout-batches for an unknown customer, another tenant's, or one of the tenant's the (subject) key cannot act for is the flat 404 'Customer was not found.'; without an Idempotency-Key it is 400 idempotency_key_invalid",
			Rules:  []string{"PB-090", "PB-089"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant", "keys.subject", "customers.other_tenant", "customers.active_personal", "beneficiaries.gbp"},
			Run: func(t *check.T) {
				body := map[string]any{"currency": "GBP", "items": []any{fresh.BatchItem(t.Beneficiary("gbp"), 100, "Rent")}}
				for _, c := range [][2]string{{"tenant", "5d1f0c3e-2a47-4b8e-9c11-0e6f2b7a9d40"}, {"tenant", t.Customer("other_tenant")}, {"subject", t.Customer("active_personal")}} {
					key, id := c[0], c[1]
					r := t.Do(t.Client(key), client.Request{Method: http.MethodPost, Path: fresh.BatchesPath(id), JSON: body, IdempotencyKey: t.NewKey()})
					m := shape.FlatAnswer(t, r, shape.Want{Rule: "PB-090", Status: http.StatusNotFound})
					if m["title"] != "Customer was not found." {
						t.ErrorAt(r, "PB-090", "404 title %v, want 'Customer was not found.'", m["title"])
					}
				}
				r := t.Do(t.Client("tenant"), client.Request{Method: http.MethodPost, Path: fresh.BatchesPath(t.Customer("active_personal")), JSON: body})
				shape.ProblemAnswer(t, r, shape.Want{Rule: "PB-089", Status: http.StatusBadRequest, Code: "idempotency_key_invalid"})
			},
		},
		{
			ID:     "payoutbatches/created-shape",
			Title:  "A created batch is data.payout_batch with every documented field, Draft, items in sequence with every item field, counts and total_amount including skipped items",
			Rules:  []string{"PB-041", "PB-002", "PB-007", "PB-012", "PB-004", "PB-005", "PB-009", "PB-010", "PB-011", "PB-048", "PB-025", "PB-029", "PB-001", "PB-008"},
			Labels: []string{check.Mutating},
			Needs:  needs,
			Run: func(t *check.T) {
				ben := t.Beneficiary("gbp")
				r := fresh.PostBatch(t, map[string]any{"currency": "GBP", "items": []any{
					fresh.BatchItem(ben, 1250, "Invoice one"), fresh.BatchItem(ben, 0, "Zero"), fresh.BatchItem(ben, 3000, "Invoice three"), fresh.BatchItem(ben, -40, "Negative"),
				}})
				m := shape.Object(t, "PB-041", r)
				if m["message"] != "Payout batch created successfully" {
					t.ErrorAt(r, "PB-041", "message %v, want 'Payout batch created successfully'", m["message"])
				}
				data := shape.EnvelopeAnswer(t, r, shape.Want{Rule: "PB-041", Status: http.StatusOK})
				b, ok := data["payout_batch"].(map[string]any)
				if !ok {
					t.FatalAt(r, "PB-041", "data.payout_batch is %v, want an object", data["payout_batch"])
				}
				var missing []string
				for _, k := range []string{"id", "customer_id", "currency", "rail", "status", "item_count", "success_count", "failure_count", "total_amount", "approved_at", "completed_at", "created_at", "updated_at", "items"} {
					if _, ok := b[k]; !ok {
						missing = append(missing, k)
					}
				}
				if len(missing) > 0 {
					// The values below are read from these members.
					t.FatalAt(r, "PB-002", "payout_batch has no %q", missing)
				}
				status(t, "PB-012", b, "Draft")
				if b["customer_id"] != t.Customer("active_personal") {
					t.ErrorAt(r, "PB-001", "the batch posted for customer %s answers customer_id %v: a batch is one customer's", t.Customer("active_personal"), b["customer_id"])
				}
				if b["currency"] != "GBP" {
					t.ErrorAt(r, "PB-002", "currency %v, want GBP", b["currency"])
				}
				if b["approved_at"] != nil || b["completed_at"] != nil {
					t.ErrorAt(r, "PB-005", "a new batch has approved_at %v completed_at %v, want null", b["approved_at"], b["completed_at"])
				}
				if got := fresh.Int(t, "PB-004", b, "total_amount"); got != 1250+0+3000-40 {
					t.ErrorAt(r, "PB-004", "total_amount %d, want %d (every item, skipped included)", got, 1250+3000-40)
				}
				if ic, sc := fresh.Int(t, "PB-011", b, "item_count"), fresh.Int(t, "PB-011", b, "success_count"); ic != 4 || sc != 0 {
					t.ErrorAt(r, "PB-011", "item_count %d success_count %d, want 4 items sent and 0 Completed", ic, sc)
				}
				if fc := fresh.Int(t, "PB-010", b, "failure_count"); fc != 2 {
					t.ErrorAt(r, "PB-010", "failure_count %d, want 2 (two refused items, nothing paid)", fc)
				}
				arr, _ := b["items"].([]any)
				for i, x := range arr {
					it, _ := x.(map[string]any)
					for _, k := range []string{"id", "sequence", "beneficiary_id", "amount", "reference", "status", "fiat_payment_id", "failure_code", "failure_reason"} {
						if _, ok := it[k]; !ok {
							t.ErrorAt(r, "PB-007", "items[%d] has no %q", i, k)
						}
					}
					if it["fiat_payment_id"] != nil {
						t.ErrorAt(r, "PB-009", "items[%d] has fiat_payment_id %v before any withdrawal", i, it["fiat_payment_id"])
					}
				}
				expectItems(t, "PB-048", b, map[int]itemWant{
					1: {status: "Pending", ref: sp("Invoice one"), amount: ip(1250)}, 2: {status: "Skipped"},
					3: {status: "Pending", ref: sp("Invoice three"), amount: ip(3000)}, 4: {status: "Skipped"},
				}, func(seq int) string { return []string{"", "valid", "zero amount", "valid", "negative amount"}[seq] })
			},
		},
	}
}
