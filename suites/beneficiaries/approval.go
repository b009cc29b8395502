package beneficiaries

import (
	"bytes"
	"net/http"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// approvalChecks are the checks of approval.go.
func approvalChecks() []check.Check {
	return []check.Check{
		{
			ID:     "beneficiaries/staff-decision-and-registration",
			Title:  "A staff approval moves PendingApproval to Approved; bank registration leaves approval unchanged; the API cannot approve",
			Rules:  []string{"BEN-014", "BEN-015", "BEN-017", "BEN-006"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.tenant", "customers.active_personal"},
			Run: func(t *check.T) {
				cust := t.Customer("active_personal")
				body := fresh.GBPPayee("Self Approved Payee")
				body["approval_status"] = "Approved"
				for _, b := range fresh.NewBeneficiaries(t, cust, body) {
					id, _ := b["id"].(string)
					if a := approvalStatus(t, read(t, "BEN-017", cust, id)); a != "PendingApproval" {
						t.Fatalf("BEN-017", "a create body naming approval_status Approved gave %q; the parent cannot approve through the API", a)
					}
					fresh.BeneficiaryDecision(t, id, "approved", "")
					if a := approvalStatus(t, read(t, "BEN-014", cust, id)); a != "Approved" {
						t.Fatalf("BEN-014", "after a staff approval the beneficiary reads approval_status %q, want Approved", a)
					}
					if b["provider"] == "PROVIDER_B" {
						// Both transitions the rule names: NeedsReview, then Registered.
						for _, reg := range []string{"NeedsReview", "Registered"} {
							fresh.BankRegistration(t, id, reg)
							after := read(t, "BEN-015", cust, id)
							if a := approvalStatus(t, after); a != "Approved" {
								t.Fatalf("BEN-015", "bank registration to %s moved approval_status to %q; it leaves the approval state unchanged", reg, a)
							}
							if s := shape.String(t, "BEN-015", after, "bank_registration.status"); s != reg {
								t.Fatalf("BEN-015", "after a registration transition to %s bank_registration.status is %q", reg, s)
							}
						}
					}
				}
			},
		},
		{
			ID:     "beneficiaries/rejection-reason-hidden",
			Title:  "A staff rejection reads Rejected and the rejection reason is not returned on the v1 surface",
			Rules:  []string{"BEN-010", "BEN-014", "BEN-006"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.tenant", "customers.active_personal"},
			Run: func(t *check.T) {
				cust := t.Customer("active_personal")
				id, _ := fresh.NewBeneficiaries(t, cust, fresh.GBPPayee("Rejected Payee"))[0]["id"].(string)
				reason := "ts-reason-" + t.NewKey()
				fresh.BeneficiaryDecision(t, id, "rejected", reason)
				r := get(t, "tenant", fresh.Beneficiaries(cust)+"/"+id)
				b := read(t, "BEN-014", cust, id)
				if a := approvalStatus(t, b); a != "Rejected" {
					t.FatalAt(r, "BEN-014", "after a staff rejection the beneficiary reads approval_status %q, want Rejected", a)
				}
				if bytes.Contains(r.Body, []byte(reason)) {
					t.FatalAt(r, "BEN-010", "the beneficiary read carries the rejection reason; it is not returned on this surface")
				}
				l := get(t, "tenant", fresh.Beneficiaries(cust))
				shape.StatusAnswer(t, l, shape.Want{Rule: "BEN-010", Status: http.StatusOK})
				if bytes.Contains(l.Body, []byte(reason)) {
					t.FatalAt(l, "BEN-010", "the beneficiary list carries the rejection reason; it is not returned on this surface")
				}
			},
		},
	}
}
