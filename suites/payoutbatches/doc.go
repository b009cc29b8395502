// Package payoutbatches checks payout batches (document 1, Resources /
// Payout batch; States / Payout batch; Endpoints / Payout batches; document
// 2, Errors and Limits): intake refusals, item validation, rails and
// references (predicted by internal/rails), idempotency, reads and the
// operator lifecycle through the control API. Items are matched on
// sequence only.
package payoutbatches

import (
	"maps"
	"slices"
	"strconv"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// needs are the fixtures every batch check uses.
var needs = []string{"keys.tenant", "customers.active_personal", "beneficiaries.gbp"}

// itemWant is the expected state of one item after intake.
type itemWant struct {
	status string // Pending or Skipped
	// ref is the expected reference; refNull expects JSON null; neither
	// set means the reference is not asserted.
	ref     *string
	refNull bool
	amount  *int
}

// expectItems asserts items by sequence: status, failure_code validation on
// Skipped and null on Pending, and the reference when asked.
func expectItems(t *check.T, rule string, batch map[string]any, want map[int]itemWant, label func(seq int) string) {
	items := batchItems(t, rule, batch)
	if len(items) != len(want) {
		t.Fatalf(rule, "batch has %d items, want %d", len(items), len(want))
	}
	for _, seq := range slices.Sorted(maps.Keys(want)) {
		w := want[seq]
		it, ok := items[seq]
		if !ok {
			t.Fatalf(rule, "no item with sequence %d", seq)
		}
		what := label(seq)
		if it["status"] != w.status {
			t.Errorf(rule, "item %d (%s): status %v, want %s (failure_reason %v)", seq, what, it["status"], w.status, it["failure_reason"])
			continue
		}
		if w.status == "Skipped" && it["failure_code"] != "validation" {
			t.Errorf("PB-025", "item %d (%s): Skipped with failure_code %v, want validation", seq, what, it["failure_code"])
		}
		if w.status == "Pending" && it["failure_code"] != nil {
			t.Errorf("PB-029", "item %d (%s): Pending with failure_code %v, want null", seq, what, it["failure_code"])
		}
		switch {
		case w.refNull && it["reference"] != nil:
			t.Errorf(rule, "item %d (%s): reference %v, want null", seq, what, clip(it["reference"]))
		case w.ref != nil && it["reference"] != *w.ref:
			t.Errorf(rule, "item %d (%s): reference %v, want %q", seq, what, clip(it["reference"]), clip(*w.ref))
		}
		if w.amount != nil {
			if got := fresh.Int(t, rule, it, "amount"); got != *w.amount {
				t.Errorf(rule, "item %d (%s): amount %d, want %d", seq, what, got, *w.amount)
			}
		}
	}
}

func clip(v any) any {
	s, ok := v.(string)
	if !ok || len(s) <= 40 {
		return v
	}
	return s[:20] + "…(" + strconv.Itoa(len(s)) + " bytes)"
}

func sp(s string) *string { return &s }
func ip(i int) *int       { return &i }

// status asserts payout_batch.status.
func status(t *check.T, rule string, batch map[string]any, want string) {
	if got := shape.String(t, rule, batch, "status"); got != want {
		t.Fatalf(rule, "payout batch status %s, want %s", got, want)
	}
}

// batchItems is fresh.BatchItems after judging the numbering: the n items
// carry exactly the sequences 1..n, their 1-based positions in the
// request (PB-008); items numbered otherwise are not judged one by one
// (each would be compared with another item's expectation).
func batchItems(t *check.T, rule string, batch map[string]any) map[int]map[string]any {
	items := fresh.BatchItems(t, rule, batch)
	for seq := 1; seq <= len(items); seq++ {
		if items[seq] == nil {
			t.Fatalf("PB-008", "the %d items are not numbered 1..%d (no sequence %d); an item's sequence is its 1-based position in the request", len(items), len(items), seq)
		}
	}
	return items
}
