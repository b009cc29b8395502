package otherpaths

import (
	"errors"
	"net/http"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// Every mutating call on V2 needs an Idempotency-Key (document 2: "Every
// mutating call needs an Idempotency-Key", with document 1's rules): the
// POSTs are judged in v2writes.go; PATCH and DELETE are V2's webhook
// subscription writes.

// v2PatchDeleteKeysChecks are the checks of v2_patch_delete_keys.go.
func v2PatchDeleteKeysChecks() []check.Check {
	return []check.Check{
		{
			ID:     "otherpaths/v2-patch-delete-need-idempotency-key",
			Title:  "PATCH and DELETE V2/webhook-subscriptions/{id} without an Idempotency-Key are 400 idempotency_key_invalid problem+json",
			Rules:  []string{"IDEM-023"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.subject", "webhook_url"},
			Run: func(t *check.T) {
				s := fresh.Subscription(t, "IDEM-023", "subject", "customer.created")
				id, _ := s["subscriptionId"].(string)
				if id == "" {
					t.NoVerdict(errors.New("the registration answer carries no subscriptionId"))
				}
				defer fresh.DisableSubscription(t, "subject", id)
				c := t.Client("subject")
				path := fresh.Subscriptions + "/" + id
				r := t.Do(c, client.Request{Method: http.MethodPatch, Path: path, JSON: map[string]any{"url": s["url"], "eventTypes": []string{"customer.created"}, "enabled": true}})
				shape.ProblemAnswer(t, r, shape.Want{Rule: "IDEM-023", Status: http.StatusBadRequest, Code: "idempotency_key_invalid"})
				r = t.Do(c, client.Request{Method: http.MethodDelete, Path: path})
				shape.ProblemAnswer(t, r, shape.Want{Rule: "IDEM-023", Status: http.StatusBadRequest, Code: "idempotency_key_invalid"})
			},
		},
	}
}
