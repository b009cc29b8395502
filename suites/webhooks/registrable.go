package webhooks

import (
	"net/http"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// Every documented event type is registrable, for every tenant (document
// 2, Events: "The event-type list is closed and read from GET
// V2/webhook-spec; it is the same for every tenant. Event types
// registrable: all those named above.").

// registrableChecks are the checks of registrable.go.
func registrableChecks() []check.Check {
	return []check.Check{
		{
			ID:     "webhooks/every-event-type-registrable",
			Title:  "A registration naming every event type document 2 names is taken (201), by a key of each of two tenants",
			Rules:  []string{"EVT-138"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.subject", "keys.other_tenant", "webhook_url"},
			Run: func(t *check.T) {
				for _, key := range []string{"subject", "other_tenant"} {
					r := fresh.Register(t, key, map[string]any{"url": fresh.WebhookURL(t), "eventTypes": documentedEventTypes})
					if m, err := r.JSON(); err == nil && r.Status == http.StatusCreated {
						id, _ := m["subscriptionId"].(string)
						defer fresh.DisableSubscription(t, key, id)
					}
					shape.StatusAnswer(t, r, shape.Want{Rule: "EVT-138", Status: http.StatusCreated})
				}
			},
		},
	}
}
