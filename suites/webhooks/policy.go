package webhooks

import (
	"net/http"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// The two tenant-state 403s of webhook management (document 2, Register:
// three 403 refusals unrelated to scope), set through the control API.

func setPolicy(t *check.T, policy map[string]any) {
	policy["customer_id"] = t.Customer("parent")
	if err := t.Control().Call(t.Context(), http.MethodPost, "/webhooks/policy", policy, nil); err != nil {
		t.NoVerdict(err)
	}
}

// policyChecks are the checks of policy.go.
func policyChecks() []check.Check {
	return []check.Check{
		{
			ID:     "webhooks/enforcement-disabled-refuses-writes",
			Title:  "While subject-binding enforcement is disabled, registration, PATCH, DELETE and rotation are refused with 403; existing endpoints keep delivering",
			Rules:  []string{"WHM-038", "WHM-040", "WHM-003"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.subject", "customers.parent", "webhook_url"},
			Run: func(t *check.T) {
				in := startInbox(t)
				defer in.close()
				s := in.subscribe("WHM-003", "subject", nil, "customer.created")
				id := s["subscriptionId"].(string)
				defer disable(t, "subject", id)
				setPolicy(t, map[string]any{"binding_enforcement": false})
				defer setPolicy(t, map[string]any{"binding_enforcement": true})
				nonScope403(t, "WHM-038", fresh.Register(t, "subject", map[string]any{"url": fresh.WebhookURL(t), "eventTypes": []string{"customer.created"}}))
				nonScope403(t, "WHM-038", patch(t, "subject", id, map[string]any{"url": s["url"], "eventTypes": []string{"customer.created"}, "enabled": true}))
				nonScope403(t, "WHM-038", t.Do(t.Client("subject"), client.Request{Method: http.MethodDelete, Path: sub(id), IdempotencyKey: t.NewKey()}))
				nonScope403(t, "WHM-038", t.Do(t.Client("subject"), client.Request{Method: http.MethodPost, Path: sub(id) + "/secret-rotations",
					JSON: map[string]any{"reason": "x"}, IdempotencyKey: t.NewKey()}))
				in.emit("customer.created", t.Customer("parent"))
				if n := len(forSub(in.records(), id)); n != 1 {
					t.Fatalf("WHM-038", "an existing endpoint received %d deliveries during the incident state, want 1", n)
				}
			},
		},
		{
			ID:     "webhooks/customer-scoped-only-refuses-tenant-key",
			Title:  "In a tenant that allows only customer-scoped endpoints a tenant-wide key's registration is refused with 403; a subject-bound key registers",
			Rules:  []string{"WHM-039", "WHM-040"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.subject", "keys.tenant", "customers.parent", "webhook_url"},
			Run: func(t *check.T) {
				setPolicy(t, map[string]any{"customer_scoped_only": true})
				defer setPolicy(t, map[string]any{"customer_scoped_only": false})
				nonScope403(t, "WHM-039", fresh.Register(t, "tenant", map[string]any{"url": fresh.WebhookURL(t), "eventTypes": []string{"customer.created"}}))
				r := fresh.Register(t, "subject", map[string]any{"url": fresh.WebhookURL(t), "eventTypes": []string{"customer.created"}})
				shape.StatusAnswer(t, r, shape.Want{Rule: "WHM-039", Status: http.StatusCreated})
				disable(t, "subject", shape.String(t, "WHM-039", shape.Object(t, "WHM-039", r), "subscriptionId"))
			},
		},
	}
}
