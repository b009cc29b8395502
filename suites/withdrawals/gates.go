package withdrawals

import (
	"net/http"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// The money policy gates on fiat withdrawals (document 2, Policy-gate
// codes; Operation codes / Fiat withdrawals).

func moneyPolicy(t *check.T, path string, body map[string]any) {
	if err := t.Control().Call(t.Context(), http.MethodPost, "/money-policy/"+path, body, nil); err != nil {
		t.NoVerdict(err)
	}
}

// gatesChecks are the checks of gates.go.
func gatesChecks() []check.Check {
	return []check.Check{
		{
			ID:     "withdrawals/compliance-gates",
			Title:  "A fiat withdrawal by a customer in manual review is 409 compliance_subject_manual_review, by a blocked one 403 compliance_subject_blocked (flat or envelope)",
			Rules:  []string{"ERR-098", "ERR-099", "ERR-101", "ERR-028", "CUST-022"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.tenant"},
			Run: func(t *check.T) {
				cust := fresh.Activated(t, "CUST-022")
				defer moneyPolicy(t, "compliance/"+cust, map[string]any{"state": ""})
				for _, tc := range []struct {
					state, rule, code string
					status            int
				}{{"manual_review", "ERR-098", "compliance_subject_manual_review", http.StatusConflict}, {"blocked", "ERR-099", "compliance_subject_blocked", http.StatusForbidden}} {
					moneyPolicy(t, "compliance/"+cust, map[string]any{"state": tc.state})
					r := withdraw(t, cust, body("00000000-0000-4000-8000-000000000001", "GBP", 100))
					refused(t, "ERR-028", r, "a withdrawal in compliance state "+tc.state)
					// ERR-101: the code comes as a flat policy-gate error or as
					// an envelope operation code; a body in neither form fails.
					if m, err := r.JSON(); err == nil {
						_, envelope := m["success"]
						_, flat := m["title"]
						if !envelope && !flat {
							t.FatalAt(r, "ERR-101", "the %s refusal is neither a flat error (title, code) nor an envelope (success, data.code): %s", tc.state, shape.Clip(r.Body))
						}
					}
					shape.FlatOrRefusalAnswer(t, r, shape.Want{Rule: tc.rule, Status: tc.status, Code: tc.code})
				}
			},
		},
		{
			ID:     "withdrawals/money-pause",
			Alone:  check.WithControl,
			Title:  "While money movement is paused platform-wide a fiat withdrawal answers 409 fiat_withdrawal_failed with a free-text detail, and nothing is paid",
			Rules:  []string{"ERR-038"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.tenant", "customers.active_personal", "beneficiaries.gbp"},
			Run: func(t *check.T) {
				moneyPolicy(t, "pause", map[string]any{"paused": true})
				defer moneyPolicy(t, "pause", map[string]any{"paused": false})
				r := withdraw(t, t.Customer("active_personal"), body(t.Beneficiary("gbp"), "GBP", 100))
				moneyPolicy(t, "pause", map[string]any{"paused": false})
				d := shape.EnvelopeAnswer(t, r, shape.Want{Rule: "ERR-038", Status: http.StatusConflict, Code: "fiat_withdrawal_failed"})
				if s, _ := d["detail"].(string); s == "" {
					t.FatalAt(r, "ERR-038", "the pause refusal has no free-text detail")
				}
			},
		},
	}
}
