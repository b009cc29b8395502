package webhooks

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/touchstone-harness/touchstone/internal/check"
)

// Endpoint answers and their outcome, and support replays (document 2,
// Events: Retries; Delivery attempts: isReplay).

func statusesChecks() []check.Check {
	return []check.Check{
		{
			ID:     "webhooks/retryable-and-final-statuses",
			Title:  "408, 425, 429 and 5xx are retried 30 s later; 400, 401, 403, 404 and 422 dead-letter on the first attempt; 201, 202 and 204 (any 2xx) are Delivered with no further attempt",
			Rules:  []string{"EVT-026", "EVT-027", "EVT-028", "EVT-029", "EVT-035", "EVT-025", "WHM-003", "WHM-009", "WHM-068"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.subject", "customers.parent", "webhook_url"},
			Run: func(t *check.T) {
				in := startInbox(t)
				defer in.close()
				rules := map[int]string{408: "EVT-026", 425: "EVT-027", 429: "EVT-028", 500: "EVT-029", 502: "EVT-029", 504: "EVT-029",
					400: "EVT-035", 401: "EVT-035", 403: "EVT-035", 404: "EVT-035", 422: "EVT-035", 201: "EVT-025", 202: "EVT-025", 204: "EVT-025"}
				for _, status := range []int{408, 425, 429, 500, 502, 504, 400, 401, 403, 404, 422, 201, 202, 204} {
					before := len(in.records())
					s := in.subscribe("WHM-003", "subject", nil, "customer.created")
					id := s["subscriptionId"].(string)
					in.script(append(make([]int, before), status, http.StatusOK)...)
					in.emit("customer.created", t.Customer("parent"))
					in.advance(30 * time.Second)
					in.advance(time.Minute)
					disable(t, "subject", id)
					recs := forSub(in.records(), id)
					retryable := status == 408 || status == 425 || status == 429 || status >= 500
					want := 1
					if retryable {
						want = 2
					}
					if len(recs) != want {
						t.Errorf(rules[status], "an endpoint answering %d then 200 received %d attempts, want %d", status, len(recs), want)
						continue
					}
					rows := attemptRows(t, "WHM-009", "subject", id, "")
					if len(rows) > 0 {
						wantStatus := "DeadLettered"
						if retryable || status/100 == 2 {
							wantStatus = "Delivered"
						}
						switch got := rows[0]["status"]; got {
						case wantStatus:
						case "Delivered", "Pending", "DeadLettered":
							// Another written state: the outcome decided.
							t.Errorf(rules[status], "after %d the last attempt is %v, want %s", status, got, wantStatus)
						default:
							t.Errorf("WHM-068", "after %d the last attempt's status is %v, none of the states written (Delivered, Pending, DeadLettered); want %s", status, got, wantStatus)
						}
					}
				}
			},
		},
		{
			ID:     "webhooks/timeout-retried",
			Title:  "An endpoint that answers only after the 20-second deadline is retried (the attempt is a timeout, not a delivery)",
			Rules:  []string{"EVT-030", "WHM-003", "WHM-009"},
			Labels: []string{check.Mutating, check.NeedsControl, check.Slow},
			Needs:  []string{"keys.subject", "customers.parent", "webhook_url"},
			Run: func(t *check.T) {
				in := startInbox(t)
				defer in.close()
				in.script(stall, http.StatusOK)
				s := in.subscribe("WHM-003", "subject", nil, "customer.created")
				id := s["subscriptionId"].(string)
				defer disable(t, "subject", id)
				started := time.Now()
				in.emit("customer.created", t.Customer("parent"))
				if waited := time.Since(started); waited > stallFor {
					t.Errorf("EVT-030", "the sender waited %s for an answer, beyond the 20-second deadline", waited.Round(time.Second))
				}
				rows := attemptRows(t, "WHM-009", "subject", id, "")
				if len(rows) != 1 || rows[0]["status"] != "Pending" {
					t.Fatalf("EVT-030", "after a stall past 20 s: %v, want one Pending attempt", rows)
				}
				in.advance(30 * time.Second)
				rows = attemptRows(t, "EVT-030", "subject", id, "")
				if len(rows) != 2 || rows[0]["status"] != "Delivered" {
					t.Errorf("EVT-030", "30 s after the timeout: %d rows, newest %v; want a second attempt, Delivered", len(rows), rows[0]["status"])
				}
			},
		},
		{
			ID:     "webhooks/support-replay",
			Title:  "A support replay of a dead-lettered delivery is one more attempt continuing the count, with isReplay and the replay fields set",
			Rules:  []string{"EVT-037", "WHM-072", "WHM-067", "WHM-003", "EVT-010", "EVT-035", "WHM-009", "WHM-068"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.subject", "customers.parent", "webhook_url"},
			Run: func(t *check.T) {
				in := startInbox(t)
				defer in.close()
				in.script(http.StatusGone, http.StatusOK)
				s := in.subscribe("WHM-003", "subject", nil, "customer.created")
				id := s["subscriptionId"].(string)
				defer disable(t, "subject", id)
				in.emit("customer.created", t.Customer("parent"))
				rows := attemptRows(t, "WHM-009", "subject", id, "")
				if len(rows) != 1 {
					t.Fatalf("EVT-035", "after a 410: %v, want one DeadLettered attempt", rows)
				}
				switch got := rows[0]["status"]; got {
				case "DeadLettered":
				case "Delivered", "Pending":
					t.Fatalf("EVT-035", "after a 410 the attempt is %v, want DeadLettered", got)
				default:
					t.Fatalf("WHM-068", "after a 410 the attempt's status is %v, none of the states written (Delivered, Pending, DeadLettered); want DeadLettered", got)
				}
				if rows[0]["isReplay"] != false {
					t.Errorf("WHM-072", "a first attempt has isReplay %v, want false", rows[0]["isReplay"])
				}
				in.advance(time.Hour)
				if n := len(forSub(in.records(), id)); n != 1 {
					t.Fatalf("EVT-037", "a dead-lettered event was re-sent without a replay (%d attempts)", n)
				}
				// Not re-sent by any API: a PATCH of its endpoint (the same
				// url and types, enabled) sends nothing either.
				if p := patch(t, "subject", id, map[string]any{"url": s["url"], "eventTypes": []string{"customer.created"}, "enabled": true}); p.Status != http.StatusOK {
					t.NoVerdict(fmt.Errorf("PATCH of the endpoint answered %d", p.Status))
				}
				in.advance(time.Hour)
				if n := len(forSub(in.records(), id)); n != 1 {
					t.Fatalf("EVT-037", "a dead-lettered event was re-sent after a PATCH of its endpoint, without a replay (%d attempts)", n)
				}
				if err := t.Control().Call(t.Context(), http.MethodPost, "/webhooks/replay", map[string]any{"delivery_id": rows[0]["deliveryId"], "reason": "touchstone replay"}, nil); err != nil {
					t.NoVerdict(err)
				}
				recs := forSub(in.records(), id)
				if len(recs) != 2 {
					t.Fatalf("EVT-037", "the replay made %d attempts in all, want 2", len(recs))
				}
				verified(t, recs[1], "replay")
				if recs[1].EventID != recs[0].EventID {
					t.Errorf("EVT-010", "the replay's X-Webhook-Id %s differs from the original %s", recs[1].EventID, recs[0].EventID)
				}
				rows = attemptRows(t, "WHM-072", "subject", id, "")
				if len(rows) != 2 {
					t.Fatalf("WHM-072", "%d attempt rows after a replay, want 2", len(rows))
				}
				r := rows[0]
				if n, _ := r["attemptNumber"].(json.Number); n.String() != strconv.Itoa(2) {
					t.Errorf("WHM-067", "the replay's attemptNumber is %v, want 2 (replays continue the count)", r["attemptNumber"])
				}
				if r["isReplay"] != true {
					t.Errorf("WHM-072", "the replay's isReplay is %v, want true", r["isReplay"])
				}
				for _, k := range []string{"replayAttemptId", "replayReason", "replayCorrelationId"} {
					if v, _ := r[k].(string); v == "" {
						t.Errorf("WHM-072", "the replay's %s is %v, want it set", k, r[k])
					}
				}
			},
		},
	}
}
