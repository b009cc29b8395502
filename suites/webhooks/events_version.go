package webhooks

// The webhook envelope's api_version is a constant, not a negotiation
// mechanism (document 2, Versioning 4; VER-008).

import (
	"net/http"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/fresh"
)

// eventsVersionChecks are the checks of events_version.go.
func eventsVersionChecks() []check.Check {
	return []check.Check{
		{
			ID:     "webhooks/api-version-not-negotiated",
			Title:  "a customer created by a request asking for another API version (Api-Version, X-Api-Version, Accept-Version headers) still emits customer.created with api_version 2026-05-legacy",
			Rules:  []string{"VER-008", "WHM-003"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant", "webhook_url"},
			Run: func(t *check.T) {
				in, subID, stop := listen(t, "tenant", "customer.created")
				defer stop()
				r := t.Do(t.Client("tenant"), client.Request{Method: http.MethodPost, Path: api.P + "/customers", IdempotencyKey: t.NewKey(),
					JSON:   map[string]any{"email": fresh.Email(), "jurisdiction": "GB"},
					Header: http.Header{"Api-Version": {"2027-01-01"}, "X-Api-Version": {"2027-01-01"}, "Accept-Version": {"2"}}})
				d := fresh.Setup(t, "CUST-022", r, "create a customer asking for another API version")
				if inner, ok := d["customer"].(map[string]any); ok {
					d = inner
				}
				id, _ := d["id"].(string)
				in.await(subID, 1)
				envs := in.envs(subID, "customer.created", id)
				if len(envs) != 1 {
					t.Fatalf("VER-008", "customer.created of the customer: received %d deliveries, want 1", len(envs))
				}
				if v := envs[0]["api_version"]; v != "2026-05-legacy" {
					t.ErrorAt(r, "VER-008", "the customer.created envelope says api_version %v after a request asking for 2027-01-01; it is the constant 2026-05-legacy", v)
				}
			},
		},
	}
}
