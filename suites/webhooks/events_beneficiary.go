package webhooks

import (
	"strings"

	"github.com/touchstone-harness/touchstone/internal/check"
)

// The three beneficiary events in the svc.webhooks.v1 shape (document 2,
// Events: Envelope; Payload fields).

func eventsBeneficiaryChecks() []check.Check {
	return []check.Check{
		{
			ID:     "webhooks/beneficiary-events-v1-shape",
			Title:  "beneficiary.approved, beneficiary.rejected and fiat.beneficiary.updated use the svc.webhooks.v1 shape, signed like every delivery",
			Rules:  []string{"EVT-007", "EVT-008", "EVT-131", "EVT-142", "WHM-003"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.subject", "customers.parent", "webhook_url"},
			Run: func(t *check.T) {
				types := []string{"beneficiary.approved", "beneficiary.rejected", "fiat.beneficiary.updated"}
				in, id, stop := listen(t, "subject", types...)
				defer stop()
				parent := t.Customer("parent")
				for _, typ := range types {
					resource := in.emit(typ, parent)
					var got int
					for _, rec := range forSub(in.records(), id) {
						if rec.EventType != typ {
							continue
						}
						got++
						verified(t, rec, typ)
						env := envelopeOf(t, "EVT-007", rec)
						var shapeWrong []string
						for _, k := range []string{"specVersion", "eventType", "tenantId", "resourceId", "occurredAt", "correlationId", "data"} {
							if _, ok := env[k]; !ok {
								shapeWrong = append(shapeWrong, "lacks "+k)
							}
						}
						for _, k := range []string{"id", "type", "occurred_at", "api_version"} {
							if _, ok := env[k]; ok {
								shapeWrong = append(shapeWrong, "carries the legacy envelope key "+k)
							}
						}
						if len(shapeWrong) > 0 {
							// Not the svc.webhooks.v1 envelope: its values
							// cannot be read as that shape's.
							t.Fatalf("EVT-007", "%s envelope %s", typ, strings.Join(shapeWrong, ", "))
						}
						if env["specVersion"] != "svc.webhooks.v1" {
							t.Errorf("EVT-008", "%s specVersion %v, want svc.webhooks.v1", typ, env["specVersion"])
						}
						if env["eventType"] != typ {
							t.Errorf("EVT-007", "%s eventType %v", typ, env["eventType"])
						}
						if env["resourceId"] != resource {
							t.Errorf("EVT-007", "%s resourceId %v, want the beneficiary id %s", typ, env["resourceId"], resource)
						}
						d, _ := env["data"].(map[string]any)
						if d == nil || d["subject_id"] != parent {
							t.Errorf("EVT-008", "%s data.subject_id %v, want the customer %s", typ, env["data"], parent)
						}
						if reason, present := d["rejection_reason"]; typ == "beneficiary.approved" && present && reason != nil && reason != "" {
							t.Errorf("EVT-131", "beneficiary.approved rejection_reason %v, want empty", reason)
						} else if r, _ := reason.(string); typ == "beneficiary.rejected" && r == "" {
							t.Errorf("EVT-131", "beneficiary.rejected rejection_reason %v, want a reason", reason)
						}
					}
					if got != 1 {
						t.Errorf("EVT-142", "%s about the parent: %d deliveries to the parent's endpoint, want 1", typ, got)
					}
				}
			},
		},
	}
}
