package fresh

import (
	"net/http"
	"strings"

	"github.com/google/uuid"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// Subscriptions is V2/webhook-subscriptions.
const Subscriptions = api.V2 + "/webhook-subscriptions"

// WebhookURL returns a unique URL under the profile's webhook_url (a public
// https destination the target accepts), so that each registration has its
// own URL (one endpoint per URL per tenant, disabled ones included).
func WebhookURL(t *check.T) string {
	return strings.TrimRight(t.Profile().WebhookURL, "/") + "/ts-" + uuid.NewString()
}

// Register posts a registration body with the key and returns the response;
// a secret in a 201 is registered with the run's redactor at once.
func Register(t *check.T, key string, body map[string]any) *client.Response {
	r := t.Do(t.Client(key), client.Request{Method: http.MethodPost, Path: Subscriptions, JSON: body, IdempotencyKey: t.NewKey()})
	HoldSecret(t, r)
	return r
}

// HoldSecret registers a secret member of a response with the redactor, so
// that it is masked wherever the run records the exchange.
func HoldSecret(t *check.T, r *client.Response) {
	m, err := r.JSON()
	if err != nil {
		return
	}
	if s, ok := m["secret"].(string); ok && s != "" && t.Target().Redactor != nil {
		t.Target().Redactor.Add(s)
	}
}

// Subscription registers a fresh endpoint for the given event types with the
// key (201 expected under rule) and returns the response body.
func Subscription(t *check.T, rule, key string, eventTypes ...string) map[string]any {
	if len(eventTypes) == 0 {
		eventTypes = []string{"customer.created"}
	}
	r := Register(t, key, map[string]any{"url": WebhookURL(t), "eventTypes": eventTypes})
	shape.StatusAnswer(t, r, shape.Want{Rule: rule, Status: http.StatusCreated})
	return shape.Object(t, rule, r)
}

// DisableSubscription disables an endpoint (DELETE); failures are ignored:
// it is cleanup, so that the enabled-endpoint limit is not used up.
func DisableSubscription(t *check.T, key, id string) {
	if id == "" {
		return
	}
	t.Do(t.Client(key), client.Request{Method: http.MethodDelete, Path: Subscriptions + "/" + id, IdempotencyKey: t.NewKey()})
}
