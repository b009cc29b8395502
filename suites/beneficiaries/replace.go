package beneficiaries

import (
	"net/http"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

func patch(t *check.T, customerID, id string, body map[string]any) *client.Response {
	return t.Do(t.Client("tenant"), client.Request{Method: http.MethodPatch, Path: fresh.Beneficiaries(customerID) + "/" + id, JSON: body, IdempotencyKey: t.NewKey()})
}

// replaceChecks are the checks of replace.go.
func replaceChecks() []check.Check {
	return []check.Check{
		{
			ID:     "beneficiaries/patch-replaces",
			Title:  "PATCH a beneficiary returns new records with new ids, which start PendingApproval",
			Rules:  []string{"BEN-012", "BEN-022", "BEN-016"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant", "customers.active_personal"},
			Run: func(t *check.T) {
				cust := t.Customer("active_personal")
				old := fresh.NewBeneficiaries(t, cust, fresh.GBPPayee("Before Payee"))[0]
				oldID, _ := old["id"].(string)
				r := patch(t, cust, oldID, fresh.GBPPayee("After Payee"))
				d := fresh.Success(t, "BEN-022", r)
				arr := shape.Array(t, "BEN-022", d, "beneficiaries")
				if len(arr) == 0 {
					t.FatalAt(r, "BEN-022", "PATCH returned no data.beneficiaries; new records are due")
				}
				for _, x := range arr {
					b, _ := x.(map[string]any)
					id := shape.String(t, "BEN-012", b, "id")
					if id == oldID {
						t.FatalAt(r, "BEN-012", "PATCH returned the replaced beneficiary's own id %s; a replacement is a new record", id)
					}
					if a := shape.String(t, "BEN-016", read(t, "BEN-016", cust, id), "approval_status"); a != "PendingApproval" {
						t.Fatalf("BEN-016", "the replacement %s reads approval_status %q, want PendingApproval (a new record)", id, a)
					}
				}
			},
		},
		{
			ID:     "beneficiaries/patch-refused-once-registration-started",
			Title:  "PATCH on a PROVIDER_B beneficiary whose bank registration has started is refused (409 beneficiary_update_failed)",
			Rules:  []string{"BEN-018", "BEN-019", "ERR-082"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.tenant", "customers.active_personal"},
			Run: func(t *check.T) {
				cust := t.Customer("active_personal")
				b := withProvider(fresh.NewBeneficiaries(t, cust, fresh.GBPPayee("Registering Payee")), "PROVIDER_B")
				if b == nil {
					t.Skipf("the target selects no PROVIDER_B for a GBP beneficiary of customers.active_personal")
				}
				id, _ := b["id"].(string)
				fresh.BankRegistration(t, id, "Pending")
				r := patch(t, cust, id, fresh.GBPPayee("Renamed Payee"))
				refused(t, "BEN-018", r, "PATCH of a PROVIDER_B beneficiary whose bank registration started")
				shape.EnvelopeAnswer(t, r, shape.Want{Rule: "BEN-019", Status: http.StatusConflict, Code: "beneficiary_update_failed"})
				shape.EnvelopeAnswer(t, r, shape.Want{Rule: "ERR-082", Status: http.StatusConflict, Code: "beneficiary_update_failed"})
			},
		},
		{
			ID:     "beneficiaries/delete-disables",
			Title:  "DELETE a beneficiary disables it: the record stays readable with a changed status",
			Rules:  []string{"BEN-023"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant", "customers.active_personal"},
			Run: func(t *check.T) {
				cust := t.Customer("active_personal")
				b := fresh.NewBeneficiaries(t, cust, fresh.GBPPayee("Leaving Payee"))[0]
				id, _ := b["id"].(string)
				before := shape.String(t, "BEN-023", read(t, "BEN-023", cust, id), "status")
				r := t.Do(t.Client("tenant"), client.Request{Method: http.MethodDelete, Path: fresh.Beneficiaries(cust) + "/" + id, IdempotencyKey: t.NewKey()})
				fresh.Success(t, "BEN-023", r)
				after := shape.String(t, "BEN-023", read(t, "BEN-023", cust, id), "status")
				if after == before {
					t.Fatalf("BEN-023", "after DELETE the beneficiary still reads status %q; DELETE disables it", after)
				}
			},
		},
	}
}
