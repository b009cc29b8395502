package webhooks

import (
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// GET V2/webhook-spec (document 2, Endpoints; Events: the closed list).

// documentedEventTypes are the event types document 2 names (Events:
// Event types and emitting outcomes).
var documentedEventTypes = []string{
	"customer.created", "kyc.approved", "kyb.approved", "kyc.pending_review", "kyb.pending_review", "kyc.rejected", "kyb.rejected",
	"viban.ready", "virtual_account_request.completed", "customer.account_ready", "virtual_account_request.needs_correction",
	"customer.needs_information", "virtual_account_request.rejected", "deposit.received", "withdrawal.completed",
	"deposit.returned", "withdrawal.returned", "conversion.completed", "beneficiary.approved", "beneficiary.rejected",
	"fiat.beneficiary.updated",
}

// specChecks are the checks of spec.go.
func specChecks() []check.Check {
	return []check.Check{
		{
			ID:    "webhooks/spec-lists-event-types",
			Title: "GET webhook-spec lists every documented event type and describes the X-Webhook-* signing only",
			Rules: []string{"WHM-010", "EVT-138", "EVT-139"},
			Needs: []string{"keys.subject", "keys.other_tenant"},
			Run: func(t *check.T) {
				r := t.Do(t.Client("subject"), client.Request{Method: http.MethodGet, Path: api.V2 + "/webhook-spec"})
				shape.StatusAnswer(t, r, shape.Want{Rule: "WHM-010", Status: http.StatusOK})
				body := string(r.Body)
				for _, et := range documentedEventTypes {
					if !strings.Contains(body, `"`+et+`"`) {
						t.ErrorAt(r, "WHM-010", "webhook-spec does not list the event type %s", et)
					}
				}
				other := t.Do(t.Client("other_tenant"), client.Request{Method: http.MethodGet, Path: api.V2 + "/webhook-spec"})
				shape.StatusAnswer(t, other, shape.Want{Rule: "EVT-138", Status: http.StatusOK})
				if string(other.Body) != body {
					t.ErrorAt(other, "EVT-138", "webhook-spec differs between two tenants; the list is the same for every tenant")
				}
				var spec map[string]any
				if err := r.Decode(&spec); err == nil {
					for _, k := range slices.Sorted(maps.Keys(spec)) {
						v := spec[k]
						list, ok := v.([]any)
						if !ok || len(list) == 0 {
							continue
						}
						if _, isStr := list[0].(string); !isStr {
							continue
						}
						for _, x := range list {
							if s, _ := x.(string); !slices.Contains(documentedEventTypes, strings.ToLower(s)) {
								t.ErrorAt(r, "EVT-139", "webhook-spec lists %v, which document 2 does not name (the list is closed)", x)
							}
						}
					}
				}
				if !strings.Contains(body, "X-Webhook-Signature") {
					t.ErrorAt(r, "WHM-010", "webhook-spec does not describe X-Webhook-Signature")
				}
				if strings.Contains(strings.ToLower(body), "x-svc-") {
					t.ErrorAt(r, "WHM-010", "webhook-spec describes the x-svc-* family; it describes only the X-Webhook-* family")
				}
			},
		},
	}
}
