package webhooks

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/shape"
	"github.com/touchstone-harness/touchstone/internal/webhooks/verify"
)

// Retries and dead-lettering per endpoint behaviour, under the virtual clock
// (document 2, Events: Retries; Delivery attempts).

func retriesChecks() []check.Check {
	return []check.Check{
		{
			ID:    "webhooks/retry-schedule-503",
			Title: "An endpoint answering 503 gets maxAttempts (5) attempts at +30 s, 1 m, 2 m, 4 m, then DeadLettered; same X-Webhook-Id, new attempt id and signature each time",
			Rules: []string{"EVT-029", "EVT-032", "EVT-034", "EVT-010", "EVT-013", "EVT-014", "EVT-038",
				"WHM-053", "WHM-054", "WHM-057", "WHM-058", "WHM-061", "WHM-065", "WHM-067", "WHM-068", "WHM-070", "WHM-071", "WHM-073", "WHM-003", "WHM-009"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.subject", "customers.parent", "webhook_url"},
			Run: func(t *check.T) {
				in := startInbox(t)
				defer in.close()
				in.script(http.StatusServiceUnavailable)
				s := in.subscribe("WHM-003", "subject", nil, "customer.created")
				subID := s["subscriptionId"].(string)
				defer disable(t, "subject", subID)
				in.emit("customer.created", t.Customer("parent"))
				if recs := forSub(in.records(), subID); len(recs) == 1 {
					// A first attempt the receiver refuses is dead-lettered
					// (a 4xx), not answered 503: no schedule follows.
					verified(t, recs[0], "attempt 1")
				}
				for i, d := range []time.Duration{30 * time.Second, time.Minute, 2 * time.Minute, 4 * time.Minute} {
					// Just before the scheduled instant nothing more arrives.
					in.advance(d - time.Second)
					if n := len(forSub(in.records(), subID)); n != i+1 {
						t.Fatalf("EVT-032", "%d attempts before the retry due %s after attempt %d, want %d", n, d, i+1, i+1)
					}
					in.advance(time.Second)
					if n := len(forSub(in.records(), subID)); n == 1 && i == 0 {
						// No retry at all: was the 503 taken as final?
						if rows := attemptRows(t, "WHM-009", "subject", subID, ""); len(rows) == 1 && rows[0]["status"] == "DeadLettered" {
							t.Fatalf("EVT-029", "the endpoint's 503 dead-lettered the delivery on the first attempt, want it retried")
						}
					}
					if n := len(forSub(in.records(), subID)); n != i+2 {
						t.Fatalf("EVT-032", "%d attempts %s after attempt %d, want %d (retry schedule 30 s, 1 m, 2 m, 4 m)", n, d, i+1, i+2)
					}
				}
				in.advance(16 * time.Minute)
				recs := forSub(in.records(), subID)
				if len(recs) != 5 {
					t.Fatalf("EVT-034", "%d attempts with maxAttempts 5 (default), want exactly 5", len(recs))
				}
				seenAttempt := map[string]bool{}
				var lastTS string
				for i, rec := range recs {
					verified(t, rec, "attempt")
					if rec.EventID != recs[0].EventID {
						t.Errorf("EVT-010", "attempt %d X-Webhook-Id %q differs from the first %q", i+1, rec.EventID, recs[0].EventID)
					}
					if seenAttempt[rec.AttemptID] {
						// The rows' deliveryAttemptId filter is judged with
						// these ids: the check stops here.
						t.Fatalf("EVT-013", "attempt %d repeats X-Webhook-Delivery-Attempt-Id %s", i+1, rec.AttemptID)
					}
					seenAttempt[rec.AttemptID] = true
					ts := rec.Header.Get("X-Webhook-Timestamp")
					if ts == lastTS {
						t.Errorf("EVT-014", "attempt %d is not re-signed: X-Webhook-Timestamp %s repeats", i+1, ts)
					}
					lastTS = ts
					if string(rec.Body) != string(recs[0].Body) {
						// The attempt rows' payloadHash follows the bytes
						// sent: the check stops at the changed body.
						t.Fatalf("EVT-038", "attempt %d body differs from the first", i+1)
					}
				}
				rows := attemptRows(t, "WHM-009", "subject", subID, "")
				if len(rows) != 5 {
					t.Fatalf("WHM-067", "%d attempt rows, want 5", len(rows))
				}
				// The order first: attempts 1 to 5 in that order are listed
				// oldest first (WHM-058), and each row's judgement below
				// reads the list newest first.
				var order []string
				for _, row := range rows {
					n, _ := row["attemptNumber"].(json.Number)
					order = append(order, n.String())
				}
				if strings.Join(order, ",") == "1,2,3,4,5" {
					t.Fatalf("WHM-058", "attempt rows are listed as attempts 1,2,3,4,5: oldest first, want newest first")
				}
				for i, row := range rows {
					wantN := 5 - i // newest first
					if n, _ := row["attemptNumber"].(json.Number); n.String() != strconv.Itoa(wantN) {
						t.Errorf("WHM-058", "row %d attemptNumber %v, want %d (newest first)", i, row["attemptNumber"], wantN)
					}
					wantStatus := "Pending"
					if i == 0 {
						wantStatus = "DeadLettered"
					}
					if row["status"] != wantStatus {
						t.Errorf("WHM-068", "attempt %d status %v, want %s", wantN, row["status"], wantStatus)
					}
					if (row["nextRetryAt"] != nil) != (wantStatus == "Pending") {
						t.Errorf("WHM-071", "attempt %d (%s) nextRetryAt %v", wantN, wantStatus, row["nextRetryAt"])
					}
					if fr, _ := row["failureReason"].(string); !strings.HasSuffix(fr, "Status 503.") {
						t.Errorf("WHM-070", "attempt %d failureReason %q does not end with \"Status 503.\"", wantN, fr)
					}
					if row["deliveryId"] != rows[4]["deliveryId"] {
						// The deliveryId filter below is sent with the first
						// attempt's id: a delivery split across ids stops here.
						t.Fatalf("WHM-061", "attempt %d deliveryId %v differs from the first attempt's %v", wantN, row["deliveryId"], rows[4]["deliveryId"])
					}
					if row["payloadHash"] != rows[4]["payloadHash"] {
						t.Errorf("WHM-065", "attempt %d payloadHash differs from the first attempt's", wantN)
					}
				}
				// recordedAt is the sort key (WHM-073; WHM-059 reads it so): each attempt is
				// recorded when made (30 s and more apart), so the newest-first
				// list has strictly decreasing recordedAt.
				for i := 0; i+1 < len(rows); i++ {
					a, errA := time.Parse(time.RFC3339Nano, fmt.Sprint(rows[i]["recordedAt"]))
					b, errB := time.Parse(time.RFC3339Nano, fmt.Sprint(rows[i+1]["recordedAt"]))
					if errA != nil || errB != nil {
						t.Fatalf("WHM-073", "rows %d and %d: recordedAt %v and %v, want ISO 8601 timestamps", i, i+1, rows[i]["recordedAt"], rows[i+1]["recordedAt"])
					}
					if !a.After(b) {
						t.Errorf("WHM-073", "row %d (attempt %d) recordedAt %s is not after row %d's %s: the list is not ordered by recordedAt, newest first (attempts made %s apart)", i, 5-i, a.Format(time.RFC3339Nano), i+1, b.Format(time.RFC3339Nano), "30 s or more")
						break
					}
				}
				dl := attemptRows(t, "WHM-054", "subject", subID, "status=deadlettered")
				if len(dl) != 1 {
					t.Errorf("WHM-054", "status=deadlettered lists %d rows, want 1", len(dl))
				}
				byID := attemptRows(t, "WHM-057", "subject", subID, "deliveryAttemptId="+recs[2].AttemptID)
				if len(byID) != 1 || byID[0]["deliveryAttemptId"] != recs[2].AttemptID {
					t.Errorf("WHM-057", "deliveryAttemptId filter lists %d rows, want the one attempt", len(byID))
				}
				if rows := attemptRows(t, "WHM-057", "subject", subID, "eventType=CUSTOMER.CREATED"); len(rows) != 0 {
					t.Errorf("WHM-057", "eventType filter is exact, but CUSTOMER.CREATED lists %d rows", len(rows))
				}
				// Each of the other filters the sentence names: the event's
				// (and its delivery's) own id lists its five attempts, an id
				// of nothing lists none; eventType spelled exactly lists them.
				for _, f := range []struct{ name, own string }{
					{"outboundWebhookEventId", recs[0].EventID},
					{"deliveryId", fmt.Sprint(rows[4]["deliveryId"])},
					{"eventType", "customer.created"},
				} {
					if got := attemptRows(t, "WHM-057", "subject", subID, f.name+"="+url.QueryEscape(f.own)); len(got) != 5 {
						t.Errorf("WHM-057", "%s=%s lists %d rows, want the event's 5 attempts", f.name, f.own, len(got))
					}
					if f.name == "eventType" {
						continue
					}
					if got := attemptRows(t, "WHM-057", "subject", subID, f.name+"="+uuid.NewString()); len(got) != 0 {
						t.Errorf("WHM-057", "%s=<an id of nothing> lists %d rows, want none (the filter is applied)", f.name, len(got))
					}
				}
				if rows := attemptRows(t, "WHM-053", "subject", subID, "limit=2"); len(rows) != 2 {
					t.Errorf("WHM-053", "limit=2 lists %d rows", len(rows))
				}
			},
		},
		{
			ID:     "webhooks/gone-dead-letters",
			Title:  "An endpoint answering 410 gets one attempt, dead-lettered at once, never retried",
			Rules:  []string{"EVT-035", "WHM-068", "WHM-069", "WHM-071", "WHM-003", "WHM-009"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.subject", "customers.parent", "webhook_url"},
			Run: func(t *check.T) {
				in := startInbox(t)
				defer in.close()
				in.script(http.StatusGone)
				s := in.subscribe("WHM-003", "subject", nil, "customer.created")
				subID := s["subscriptionId"].(string)
				defer disable(t, "subject", subID)
				in.emit("customer.created", t.Customer("parent"))
				in.advance(30 * time.Second)
				in.advance(30 * time.Minute)
				if n := len(forSub(in.records(), subID)); n != 1 {
					t.Fatalf("EVT-035", "an endpoint answering 410 received %d attempts, want 1", n)
				}
				rows := attemptRows(t, "WHM-009", "subject", subID, "")
				if len(rows) != 1 {
					t.Fatalf("EVT-035", "attempt rows after a 410: %v, want one DeadLettered (a 410 is never retried)", rows)
				}
				switch got := rows[0]["status"]; got {
				case "DeadLettered":
				case "Delivered", "Pending":
					t.Fatalf("EVT-035", "the attempt row after a 410 is %v, want DeadLettered (a 410 is never retried)", got)
				default:
					// Failed and Delivering are reserved, never written.
					t.Fatalf("WHM-068", "the attempt row after a 410 has status %v, none of the states written (Delivered, Pending, DeadLettered); want DeadLettered", got)
				}
				if code, _ := rows[0]["responseStatusCode"].(json.Number); code.String() != "410" {
					t.Errorf("WHM-069", "responseStatusCode %v, want 410", rows[0]["responseStatusCode"])
				}
				if rows[0]["nextRetryAt"] != nil {
					t.Errorf("WHM-071", "nextRetryAt %v on a dead-lettered attempt", rows[0]["nextRetryAt"])
				}
			},
		},
		{
			ID:     "webhooks/rotation-switches-queued-retries",
			Title:  "After rotation a queued retry of an older event is signed with the new secret only",
			Rules:  []string{"WHM-050", "WHM-003", "WHM-008", "WHM-049", "EVT-032"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.subject", "customers.parent", "webhook_url"},
			Run: func(t *check.T) {
				in := startInbox(t)
				defer in.close()
				in.script(http.StatusServiceUnavailable, http.StatusOK)
				s := in.subscribe("WHM-003", "subject", nil, "customer.created")
				subID := s["subscriptionId"].(string)
				defer disable(t, "subject", subID)
				in.emit("customer.created", t.Customer("parent"))
				r := t.Do(t.Client("subject"), client.Request{Method: http.MethodPost, Path: sub(subID) + "/secret-rotations",
					JSON: map[string]any{"reason": "touchstone: queued retry"}, IdempotencyKey: t.NewKey()})
				fresh.HoldSecret(t, r)
				if r.Status != http.StatusOK && r.Status != http.StatusCreated {
					t.FatalAt(r, "WHM-008", "rotation: status %d", r.Status)
				}
				in.setSecret(subID, shape.String(t, "WHM-049", shape.Object(t, "WHM-049", r), "secret"))
				in.advance(30 * time.Second)
				recs := forSub(in.records(), subID)
				if len(recs) != 2 {
					t.Fatalf("EVT-032", "%d attempts 30 s after a 503, want 2", len(recs))
				}
				if !recs[1].SignatureOK() {
					// A queued retry after the rotation is WHM-050's own
					// case (EVT-023, the current secret at send time, is
					// judged by webhooks/endpoints-sign-with-their-own-secret).
					old, _ := s["secret"].(string)
					if old != "" && verify.Delivery(recs[1].Header, recs[1].Body, old, verify.Options{Tolerance: 100000 * time.Hour}).SignatureOK() {
						t.Fatalf("WHM-050", "the retry sent after the rotation is signed with the secret before it, not the new one")
					}
					t.Fatalf("WHM-050", "the retry after rotation does not verify with the new secret: %v", recs[1].Reasons)
				}
			},
		},
	}
}
