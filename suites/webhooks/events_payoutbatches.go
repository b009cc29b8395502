package webhooks

import (
	"net/http"
	"strings"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// Payout batches fire no webhook (document 1, Endpoints / Payout batches:
// "no webhook fires for any batch transition; poll the by-id read").

func eventsPayoutbatchesChecks() []check.Check {
	return []check.Check{
		{
			ID:     "webhooks/no-payout-batch-events",
			Title:  "no webhook fires for any payout batch transition: a tenant-wide endpoint for every event type receives nothing about batches created, submitted, approved, rejected and executed",
			Rules:  []string{"PB-047", "WHM-003"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.tenant", "customers.active_personal", "beneficiaries.gbp", "webhook_url"},
			Run: func(t *check.T) {
				in, id, stop := listen(t, "tenant", documentedEventTypes...)
				defer stop()
				body := map[string]any{"currency": "GBP", "items": []any{fresh.BatchItem(t.Beneficiary("gbp"), 100, "Rent")}}
				paid, _ := fresh.Batch(t, "PB-041", body)["id"].(string)
				refused, _ := fresh.Batch(t, "PB-041", body)["id"].(string)
				if paid == "" || refused == "" {
					t.Fatalf("PB-041", "a created batch has no id")
				}
				fresh.Approved(t, paid)
				if err := t.Control().Call(t.Context(), http.MethodPost, "/payout-batches/"+paid+"/execute", map[string]any{"outcomes": map[string]any{}}, nil); err != nil {
					t.NoVerdict(err)
				}
				if err := fresh.BatchAction(t, refused, "submit", "ops-alice"); err != nil {
					t.NoVerdict(err)
				}
				if err := fresh.BatchAction(t, refused, "reject", "ops-bob"); err != nil {
					t.NoVerdict(err)
				}
				for _, rec := range forSub(in.records(), id) {
					b := string(rec.Body)
					if strings.Contains(b, paid) || strings.Contains(b, refused) || strings.Contains(rec.EventType, "batch") {
						t.Errorf("PB-047", "a %s delivery (X-Webhook-Id %s) is about a payout batch transition: %s", rec.EventType, rec.EventID, shape.Clip(rec.Body))
					}
				}
			},
		},
	}
}
