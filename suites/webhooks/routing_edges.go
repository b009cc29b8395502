package webhooks

import (
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// Events that cannot be attributed or resolved, destinations that stop
// being public, connection failures and the correlation id (document 2,
// Events: Routing, Headers, Retries; Register: public destination).

func (in *inbox) emitWith(typ, customerID string, extra map[string]any) {
	body := map[string]any{"type": typ, "customer_id": customerID}
	for k, v := range extra {
		body[k] = v
	}
	if err := in.t.Control().Call(in.t.Context(), http.MethodPost, "/webhooks/emit", body, nil); err != nil {
		in.t.NoVerdict(err)
	}
}

// routingEdgesChecks are the checks of routing_edges.go.
func routingEdgesChecks() []check.Check {
	return []check.Check{
		{
			ID:     "webhooks/routing-unattributable-and-unresolvable",
			Title:  "An unattributable event reaches tenant-wide endpoints only; an event resolving no customer_id/business_id/user_id is not delivered; neither writes a delivery-attempt row (an attributable event then does)",
			Rules:  []string{"EVT-042", "EVT-043", "EVT-044", "EVT-041", "WHM-003"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.subject", "keys.tenant", "customers.parent", "webhook_url"},
			Run: func(t *check.T) {
				in := startInbox(t)
				defer in.close()
				p := in.subscribe("WHM-003", "subject", nil, "customer.created")
				tw := in.subscribe("WHM-003", "tenant", nil, "customer.created")
				pID, tID := p["subscriptionId"].(string), tw["subscriptionId"].(string)
				defer disable(t, "subject", pID)
				defer disable(t, "tenant", tID)
				in.emitWith("customer.created", t.Customer("parent"), map[string]any{"attribution": "unknown"})
				if n := len(forSub(in.records(), pID)); n != 0 {
					t.Errorf("EVT-042", "a subject-bound endpoint received %d unattributable events", n)
				}
				if n := len(forSub(in.records(), tID)); n != 1 {
					t.Errorf("EVT-042", "the tenant-wide endpoint received %d of one unattributable event, want 1", n)
				}
				// "Neither case writes a delivery-attempt row": not even the
				// tenant-wide endpoint that received the unattributable one.
				if rows := attemptRows(t, "EVT-044", "subject", pID, ""); len(rows) != 0 {
					t.Errorf("EVT-044", "the subject-bound endpoint has %d attempt rows for an event it does not receive", len(rows))
				}
				if rows := attemptRows(t, "EVT-044", "tenant", tID, ""); len(rows) != 0 {
					t.Errorf("EVT-044", "the tenant-wide endpoint has %d attempt rows after one unattributable event, want none (neither routing case writes a delivery-attempt row)", len(rows))
				}
				in.emitWith("customer.created", t.Customer("parent"), map[string]any{"attribution": "none"})
				if n := len(forSub(in.records(), tID)); n != 1 {
					// What the endpoint receives and lists next counts from
					// this wrong delivery: the check stops here.
					t.Fatalf("EVT-043", "an event resolving no customer was delivered (%d deliveries to the tenant-wide endpoint in all, want 1)", n)
				}
				if rows := attemptRows(t, "EVT-044", "tenant", tID, ""); len(rows) != 0 {
					t.Errorf("EVT-044", "the tenant-wide endpoint has %d attempt rows after an unattributable and an unresolvable event, want none", len(rows))
				}
				// The same endpoint does list an attributable event's
				// attempt: the empty list above is the routing rule, not an
				// endpoint whose attempts are never listed.
				in.emit("customer.created", t.Customer("parent"))
				recs := forSub(in.records(), tID)
				if len(recs) != 2 {
					t.Fatalf("EVT-041", "the tenant-wide endpoint received %d deliveries after an attributable event, want 2 (the unattributable one and this)", len(recs))
				}
				rows := attemptRows(t, "EVT-044", "tenant", tID, "")
				if len(rows) != 1 || rows[0]["outboundWebhookEventId"] != recs[1].Header.Get("X-Webhook-Id") {
					t.Errorf("EVT-044", "after an attributable event the tenant-wide endpoint lists %d attempt rows %v, want exactly its one (outboundWebhookEventId %s)", len(rows), rows, recs[1].Header.Get("X-Webhook-Id"))
				}
			},
		},
		{
			ID:     "webhooks/destination-rechecked-at-delivery",
			Title:  "A destination whose name now resolves to a private address gets no delivery (silent failure)",
			Rules:  []string{"WHM-025", "WHM-024", "WHM-003", "WHM-012"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.subject", "customers.parent"},
			Run: func(t *check.T) {
				in := startInbox(t)
				defer in.close()
				host := "rebind-" + uuid.NewString()[:8] + ".touchstone.example"
				setHost := func(addr string) {
					if err := t.Control().Call(t.Context(), http.MethodPost, "/webhooks/hosts", map[string]any{"host": host, "address": addr}, nil); err != nil {
						t.NoVerdict(err)
					}
				}
				setHost("93.184.215.14")
				r := fresh.Register(t, "subject", map[string]any{"url": "https://" + host + "/hook", "eventTypes": []string{"customer.created"}})
				shape.StatusAnswer(t, r, shape.Want{Rule: "WHM-024", Status: http.StatusCreated})
				m := shape.Object(t, "WHM-024", r)
				id := shape.String(t, "WHM-012", m, "subscriptionId")
				defer disable(t, "subject", id)
				in.setSecret(id, shape.String(t, "WHM-003", m, "secret"))
				in.emit("customer.created", t.Customer("parent"))
				if n := len(forSub(in.records(), id)); n != 1 {
					t.Fatalf("WHM-025", "the public destination received %d deliveries, want 1", n)
				}
				setHost("10.9.8.7")
				in.emit("customer.created", t.Customer("parent"))
				in.advance(time.Hour)
				if n := len(forSub(in.records(), id)); n != 1 {
					t.Fatalf("WHM-025", "a destination now resolving to a private address received %d deliveries in all, want 1", n)
				}
			},
		},
		{
			ID:     "webhooks/connection-failure-retried",
			Title:  "A connection failure is retried; its attempt row has no response status or excerpt and the failure reason names no status",
			Rules:  []string{"EVT-031", "WHM-069", "WHM-070", "WHM-003", "WHM-009"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.subject", "customers.parent", "webhook_url"},
			Run: func(t *check.T) {
				in := startInbox(t)
				s := in.subscribe("WHM-003", "subject", 2, "customer.created")
				id := s["subscriptionId"].(string)
				defer disable(t, "subject", id)
				in.close() // nothing listens at the receiver any more
				in.emit("customer.created", t.Customer("parent"))
				rows := attemptRows(t, "WHM-009", "subject", id, "")
				if len(rows) != 1 || rows[0]["status"] != "Pending" {
					t.Fatalf("EVT-031", "after a connection failure: %v, want one Pending attempt", rows)
				}
				if rows[0]["responseStatusCode"] != nil || rows[0]["responseBodyExcerpt"] != nil {
					t.Errorf("WHM-069", "without a response: responseStatusCode %v, responseBodyExcerpt %v, want null", rows[0]["responseStatusCode"], rows[0]["responseBodyExcerpt"])
				}
				if fr, _ := rows[0]["failureReason"].(string); fr == "" || strings.Contains(fr, "Status ") {
					t.Errorf("WHM-070", "failureReason %q: want a reason that names no status", fr)
				}
				in.advance(30 * time.Second)
				rows = attemptRows(t, "EVT-031", "subject", id, "")
				if len(rows) != 2 || rows[0]["status"] != "DeadLettered" {
					t.Errorf("EVT-031", "30 s after a connection failure with maxAttempts 2: %d rows, newest %v; want a second attempt, DeadLettered", len(rows), rows[0]["status"])
				}
			},
		},
		{
			ID:     "webhooks/correlation-id-carried",
			Title:  "A delivery produced by a request that carried X-Correlation-Id carries it as x-correlation-id",
			Rules:  []string{"EVT-019", "EVT-047", "WHM-003"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant", "webhook_url"},
			Run: func(t *check.T) {
				in, id, stop := listen(t, "tenant", "customer.created")
				defer stop()
				corr := "ts-corr-" + uuid.NewString()
				r := t.Do(t.Client("tenant"), client.Request{Method: http.MethodPost, Path: api.P + "/customers", IdempotencyKey: t.NewKey(),
					Header: http.Header{"X-Correlation-Id": {corr}}, JSON: map[string]any{"email": fresh.Email(), "jurisdiction": "GB"}})
				cust := fresh.Success(t, "CUST-022", r)
				custID := shape.String(t, "CUST-022", cust, "id")
				recs := in.await(id, 1)
				found := false
				for _, rec := range recs {
					if env := envelopeOf(t, "EVT-006", rec); env["id"] == custID {
						found = true
						if got := rec.Header.Get("x-correlation-id"); got != corr {
							t.Errorf("EVT-019", "x-correlation-id is %q, want the request's %q", got, corr)
						}
					}
				}
				if !found {
					t.Fatalf("EVT-047", "no customer.created delivery for the new customer")
				}
			},
		},
	}
}
