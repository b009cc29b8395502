package fresh

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// Payout batches (document 1, Endpoints / Payout batches) are created for
// the profile's active personal customer, who owns the beneficiary
// fixtures.

// BatchesPath is P/customers/{id}/payout-batches.
func BatchesPath(customerID string) string {
	return api.P + "/customers/" + customerID + "/payout-batches"
}

// BatchItem is one request item; nil members are omitted.
func BatchItem(beneficiary string, amount any, reference any) map[string]any {
	m := map[string]any{"amount": amount}
	if beneficiary != "" {
		m["beneficiary_id"] = beneficiary
	}
	if reference != nil {
		m["reference"] = reference
	}
	return m
}

// PostBatch posts a batch body for the active personal customer with a
// fresh Idempotency-Key and returns the raw response.
func PostBatch(t *check.T, body map[string]any) *client.Response {
	return t.Do(t.Client("tenant"), client.Request{Method: http.MethodPost, Path: BatchesPath(t.Customer("active_personal")), JSON: body, IdempotencyKey: t.NewKey()})
}

// Batch posts a batch and asserts the 200 envelope; it returns
// data.payout_batch. A failure is recorded under rule.
func Batch(t *check.T, rule string, body map[string]any) map[string]any {
	r := PostBatch(t, body)
	data := shape.EnvelopeAnswer(t, r, shape.Want{Rule: rule, Status: http.StatusOK})
	b, ok := data["payout_batch"].(map[string]any)
	if !ok {
		t.FatalAt(r, rule, "data.payout_batch is %v, want an object", data["payout_batch"])
	}
	return b
}

// ReadBatch is the by-id read; it returns data.payout_batch.
func ReadBatch(t *check.T, rule, id string) map[string]any {
	r := t.Do(t.Client("tenant"), client.Request{Method: http.MethodGet, Path: BatchesPath(t.Customer("active_personal")) + "/" + id})
	data := shape.EnvelopeAnswer(t, r, shape.Want{Rule: rule, Status: http.StatusOK})
	b, ok := data["payout_batch"].(map[string]any)
	if !ok {
		t.FatalAt(r, rule, "data.payout_batch is %v, want an object", data["payout_batch"])
	}
	return b
}

// BatchItems returns a batch's items keyed by sequence (items are matched
// on sequence only, PB-059); a missing, duplicated or non-integer sequence
// fails under rule.
func BatchItems(t *check.T, rule string, batch map[string]any) map[int]map[string]any {
	arr, ok := batch["items"].([]any)
	if !ok {
		t.Fatalf(rule, "payout_batch.items is %v, want an array", batch["items"])
	}
	out := map[int]map[string]any{}
	for i, x := range arr {
		m, ok := x.(map[string]any)
		if !ok {
			t.Fatalf(rule, "items[%d] is %v, want an object", i, x)
		}
		seq := Int(t, rule, m, "sequence")
		if _, dup := out[seq]; dup {
			t.Fatalf(rule, "sequence %d appears twice", seq)
		}
		out[seq] = m
	}
	return out
}

// Int reads an integer member.
func Int(t *check.T, rule string, m map[string]any, key string) int {
	n, ok := m[key].(json.Number)
	if !ok {
		t.Fatalf(rule, "%s is %v, want an integer", key, m[key])
	}
	i, err := strconv.Atoi(n.String())
	if err != nil {
		t.Fatalf(rule, "%s is %v, want an integer", key, m[key])
	}
	return i
}

// BatchAction runs an operator action through the control API; a refusal
// is returned, a transport failure is no verdict.
func BatchAction(t *check.T, id, action, operator string) error {
	return t.Control().PayoutBatchAction(t.Context(), id, action, operator)
}

// Approved takes a Draft batch to Approved with two operators.
func Approved(t *check.T, id string) {
	if err := BatchAction(t, id, "submit", "ops-alice"); err != nil {
		t.NoVerdict(err)
	}
	if err := BatchAction(t, id, "approve", "ops-bob"); err != nil {
		t.NoVerdict(err)
	}
}
