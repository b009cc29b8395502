package webhooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// Reading, replacing, disabling and re-enabling a subscription (document 2,
// Endpoints: Register, PATCH and DELETE).

func sub(id string) string { return fresh.Subscriptions + "/" + id }

func patch(t *check.T, key, id string, body map[string]any) *client.Response {
	return t.Do(t.Client(key), client.Request{Method: http.MethodPatch, Path: sub(id), JSON: body, IdempotencyKey: t.NewKey()})
}

// subscribed registers a fresh subscription for the key (WHM-003) and
// returns it with its id (WHM-012) and undo, which the caller defers to
// disable it.
func subscribed(t *check.T, key string) (m map[string]any, id string, undo func()) {
	m = fresh.Subscription(t, "WHM-003", key)
	id = shape.String(t, "WHM-012", m, "subscriptionId")
	return m, id, func() { fresh.DisableSubscription(t, key, id) }
}

// noSecret fails when m carries a secret member, under the rule of the
// answer read: the list's (WHM-004), the read's (WHM-005), or the
// secret-once rule for a write's answer (WHM-003). The general GET rule
// (WHM-014) is judged where a GET follows a rotation (rotation.go).
func noSecret(t *check.T, rule string, r *client.Response, m map[string]any, what string) {
	if _, ok := m["secret"]; ok {
		t.FatalAt(r, rule, "%s carries a secret member", what)
	}
}

// manageChecks are the checks of manage.go.
func manageChecks() []check.Check {
	return []check.Check{
		{
			ID:     "webhooks/read-without-secret",
			Title:  "GET of one subscription and the unpaged list carry no secret; secretSha256 matches the secret held",
			Rules:  []string{"WHM-004", "WHM-005", "WHM-013", "WHM-003"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.subject", "webhook_url"},
			Run: func(t *check.T) {
				m, id, undo := subscribed(t, "subject")
				defer undo()
				secret := shape.String(t, "WHM-003", m, "secret")
				r := t.Do(t.Client("subject"), client.Request{Method: http.MethodGet, Path: sub(id)})
				shape.StatusAnswer(t, r, shape.Want{Rule: "WHM-005", Status: http.StatusOK})
				one := shape.Object(t, "WHM-005", r)
				noSecret(t, "WHM-005", r, one, "GET webhook-subscriptions/{id}")
				if one["subscriptionId"] != id || one["url"] != m["url"] {
					t.ErrorAt(r, "WHM-005", "GET returns subscriptionId %v url %v, want %s %v", one["subscriptionId"], one["url"], id, m["url"])
				}
				if got := shape.String(t, "WHM-013", one, "secretSha256"); got != sha256Hex(secret) {
					t.ErrorAt(r, "WHM-013", "GET secretSha256 %s is not the SHA-256 of the secret returned at registration", got)
				}
				lr := t.Do(t.Client("subject"), client.Request{Method: http.MethodGet, Path: fresh.Subscriptions})
				shape.StatusAnswer(t, lr, shape.Want{Rule: "WHM-004", Status: http.StatusOK})
				found := false
				for _, it := range items(t, "WHM-004", lr) {
					noSecret(t, "WHM-004", lr, it, "a list item")
					found = found || it["subscriptionId"] == id
				}
				if !found {
					t.ErrorAt(lr, "WHM-004", "the list does not include the subscription just registered (%s)", id)
				}
			},
		},
		{
			ID:     "webhooks/patch-replaces-whole",
			Title:  "PATCH requires url, eventTypes and enabled, replaces the subscription, and maxAttempts null resets it to 5",
			Rules:  []string{"WHM-006", "WHM-041", "WHM-042", "WHM-048", "ERR-120", "WHM-003"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.subject", "webhook_url"},
			Run: func(t *check.T) {
				m, id, undo := subscribed(t, "subject")
				defer undo()
				other, _, undoOther := subscribed(t, "subject")
				defer undoOther()
				url := m["url"]
				for _, missing := range []string{"url", "eventTypes", "enabled"} {
					body := map[string]any{"url": url, "eventTypes": []string{"kyc.approved"}, "enabled": true}
					delete(body, missing)
					r := patch(t, "subject", id, body)
					shape.StatusAnswer(t, r, shape.Want{Rule: "WHM-041", Status: http.StatusBadRequest, What: fmt.Sprintf("PATCH without %s", missing)})
				}
				r := patch(t, "subject", id, map[string]any{"url": url, "eventTypes": []string{"kyc.approved", "kyb.approved"}, "enabled": true, "maxAttempts": 9})
				shape.StatusAnswer(t, r, shape.Want{Rule: "WHM-006", Status: http.StatusOK})
				answerNoSecret(t, r, "the PATCH answer")
				patchAnswerAgrees(t, "WHM-006", "WHM-006", r, []string{"kyc.approved", "kyb.approved"}, 9)
				got := readSub(t, "WHM-006", id)
				types := shape.Array(t, "WHM-006", got, "eventTypes")
				if len(types) != 2 || !containsAll(types, "kyc.approved", "kyb.approved") {
					t.Errorf("WHM-006", "after PATCH eventTypes is %v, want exactly [kyc.approved kyb.approved]", types)
				}
				if n := shape.Int(t, "WHM-006", got, "maxAttempts"); n != 9 {
					t.Errorf("WHM-006", "after PATCH maxAttempts 9 the subscription reports %d", n)
				}
				r = patch(t, "subject", id, map[string]any{"url": url, "eventTypes": []string{"kyc.approved"}, "enabled": true, "maxAttempts": nil})
				shape.StatusAnswer(t, r, shape.Want{Rule: "WHM-042", Status: http.StatusOK})
				patchAnswerAgrees(t, "WHM-006", "WHM-042", r, []string{"kyc.approved"}, 5)
				if v, ok := readSub(t, "WHM-042", id)["maxAttempts"]; ok && v != nil && shape.Int(t, "WHM-042", readSub(t, "WHM-042", id), "maxAttempts") != 5 {
					t.Errorf("WHM-042", "after PATCH maxAttempts null the subscription reports %v, want 5", v)
				}
				r = patch(t, "subject", id, map[string]any{"url": other["url"], "eventTypes": []string{"kyc.approved"}, "enabled": true})
				webhookRefusal(t, "WHM-048", r, http.StatusConflict, "webhook_subscription_url_already_registered")
			},
		},
		{
			ID:     "webhooks/delete-disables",
			Title:  "DELETE disables the subscription: it is still read (enabled false) and listed, and PATCH re-enables it",
			Rules:  []string{"WHM-007", "WHM-047", "WHM-046", "WHM-003"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.subject", "webhook_url"},
			Run: func(t *check.T) {
				m, id, undo := subscribed(t, "subject")
				defer undo()
				r := t.Do(t.Client("subject"), client.Request{Method: http.MethodDelete, Path: sub(id), IdempotencyKey: t.NewKey()})
				if r.Status != http.StatusOK && r.Status != http.StatusNoContent {
					t.FatalAt(r, "WHM-047", "DELETE: status %d, want 200 or 204", r.Status)
				}
				answerNoSecret(t, r, "the DELETE answer")
				got := readSub(t, "WHM-007", id)
				if got["enabled"] != false {
					t.Errorf("WHM-007", "after DELETE the subscription reports enabled %v, want false", got["enabled"])
				}
				if listed(t, "WHM-047", "subject", m["url"].(string)) == nil {
					t.Errorf("WHM-047", "after DELETE the subscription is no longer listed")
				}
				r = patch(t, "subject", id, map[string]any{"url": m["url"], "eventTypes": []string{"customer.created"}, "enabled": true})
				shape.StatusAnswer(t, r, shape.Want{Rule: "WHM-046", Status: http.StatusOK})
				if got := readSub(t, "WHM-046", id); got["enabled"] != true {
					t.Errorf("WHM-046", "PATCH enabled true: the subscription reports enabled %v", got["enabled"])
				}
			},
		},
		{
			ID:     "webhooks/enabled-limit",
			Title:  "At most 10 enabled endpoints per owning subject: the 11th registration and a re-enable past 10 get 409 webhook_subscription_limit_reached",
			Rules:  []string{"WHM-027", "WHM-028", "WHM-043", "ERR-121", "ERR-124"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.child", "webhook_url"},
			Run: func(t *check.T) {
				const key = "child"
				lr := t.Do(t.Client(key), client.Request{Method: http.MethodGet, Path: fresh.Subscriptions})
				shape.StatusAnswer(t, lr, shape.Want{Rule: "WHM-027", Status: http.StatusOK})
				enabled := 0
				for _, it := range items(t, "WHM-027", lr) {
					if it["enabled"] == true {
						enabled++
					}
				}
				if enabled > 10 {
					t.Fatalf("WHM-027", "the child key's subject already has %d enabled endpoints", enabled)
				}
				var created []string
				defer func() {
					for _, id := range created {
						fresh.DisableSubscription(t, key, id)
					}
				}()
				for ; enabled < 10; enabled++ {
					m := fresh.Subscription(t, "WHM-027", key)
					created = append(created, shape.String(t, "WHM-027", m, "subscriptionId"))
				}
				r := fresh.Register(t, key, map[string]any{"url": fresh.WebhookURL(t), "eventTypes": []string{"customer.created"}})
				if r.Status == http.StatusCreated {
					if id, ok := shape.Object(t, "WHM-027", r)["subscriptionId"].(string); ok {
						created = append(created, id)
					}
				}
				webhookRefusal(t, "WHM-027", r, http.StatusConflict, "webhook_subscription_limit_reached")
				// Disable one, register another in its place, then re-enable
				// the first: the 11th again.
				first := created[0]
				fresh.DisableSubscription(t, key, first)
				m := fresh.Subscription(t, "WHM-027", key)
				created = append(created, shape.String(t, "WHM-027", m, "subscriptionId"))
				url := readSubKey(t, "WHM-028", key, first)["url"]
				r = patch(t, key, first, map[string]any{"url": url, "eventTypes": []string{"customer.created"}, "enabled": true})
				// The limit is counted again on re-enable (WHM-028); the
				// refusal carries the code (WHM-043).
				shape.StatusAnswer(t, r, shape.Want{Rule: "WHM-028", Status: http.StatusConflict, What: "re-enabling an 11th endpoint by PATCH", Why: "the limit is counted again on re-enable"})
				webhookRefusal(t, "WHM-043", r, http.StatusConflict, "webhook_subscription_limit_reached")
			},
		},
	}
}

// patchAnswerAgrees judges the members a PATCH answer reports (its body is
// not documented; what it does report is the replaced subscription):
// eventTypes exactly the body's (typesRule), maxAttempts the value the
// subscription now has (attemptsRule).
func patchAnswerAgrees(t *check.T, typesRule, attemptsRule string, r *client.Response, types []string, attempts int) {
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(r.Body))
	dec.UseNumber()
	if dec.Decode(&m) != nil || m == nil {
		return
	}
	if v, ok := m["eventTypes"]; ok {
		got, _ := v.([]any)
		if len(got) != len(types) || !containsAll(got, types...) {
			t.Errorf(typesRule, "the PATCH answer reports eventTypes %v, want exactly %v (the whole subscription is replaced)", v, types)
		}
	}
	if v, ok := m["maxAttempts"]; ok && v != nil {
		if n, _ := v.(json.Number); n.String() != strconv.Itoa(attempts) {
			t.Errorf(attemptsRule, "the PATCH answer reports maxAttempts %v, want %d", v, attempts)
		}
	}
}

// answerNoSecret judges a write's answer other than registration and
// rotation: the secret is returned only when registered (WHM-003) or
// rotated. An empty or non-object answer carries none.
func answerNoSecret(t *check.T, r *client.Response, what string) {
	var m map[string]any
	if json.Unmarshal(r.Body, &m) == nil && m != nil {
		noSecret(t, "WHM-003", r, m, what)
	}
}

func readSub(t *check.T, rule, id string) map[string]any { return readSubKey(t, rule, "subject", id) }

func readSubKey(t *check.T, rule, key, id string) map[string]any {
	r := t.Do(t.Client(key), client.Request{Method: http.MethodGet, Path: sub(id)})
	shape.StatusAnswer(t, r, shape.Want{Rule: rule, Status: http.StatusOK})
	return shape.Object(t, rule, r)
}

func containsAll(xs []any, want ...string) bool {
	for _, w := range want {
		found := false
		for _, x := range xs {
			found = found || x == w
		}
		if !found {
			return false
		}
	}
	return true
}
