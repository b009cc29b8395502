package webhooks

import (
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/shape"
	"github.com/touchstone-harness/touchstone/internal/webhooks/verify"
)

// Real deliveries received through the loopback inbox and verified by both
// schemes (document 2, Events: Envelope, Headers; Delivery attempts).

// verified asserts a record verified under every header rule; each failed
// rule is recorded under its own id. A delivery that does not verify is
// refused by the receiver (a 4xx, which the sender dead-letters), so what
// the target records of it afterwards (attempt rows, retries) follows from
// that refusal, not from the rule it broke: the check stops there.
func verified(t *check.T, rec verify.Record, what string) {
	for i, f := range rec.Failures {
		if i == len(rec.Failures)-1 {
			t.Fatalf(f.Rule, "%s: %s (the receiver refused it; the check stops here)", what, f.Reason)
		}
		t.Errorf(f.Rule, "%s: %s", what, f.Reason)
	}
}

func envelopeOf(t *check.T, rule string, rec verify.Record) map[string]any {
	var m map[string]any
	dec := json.NewDecoder(strings.NewReader(string(rec.Body)))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		t.Fatalf(rule, "delivery body is not a JSON object: %v", err)
	}
	return m
}

func attemptRows(t *check.T, rule, key, subID, query string) []map[string]any {
	r := attempts(t, key, subID, query)
	shape.StatusAnswer(t, r, shape.Want{Rule: rule, Status: http.StatusOK})
	m := shape.Object(t, rule, r)
	var out []map[string]any
	for _, it := range shape.Array(t, rule, m, "items") {
		row, _ := it.(map[string]any)
		out = append(out, row)
	}
	return out
}

// deliveryChecks are the checks of delivery.go.
func deliveryChecks() []check.Check {
	return []check.Check{
		{
			ID:    "webhooks/delivery-signed-customer-created",
			Title: "A customer.created delivery carries both header families, both signatures over the raw body, the legacy envelope and a Delivered attempt row",
			Rules: []string{"EVT-001", "EVT-002", "EVT-003", "EVT-004", "EVT-005", "EVT-006", "EVT-009", "EVT-010", "EVT-011", "EVT-012",
				"EVT-014", "EVT-015", "EVT-016", "EVT-017", "EVT-018", "EVT-021", "EVT-024", "EVT-025",
				"WHM-061", "WHM-062", "WHM-063", "WHM-064", "WHM-065", "WHM-066", "WHM-067", "WHM-068", "WHM-069", "WHM-071", "WHM-073", "WHM-003", "WHM-009"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.subject", "customers.parent", "webhook_url"},
			Run: func(t *check.T) {
				in, subID, stop := listen(t, "subject", "customer.created")
				defer stop()
				parent := t.Customer("parent")
				resource := in.emit("customer.created", parent)
				recs := forSub(in.records(), subID)
				if len(recs) != 1 {
					t.Fatalf("EVT-025", "received %d deliveries of one customer.created to a 2xx endpoint, want 1", len(recs))
				}
				rec := recs[0]
				env := envelopeOf(t, "EVT-006", rec)
				if env["type"] != "customer.created" {
					// The receiver refuses a body whose type is not the
					// X-Webhook-Event it came with: what follows (that
					// refusal, the attempt row) comes from this.
					t.Fatalf("EVT-003", "envelope type is %v, want customer.created", env["type"])
				}
				verified(t, rec, "customer.created delivery")
				if rec.EventType != "customer.created" {
					t.Errorf("EVT-011", "X-Webhook-Event is %q, want customer.created", rec.EventType)
				}
				if rec.EndpointID != subID {
					t.Errorf("EVT-012", "X-Webhook-Delivery-Id is %q, want the subscription id %s", rec.EndpointID, subID)
				}
				if env["id"] != resource || env["id"] != parent {
					t.Errorf("EVT-002", "envelope id is %v, want the customer's id %s", env["id"], parent)
				}
				if env["api_version"] != "2026-05-legacy" {
					t.Errorf("EVT-005", "envelope api_version is %v, want 2026-05-legacy", env["api_version"])
				}
				if ts, _ := env["occurred_at"].(string); !timestampRE.MatchString(ts) || !(strings.HasSuffix(ts, "Z") || strings.HasSuffix(ts, "+00:00")) {
					t.Errorf("EVT-004", "envelope occurred_at %v is not an ISO 8601 UTC timestamp", env["occurred_at"])
				}
				if _, ok := env["data"].(map[string]any); !ok {
					t.Fatalf("EVT-006", "envelope data is %v, want an object", env["data"])
				}
				rows := attemptRows(t, "WHM-009", "subject", subID, "")
				if len(rows) != 1 {
					t.Fatalf("WHM-061", "delivery attempts: %d rows after one delivery, want 1", len(rows))
				}
				row := rows[0]
				want := map[string]struct {
					rule string
					v    any
				}{
					"outboundWebhookEventId": {"WHM-062", rec.EventID},
					"subscriptionId":         {"WHM-063", subID},
					"eventType":              {"WHM-064", "customer.created"},
					"resourceId":             {"WHM-064", parent},
					"payloadHash":            {"WHM-066", rec.Header.Get(verify.SvcPayloadSHA256)},
					"deliveryAttemptId":      {"WHM-067", rec.AttemptID},
					"status":                 {"WHM-068", "Delivered"},
					"nextRetryAt":            {"WHM-071", nil},
				}
				for _, k := range slices.Sorted(maps.Keys(want)) {
					w := want[k]
					if row[k] != w.v {
						t.Errorf(w.rule, "delivery attempt %s is %v, want %v", k, row[k], w.v)
					}
				}
				if sha256Hex(string(rec.Body)) != row["payloadHash"] {
					t.Errorf("WHM-065", "payloadHash %v is not the SHA-256 of the posted body", row["payloadHash"])
				}
				if n, ok := row["attemptNumber"].(json.Number); !ok || n.String() != "1" {
					t.Errorf("WHM-067", "attemptNumber is %v, want 1", row["attemptNumber"])
				}
				if code, ok := row["responseStatusCode"].(json.Number); !ok || code.String() != "200" {
					t.Errorf("WHM-069", "responseStatusCode is %v, want 200 (what the endpoint returned)", row["responseStatusCode"])
				}
				if id, _ := row["deliveryId"].(string); id == "" {
					t.Errorf("WHM-061", "deliveryId is %v, want an id", row["deliveryId"])
				}
				if ts, _ := row["recordedAt"].(string); !timestampRE.MatchString(ts) {
					t.Errorf("WHM-073", "recordedAt %v is not a timestamp", row["recordedAt"])
				}
			},
		},
		{
			ID:     "webhooks/endpoints-sign-with-their-own-secret",
			Title:  "Two endpoints of one owner receive one event: each delivery is signed with its own endpoint's secret, not the other's",
			Rules:  []string{"EVT-023", "EVT-039", "WHM-003"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.subject", "customers.parent", "webhook_url"},
			Run: func(t *check.T) {
				in := startInbox(t)
				defer in.close()
				a := in.subscribe("WHM-003", "subject", nil, "customer.created")
				b := in.subscribe("WHM-003", "subject", nil, "customer.created")
				ids := []string{shape.String(t, "WHM-003", a, "subscriptionId"), shape.String(t, "WHM-003", b, "subscriptionId")}
				secrets := []string{shape.String(t, "WHM-003", a, "secret"), shape.String(t, "WHM-003", b, "secret")}
				defer disable(t, "subject", ids[0])
				defer disable(t, "subject", ids[1])
				in.emit("customer.created", t.Customer("parent"))
				for i, id := range ids {
					recs := forSub(in.records(), id)
					if len(recs) != 1 {
						t.Fatalf("EVT-039", "the endpoint %s registered by the customer's key received %d deliveries of its customer.created, want 1", id, len(recs))
					}
					if recs[0].SignatureOK() {
						continue
					}
					// Not its own secret: the other endpoint's (the
					// subscription's current secret at send time, EVT-023)?
					other := secrets[1-i]
					if verify.Delivery(recs[0].Header, recs[0].Body, other, verify.Options{Tolerance: 100000 * time.Hour}).SignatureOK() {
						t.Fatalf("EVT-023", "the delivery to endpoint %s is signed with the other endpoint's secret, not its own", id)
					}
					t.Logf("the delivery to %s does not verify with either secret (%v): not judged here", id, recs[0].Reasons)
				}
			},
		},
	}
}

func disable(t *check.T, key, id string) {
	t.Do(t.Client(key), client.Request{Method: http.MethodDelete, Path: sub(id), IdempotencyKey: t.NewKey()})
}
