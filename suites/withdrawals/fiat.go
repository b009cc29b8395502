// Package withdrawals checks fiat withdrawals (document 1, Resources / Fiat
// withdrawal; States / Fiat withdrawal; Endpoints / Deposits and
// withdrawals; document 2, Operation codes / Fiat withdrawals).
package withdrawals

import (
	"encoding/json"
	"net/http"

	"github.com/google/uuid"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// withdraw posts a fiat withdrawal body with the tenant key.
func withdraw(t *check.T, customerID string, body map[string]any) *client.Response {
	return t.Do(t.Client("tenant"), client.Request{Method: http.MethodPost, Path: api.Customer(customerID) + "/banking/withdrawals", JSON: body, IdempotencyKey: t.NewKey()})
}

func body(beneficiaryID, currency string, amount any) map[string]any {
	return map[string]any{"beneficiary_id": beneficiaryID, "currency": currency, "amount": amount, "rail": "FPS", "description": "TS " + uuid.NewString()[:8]}
}

func refused(t *check.T, rule string, r *client.Response, what string) {
	if r.Status >= 200 && r.Status < 300 {
		t.FatalAt(r, rule, "%s was accepted (%d); it must be refused", what, r.Status)
	}
}

// answered asserts a taken withdrawal's answer, a 200 envelope whose data
// holds the withdrawal object (FWD-018), and returns data.withdrawal.
func answered(t *check.T, r *client.Response) map[string]any {
	d := shape.EnvelopeAnswer(t, r, shape.Want{Rule: "FWD-018", Status: http.StatusOK})
	w, ok := d["withdrawal"].(map[string]any)
	if !ok {
		t.FatalAt(r, "FWD-018", "POST banking/withdrawals answered no data.withdrawal object: data has %v", d)
	}
	return w
}

// fiatChecks are the checks of fiat.go.
func fiatChecks() []check.Check {
	return []check.Check{
		{
			ID:     "withdrawals/pays-only-approved-beneficiary",
			Title:  "A fiat withdrawal to a PendingApproval beneficiary is 409 beneficiary_not_approved; to an Approved one it answers data.withdrawal with id and status",
			Rules:  []string{"BEN-009", "ERR-091", "FWD-006", "FWD-018"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant", "customers.active_personal", "beneficiaries.gbp", "beneficiaries.gbp_pending"},
			Run: func(t *check.T) {
				cust := t.Customer("active_personal")
				r := withdraw(t, cust, body(t.Beneficiary("gbp_pending"), "GBP", 100))
				refused(t, "BEN-009", r, "a withdrawal to a PendingApproval beneficiary")
				shape.EnvelopeAnswer(t, r, shape.Want{Rule: "ERR-091", Status: http.StatusConflict, Code: "beneficiary_not_approved"})
				w := answered(t, withdraw(t, cust, body(t.Beneficiary("gbp"), "GBP", 100)))
				shape.String(t, "FWD-006", w, "id")
				shape.String(t, "FWD-006", w, "status")
			},
		},
		{
			ID:     "withdrawals/amount-positive-integer",
			Title:  "A fiat withdrawal amount of 0 or below is 422 invalid_amount; a fractional amount is refused (400 binding or 422 invalid_amount)",
			Rules:  []string{"FWD-003", "ERR-084", "FWD-004"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant", "customers.active_personal", "beneficiaries.gbp"},
			Run: func(t *check.T) {
				cust, ben := t.Customer("active_personal"), t.Beneficiary("gbp")
				for _, amt := range []any{0, -5} {
					r := withdraw(t, cust, body(ben, "GBP", amt))
					refused(t, "FWD-003", r, "a withdrawal of amount "+jsonText(amt))
					shape.EnvelopeAnswer(t, r, shape.Want{Rule: "ERR-084", Status: http.StatusUnprocessableEntity, Code: "invalid_amount"})
				}
				r := withdraw(t, cust, body(ben, "GBP", json.Number("10.5")))
				refused(t, "FWD-004", r, "a withdrawal of amount 10.5")
				if r.Status == http.StatusBadRequest {
					shape.ProblemAnswer(t, r, shape.Want{Rule: "FWD-004", Status: http.StatusBadRequest})
				} else {
					shape.EnvelopeAnswer(t, r, shape.Want{Rule: "FWD-004", Status: http.StatusUnprocessableEntity, Code: "invalid_amount"})
				}
			},
		},
	}
}

func jsonText(v any) string { b, _ := json.Marshal(v); return string(b) }
