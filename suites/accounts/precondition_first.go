package accounts

import (
	"net/http"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// Money routes begin with the shared precondition (document 1, Endpoints /
// Common rules: "Money-moving routes begin with the shared precondition 409
// kyc_or_kyb_not_approved"): for a customer that is not Active and is also
// blocked by compliance, the precondition answers, not the policy gate.

// preconditionFirstChecks are the checks of precondition_first.go.
func preconditionFirstChecks() []check.Check {
	return []check.Check{
		{
			ID:     "accounts/kyc-precondition-first",
			Title:  "Opening a fiat account for a Draft customer that compliance also blocks is 409 kyc_or_kyb_not_approved: the shared precondition comes before the policy gates",
			Rules:  []string{"ERR-042", "CUST-022"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.tenant"},
			Run: func(t *check.T) {
				cust, _ := fresh.Customer(t)
				compliance(t, cust, "blocked")
				defer compliance(t, cust, "")
				shape.EnvelopeAnswer(t, open(t, cust, map[string]any{"currency": "GBP"}), shape.Want{Rule: "ERR-042", Status: http.StatusConflict, Code: "kyc_or_kyb_not_approved"})
			},
		},
	}
}
