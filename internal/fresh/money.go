package fresh

import (
	"fmt"

	"net/http"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// Beneficiaries is P/customers/{id}/banking/beneficiaries.
func Beneficiaries(customerID string) string {
	return api.Customer(customerID) + "/banking/beneficiaries"
}

// GBPPayee is a GBP beneficiary body over FPS with the PROVIDER_B personal
// name attributes, so that every provider a target selects accepts it.
func GBPPayee(name string) map[string]any {
	return map[string]any{
		"currency": "GBP", "name": name, "country": "GB", "sort_code": "040004", "account_number": "12345678", "rail": "FPS",
		"attributes": map[string]any{"beneficiary_first_name": "Grace", "beneficiary_last_name": "Payee"},
	}
}

// PostBeneficiary sends the create with the tenant key.
func PostBeneficiary(t *check.T, customerID string, body map[string]any) *client.Response {
	return t.Do(t.Client("tenant"), client.Request{Method: http.MethodPost, Path: Beneficiaries(customerID), JSON: body, IdempotencyKey: t.NewKey()})
}

// NewBeneficiaries creates beneficiaries for customerID (setup: a refusal
// is no verdict) and returns data.beneficiaries.
func NewBeneficiaries(t *check.T, customerID string, body map[string]any) []map[string]any {
	r := PostBeneficiary(t, customerID, body)
	if r.Status != http.StatusOK && r.Status != http.StatusCreated {
		t.NoVerdict(fmt.Errorf("creating a beneficiary answered %d: %s", r.Status, shape.Clip(r.Body)))
	}
	m, err := r.JSON()
	if err != nil {
		t.NoVerdict(err)
	}
	data, _ := m["data"].(map[string]any)
	raw, _ := data["beneficiaries"].([]any)
	var out []map[string]any
	for _, x := range raw {
		if b, ok := x.(map[string]any); ok {
			out = append(out, b)
		}
	}
	if len(out) == 0 {
		t.NoVerdict(fmt.Errorf("creating a beneficiary returned no data.beneficiaries: %s", shape.Clip(r.Body)))
	}
	return out
}

// BeneficiaryDecision records a staff decision through the control API
// ("approved" or "rejected").
func BeneficiaryDecision(t *check.T, id, decision, reason string) {
	if err := t.Control().BeneficiaryDecision(t.Context(), id, decision, reason); err != nil {
		t.NoVerdict(err)
	}
}

// BankRegistration moves a PROVIDER_B beneficiary's bank registration
// through the control API ("Pending", "Registered", "NeedsReview").
func BankRegistration(t *check.T, id, status string) {
	if err := t.Control().BankRegistration(t.Context(), id, status); err != nil {
		t.NoVerdict(err)
	}
}
