package webhooks

import (
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/fresh"
)

// Beneficiary events produced by real staff decisions and bank
// registrations, with their documented payloads (document 2, Events:
// Event types and emitting outcomes; Payload fields).

func eventsBeneficiaryOutcomesChecks() []check.Check {
	return []check.Check{
		{
			ID:     "webhooks/event-beneficiary-decisions",
			Title:  "A staff approval emits beneficiary.approved (empty rejection_reason) and fiat.beneficiary.updated (change approval); a rejection emits beneficiary.rejected; a bank registration emits fiat.beneficiary.updated (change registration)",
			Rules:  []string{"EVT-061", "EVT-062", "EVT-129", "EVT-130", "EVT-132", "EVT-133", "EVT-134", "EVT-135", "EVT-136", "WHM-003"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.tenant", "customers.active_personal", "webhook_url"},
			Run: func(t *check.T) {
				in, subID, stop := listen(t, "tenant", "beneficiary.approved", "beneficiary.rejected", "fiat.beneficiary.updated")
				defer stop()
				cust := t.Customer("active_personal")
				rows := fresh.NewBeneficiaries(t, cust, fresh.GBPPayee("Event Payee"))
				var approved, providerB string
				for _, r := range rows {
					id, _ := r["id"].(string)
					if approved == "" {
						approved = id
					}
					if r["provider"] == "PROVIDER_B" {
						providerB = id
					}
				}
				fresh.BeneficiaryDecision(t, approved, "approved", "")
				in.await(subID, 2)
				d := one(t, "EVT-061", v1Events(t, in.records(), subID, "beneficiary.approved", approved), "beneficiary.approved of the approved beneficiary")
				for _, k := range []string{"beneficiary_id", "subject_id", "approval_status", "provider", "currency", "rejection_reason"} {
					if _, ok := d[k]; !ok {
						t.Errorf("EVT-129", "beneficiary.approved data lacks %s: %v", k, d)
					}
				}
				if d["beneficiary_id"] != approved || d["currency"] != "GBP" {
					t.Errorf("EVT-129", "beneficiary.approved data names %v in %v, want %s in GBP", d["beneficiary_id"], d["currency"], approved)
				}
				if r, _ := d["rejection_reason"].(string); r != "" || (d["rejection_reason"] != nil && d["rejection_reason"] != "") {
					t.Errorf("EVT-130", "beneficiary.approved rejection_reason is %v, want empty", d["rejection_reason"])
				}
				u := one(t, "EVT-062", v1Events(t, in.records(), subID, "fiat.beneficiary.updated", approved), "fiat.beneficiary.updated of the approved beneficiary")
				for _, k := range []string{"fiat_beneficiary_id", "subject_id", "subject_type", "status", "currency_code", "provider_code", "provider_configuration_id",
					"approval_status", "bank_registration_status", "bank_registration_reason", "bank_registered_at", "superseded_by_beneficiary_id",
					"display_name", "masked_account_identifier", "payment_rail", "change"} {
					if _, ok := u[k]; !ok {
						t.Errorf("EVT-132", "fiat.beneficiary.updated data lacks %s: %v", k, u)
					}
				}
				if u["superseded_by_beneficiary_id"] != "" {
					t.Errorf("EVT-133", "superseded_by_beneficiary_id is %v for the active payee, want the empty string", u["superseded_by_beneficiary_id"])
				}
				if u["change"] != "approval" {
					t.Errorf("EVT-134", "change is %v after a staff approval, want approval", u["change"])
				}
				rej := fresh.NewBeneficiaries(t, cust, fresh.GBPPayee("Rejected Payee"))
				rejID, _ := rej[0]["id"].(string)
				fresh.BeneficiaryDecision(t, rejID, "rejected", "details could not be verified")
				in.await(subID, 4)
				one(t, "EVT-061", v1Events(t, in.records(), subID, "beneficiary.rejected", rejID), "beneficiary.rejected of the rejected beneficiary")
				if providerB == "" || providerB == approved {
					return
				}
				// Two transitions of one PROVIDER_B row: approval, then bank
				// registration; each is its own event with its own X-Webhook-Id.
				fresh.BeneficiaryDecision(t, providerB, "approved", "")
				fresh.BankRegistration(t, providerB, "Pending")
				in.await(subID, 8)
				seen := map[string]bool{}
				changes := map[any]bool{}
				labelled := true
				for _, r := range forSub(in.records(), subID) {
					if r.EventType != "fiat.beneficiary.updated" {
						continue
					}
					env := envelopeOf(t, "EVT-135", r)
					if env["resourceId"] != providerB {
						continue
					}
					id := r.Header.Get("X-Webhook-Id")
					if seen[id] || r.Duplicate {
						t.Errorf("EVT-136", "two transitions of beneficiary %s share X-Webhook-Id %q", providerB, id)
					}
					seen[id] = true
					d, _ := env["data"].(map[string]any)
					if c := d["change"]; c != "approval" && c != "registration" && c != "superseded" {
						t.Errorf("EVT-134", "fiat.beneficiary.updated of %s: change is %v, want one of approval, registration, superseded", providerB, c)
						labelled = false
					}
					changes[d["change"]] = true
				}
				// Two transitions, two events; told apart by their change
				// when it is a documented one (EVT-134).
				if len(seen) != 2 {
					t.Errorf("EVT-135", "fiat.beneficiary.updated of %s after an approval and a bank registration: %d events, want one per transition (2)", providerB, len(seen))
				} else if labelled && (!changes["approval"] || !changes["registration"]) {
					t.Errorf("EVT-135", "fiat.beneficiary.updated of %s for the approval and the registration transitions: got changes %v, want both", providerB, changes)
				}
			},
		},
	}
}
