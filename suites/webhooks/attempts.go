package webhooks

import (
	"net/http"
	"strings"

	"github.com/google/uuid"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// Delivery attempts (document 2, Endpoints: Delivery attempts (GET)).

func attempts(t *check.T, key, id, query string) *client.Response {
	p := sub(id) + "/delivery-attempts"
	if query != "" {
		p += "?" + query
	}
	return t.Do(t.Client(key), client.Request{Method: http.MethodGet, Path: p})
}

// emptyPage asserts a 200 v2 list with count 0 and returns limit.
func emptyPage(t *check.T, rule string, r *client.Response, what string) int {
	shape.StatusAnswer(t, r, shape.Want{Rule: rule, Status: http.StatusOK})
	m := shape.Object(t, rule, r)
	if n := shape.Int(t, rule, m, "count"); n != 0 {
		t.FatalAt(r, rule, "%s: count %d, want an empty page", what, n)
	}
	return shape.Int(t, rule, m, "limit")
}

// attemptsChecks are the checks of attempts.go.
func attemptsChecks() []check.Check {
	return []check.Check{
		{
			ID:     "webhooks/attempts-foreign-id-empty",
			Title:  "Delivery attempts of an unknown or another owner's subscription are an empty page (200), not 404",
			Rules:  []string{"WHM-009", "WHM-060", "WHM-074", "WHM-003"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.subject", "keys.child", "webhook_url"},
			Run: func(t *check.T) {
				// The owner's own list first: a list that is wrong there
				// (WHM-009) says nothing of another owner's or an unknown id.
				_, id, undo := subscribed(t, "subject")
				defer undo()
				emptyPage(t, "WHM-009", attempts(t, "subject", id, ""), "a subscription with no deliveries yet")
				// An unknown id: an empty page, not 404 (WHM-060).
				unknown := attempts(t, "subject", uuid.NewString(), "")
				shape.StatusAnswer(t, unknown, shape.Want{Rule: "WHM-060", Status: http.StatusOK})
				if n := shape.Int(t, "WHM-060", shape.Object(t, "WHM-060", unknown), "count"); n != 0 {
					t.ErrorAt(unknown, "WHM-060", "an unknown subscription id: count %d, want an empty page", n)
				}
				emptyPage(t, "WHM-060", attempts(t, "child", id, ""), "another subject's subscription")
				shape.FlatAnswer(t, t.Do(t.Client("child"), client.Request{Method: http.MethodGet, Path: sub(id)}), shape.Want{Rule: "WHM-074", Status: http.StatusNotFound})
			},
		},
		{
			ID:     "webhooks/attempts-limit-and-status",
			Title:  "Delivery attempts limit is clamped to 1-500 (default 100); status is case-insensitive; an unknown status is 400 invalid_webhook_delivery_status",
			Rules:  []string{"WHM-053", "WHM-054", "WHM-055", "WHM-056", "WHM-075", "ERR-123", "WHM-003"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.subject", "webhook_url"},
			Run: func(t *check.T) {
				_, id, undo := subscribed(t, "subject")
				defer undo()
				for _, c := range []struct {
					q    string
					want int
				}{{"", 100}, {"limit=0", 1}, {"limit=501", 500}, {"limit=7", 7}} {
					if got := emptyPage(t, "WHM-053", attempts(t, "subject", id, c.q), "?"+c.q); got != c.want {
						t.Errorf("WHM-053", "delivery attempts ?%s reports limit %d, want %d", c.q, got, c.want)
					}
				}
				for _, s := range []string{"delivered", "PENDING", "DeadLettered", "deadlettered"} {
					emptyPage(t, "WHM-054", attempts(t, "subject", id, "status="+s), "status="+s)
				}
				// The reserved statuses are known filter values with an
				// empty list (WHM-056's reading).
				for _, s := range []string{"Failed", "delivering"} {
					emptyPage(t, "WHM-056", attempts(t, "subject", id, "status="+s), "status="+s)
				}
				r := attempts(t, "subject", id, "status=Exploded")
				// One of the two documented shapes, whole (WHM-075): the
				// 400 problem+json of the status table with the code, or the
				// operation-code envelope with data.code; not the code
				// anywhere in some other body.
				w := shape.Want{Rule: "WHM-055", Status: http.StatusBadRequest, Code: "invalid_webhook_delivery_status", MediaRule: "WHM-075", ShapeRule: "WHM-075", What: "delivery attempts ?status=Exploded"}
				if strings.HasPrefix(strings.ToLower(r.Header.Get("Content-Type")), "application/problem+json") {
					shape.ProblemAnswer(t, r, w)
				} else {
					shape.EnvelopeAnswer(t, r, w)
				}
			},
		},
	}
}
