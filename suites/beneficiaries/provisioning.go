package beneficiaries

import (
	"net/http"
	"slices"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// provisioningChecks are the checks of provisioning.go.
func provisioningChecks() []check.Check {
	return slices.Concat(
		statusIsProvisioningOnlyChecks(),
		providerRefusalCodesChecks(),
	)
}

// statusIsProvisioningOnlyChecks returns check
// beneficiaries/status-is-provisioning-only (one of provisioningChecks).
func statusIsProvisioningOnlyChecks() []check.Check {
	return []check.Check{
		{
			ID:     "beneficiaries/status-is-provisioning-only",
			Title:  "status and provider_status do not move with approval: a new PendingApproval row and the same row once Approved read the same status and provider_status",
			Rules:  []string{"BEN-007", "BEN-024"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.tenant", "customers.active_personal"},
			Run: func(t *check.T) {
				cust := t.Customer("active_personal")
				rows := fresh.NewBeneficiaries(t, cust, fresh.GBPPayee("Status Payee"))
				if len(rows) == 0 {
					t.Fatalf("BEN-024", "a beneficiary create answered no results; want one per selected provider")
				}
				for _, row := range rows {
					id, _ := row["id"].(string)
					before := shape.EnvelopeAnswer(t, get(t, "tenant", fresh.Beneficiaries(cust)+"/"+id), shape.Want{Rule: "BEN-007", Status: http.StatusOK})
					fresh.BeneficiaryDecision(t, id, "approved", "")
					r := get(t, "tenant", fresh.Beneficiaries(cust)+"/"+id)
					after := shape.EnvelopeAnswer(t, r, shape.Want{Rule: "BEN-007", Status: http.StatusOK})
					for _, k := range []string{"status", "provider_status"} {
						b := shape.String(t, "BEN-007", before, "beneficiary."+k)
						a := shape.String(t, "BEN-007", after, "beneficiary."+k)
						if a != b {
							t.FatalAt(r, "BEN-007", "%s moved from %v to %v on approval; it describes provisioning only", k, b, a)
						}
					}
				}
			},
		},
	}
}

// providerRefusalCodesChecks returns check
// beneficiaries/provider-refusal-codes (one of provisioningChecks).
func providerRefusalCodesChecks() []check.Check {
	return []check.Check{
		{
			ID:     "beneficiaries/provider-refusal-codes",
			Alone:  check.WithControl,
			Title:  "Provider-side beneficiary refusals carry their documented status: unsupported_provider and beneficiary_provider_validation_failed 422, bank_account_required and beneficiary_creation_failed 409",
			Rules:  []string{"ERR-076", "ERR-079", "ERR-080", "ERR-081"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.tenant", "customers.active_personal"},
			Run: func(t *check.T) {
				cust := t.Customer("active_personal")
				for _, c := range []struct {
					rule, code string
					status     int
				}{
					{"ERR-076", "unsupported_provider", http.StatusUnprocessableEntity},
					{"ERR-079", "beneficiary_provider_validation_failed", http.StatusUnprocessableEntity},
					{"ERR-080", "bank_account_required", http.StatusConflict},
					{"ERR-081", "beneficiary_creation_failed", http.StatusConflict},
				} {
					if err := t.Control().BeneficiaryOutcome(t.Context(), cust, c.code); err != nil {
						t.Fatalf(c.rule, "control: beneficiary outcome: %v", err)
					}
					shape.EnvelopeAnswer(t, fresh.PostBeneficiary(t, cust, fresh.GBPPayee("Refused Payee")), shape.Want{Rule: c.rule, Status: c.status, Code: c.code})
				}
			},
		},
	}
}
