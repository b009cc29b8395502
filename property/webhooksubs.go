package property

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"

	"pgregory.net/rapid"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// Webhook subscriptions (document 2, Endpoints: Register, PATCH and
// DELETE, Secret rotation) as a state machine over one owning subject (the
// subject-bound key): registrations with fresh and already-registered
// URLs, DELETE (disable), re-enable by PATCH, rotations and reads. The
// model predicts the 10-enabled limit (409 webhook_subscription_limit_reached,
// counted again on re-enable: WHM-027, WHM-028, WHM-043), URL reservation
// (disabled ones included: WHM-026, WHM-046), enabled and secretVersion
// (1 at registration, +1 per rotation: WHM-015, WHM-049), secretSha256 of
// the held secret (WHM-013) and no secret on GET (WHM-014). The subject's
// endpoints enabled before the case count toward the limit; the case
// disables its own endpoints when it ends.

type whSub struct {
	id, url, secret string
	enabled         bool
	version         int
}

type whMachine struct {
	t       *check.T
	c       *client.Client
	base    int // the subject's enabled endpoints the case did not make
	subs    []*whSub
	log     steps
	created int
}

func (m *whMachine) enabled() int {
	n := m.base
	for _, s := range m.subs {
		if s.enabled {
			n++
		}
	}
	return n
}

func (m *whMachine) pick(rt *rapid.T, enabled bool) *whSub {
	var c []*whSub
	for _, s := range m.subs {
		if s.enabled == enabled {
			c = append(c, s)
		}
	}
	if len(c) == 0 {
		rt.Skip("no such endpoint")
	}
	return c[rapid.IntRange(0, len(c)-1).Draw(rt, "endpoint")]
}

func sha(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) }

func (m *whMachine) body(url string, enabled *bool) map[string]any {
	b := map[string]any{"url": url, "eventTypes": []string{"customer.created"}}
	if enabled != nil {
		b["enabled"] = *enabled
	}
	return b
}

func (m *whMachine) send(method, path string, body map[string]any, what string) *client.Response {
	r := m.t.Do(m.c, client.Request{Method: method, Path: path, JSON: body, IdempotencyKey: m.t.NewKey()})
	fresh.HoldSecret(m.t, r)
	m.log.add(what, r)
	return r
}

func (m *whMachine) obj(rt *rapid.T, rule string, r *client.Response, status int) map[string]any {
	var o map[string]any
	if r.Status != status || json.Unmarshal(r.Body, &o) != nil {
		m.log.fail(rt, "%s: answered %d %s, want %d", rule, r.Status, shape.Clip(r.Body), status)
	}
	return o
}

// Add registers a fresh URL: 201 under the limit, 409 at it. (Named to
// sort first: rapid shrinks a drawn action towards the first name, so a
// failing case shrinks to single registrations, not to Fill's ten.)
func (m *whMachine) Add(rt *rapid.T) {
	if m.created >= 24 {
		rt.Skip("enough endpoints in this case")
	}
	url := fresh.WebhookURL(m.t)
	r := m.send(http.MethodPost, fresh.Subscriptions, m.body(url, nil), "POST webhook-subscriptions (a fresh URL)")
	if m.enabled() >= 10 {
		if r.Status == http.StatusCreated {
			// Disabled when the case ends, like the case's own: an endpoint
			// left enabled would change the next case's count.
			var o map[string]any
			_ = json.Unmarshal(r.Body, &o)
			if id, _ := o["subscriptionId"].(string); id != "" {
				m.subs = append(m.subs, &whSub{id: id, url: url, enabled: true, version: 1})
			}
		}
		if r.Status != http.StatusConflict || problemOrEnvCode(r) != "webhook_subscription_limit_reached" {
			m.log.fail(rt, "WHM-027: registering with %d endpoints enabled answered %d %s, want 409 webhook_subscription_limit_reached", m.enabled(), r.Status, shape.Clip(r.Body))
		}
		return
	}
	o := m.obj(rt, "WHM-027", r, http.StatusCreated)
	m.created++
	s := &whSub{url: url, enabled: true, version: 1}
	s.id, _ = o["subscriptionId"].(string)
	s.secret, _ = o["secret"].(string)
	m.subs = append(m.subs, s)
	if o["enabled"] != true || fmt.Sprint(o["secretVersion"]) != "1" {
		m.log.fail(rt, "WHM-015: a new endpoint has enabled %v, secretVersion %v, want true and 1", o["enabled"], o["secretVersion"])
	}
	if o["secretSha256"] != sha(s.secret) {
		m.log.fail(rt, "WHM-013: secretSha256 %v is not the SHA-256 of the returned secret", o["secretSha256"])
	}
}

// Fill registers fresh URLs until the limit is reached.
func (m *whMachine) Fill(rt *rapid.T) {
	if m.enabled() >= 10 || m.created+10-m.enabled() > 24 {
		rt.Skip("at the limit, or enough endpoints in this case")
	}
	for m.enabled() < 10 {
		m.Add(rt)
	}
}

// Reuse registers a URL the case already holds (enabled or not): 409
// webhook_subscription_url_already_registered (below the limit, so only
// the URL rule applies).
func (m *whMachine) Reuse(rt *rapid.T) {
	if len(m.subs) == 0 || m.enabled() >= 10 {
		rt.Skip("no URL held, or the limit would answer first")
	}
	s := m.subs[rapid.IntRange(0, len(m.subs)-1).Draw(rt, "endpoint")]
	r := m.send(http.MethodPost, fresh.Subscriptions, m.body(s.url, nil), fmt.Sprintf("POST webhook-subscriptions (the URL of %s, enabled %v)", s.id, s.enabled))
	if r.Status != http.StatusConflict || problemOrEnvCode(r) != "webhook_subscription_url_already_registered" {
		rule := "WHM-026"
		if !s.enabled {
			rule = "WHM-046"
		}
		m.log.fail(rt, "%s: registering a URL already registered (enabled %v) answered %d %s, want 409 webhook_subscription_url_already_registered", rule, s.enabled, r.Status, shape.Clip(r.Body))
	}
}

// Disable DELETEs an enabled endpoint.
func (m *whMachine) Disable(rt *rapid.T) {
	s := m.pick(rt, true)
	r := m.send(http.MethodDelete, fresh.Subscriptions+"/"+s.id, nil, "DELETE webhook-subscriptions/"+s.id)
	if r.Status != http.StatusOK && r.Status != http.StatusNoContent {
		m.log.fail(rt, "WHM-047: DELETE answered %d %s, want 200 or 204", r.Status, shape.Clip(r.Body))
	}
	s.enabled = false
}

// Reenable PATCHes a disabled endpoint back on: counted against the limit.
func (m *whMachine) Reenable(rt *rapid.T) {
	s := m.pick(rt, false)
	on := true
	r := m.send(http.MethodPatch, fresh.Subscriptions+"/"+s.id, m.body(s.url, &on), "PATCH webhook-subscriptions/"+s.id+" enabled true")
	if m.enabled() >= 10 {
		// Not refused: the limit was not counted on re-enable (WHM-028);
		// refused otherwise than with the limit's 409 code: WHM-043.
		if r.Status != http.StatusConflict {
			rule, n := "WHM-028", m.enabled()
			if r.Status == http.StatusOK {
				// Which sentence: disabled again, a fresh registration at
				// the same count tells a limit above 10 (WHM-027) from a
				// re-enable not counted (WHM-028).
				m.send(http.MethodDelete, fresh.Subscriptions+"/"+s.id, nil, "DELETE webhook-subscriptions/"+s.id+" (again)")
				url := fresh.WebhookURL(m.t)
				pr := m.send(http.MethodPost, fresh.Subscriptions, m.body(url, nil), "POST webhook-subscriptions (a fresh URL, at the same count)")
				if pr.Status == http.StatusCreated {
					rule = "WHM-027"
					var o map[string]any
					_ = json.Unmarshal(pr.Body, &o)
					if id, _ := o["subscriptionId"].(string); id != "" {
						m.subs = append(m.subs, &whSub{id: id, url: url, enabled: true, version: 1})
					}
				}
			}
			m.log.fail(rt, "%s: re-enabling with %d endpoints enabled answered %d %s, want 409 webhook_subscription_limit_reached", rule, n, r.Status, shape.Clip(r.Body))
		} else if problemOrEnvCode(r) != "webhook_subscription_limit_reached" {
			m.log.fail(rt, "WHM-043: re-enabling with %d endpoints enabled answered 409 %s, want the code webhook_subscription_limit_reached", m.enabled(), shape.Clip(r.Body))
		}
		return
	}
	o := m.obj(rt, "WHM-043", r, http.StatusOK)
	if o["enabled"] != true {
		m.log.fail(rt, "WHM-043: the re-enabled endpoint answers enabled %v", o["enabled"])
	}
	s.enabled = true
}

// Rotate rotates an endpoint's secret: secretVersion + 1, a new secret.
func (m *whMachine) Rotate(rt *rapid.T) {
	if len(m.subs) == 0 {
		rt.Skip("no endpoint")
	}
	s := m.subs[rapid.IntRange(0, len(m.subs)-1).Draw(rt, "endpoint")]
	r := m.send(http.MethodPost, fresh.Subscriptions+"/"+s.id+"/secret-rotations", map[string]any{"reason": "property"}, "POST secret-rotations on "+s.id)
	if r.Status/100 != 2 {
		m.log.fail(rt, "WHM-049: rotation answered %d %s", r.Status, shape.Clip(r.Body))
	}
	var o map[string]any
	_ = json.Unmarshal(r.Body, &o)
	sec, _ := o["secret"].(string)
	if sec == "" || sec == s.secret {
		m.log.fail(rt, "WHM-049: rotation returned no new secret")
	}
	s.secret = sec
	s.version++
	if v := fmt.Sprint(o["secretVersion"]); o["secretVersion"] != nil && v != fmt.Sprint(s.version) {
		m.log.fail(rt, "WHM-049: rotation answered secretVersion %s, want %d", v, s.version)
	}
}

// Read compares one endpoint with the model.
func (m *whMachine) Read(rt *rapid.T) {
	if len(m.subs) == 0 {
		rt.Skip("no endpoint")
	}
	s := m.subs[rapid.IntRange(0, len(m.subs)-1).Draw(rt, "endpoint")]
	r := m.t.Do(m.c, client.Request{Method: http.MethodGet, Path: fresh.Subscriptions + "/" + s.id})
	m.log.add("GET webhook-subscriptions/"+s.id, r)
	o := m.obj(rt, "WHM-047", r, http.StatusOK)
	if _, has := o["secret"]; has {
		m.log.fail(rt, "WHM-014: GET carries a secret member")
	}
	switch {
	case o["enabled"] != s.enabled:
		m.log.fail(rt, "WHM-047: enabled %v, the model %v", o["enabled"], s.enabled)
	case fmt.Sprint(o["secretVersion"]) != fmt.Sprint(s.version):
		m.log.fail(rt, "WHM-049: secretVersion %v, the model %d (rotations counted)", o["secretVersion"], s.version)
	case o["secretSha256"] != sha(s.secret):
		m.log.fail(rt, "WHM-013: secretSha256 %v is not the SHA-256 of the secret last returned", o["secretSha256"])
	}
}

// Check is rapid's invariant hook: every action compares its own answer.
func (m *whMachine) Check(*rapid.T) {}

// problemOrEnvCode is the refusal's code: problem+json code or envelope data.code.
func problemOrEnvCode(r *client.Response) string {
	if c := problemCode(r); c != "" {
		return c
	}
	return envCode(r)
}

// enabledNow counts the subject's enabled endpoints (setup).
func enabledNow(t *check.T, c *client.Client) int {
	r := t.Do(c, client.Request{Method: http.MethodGet, Path: fresh.Subscriptions, Query: map[string][]string{"limit": {"500"}}})
	var list struct {
		Items []struct {
			Enabled bool `json:"enabled"`
		} `json:"items"`
	}
	if r.Status != http.StatusOK || json.Unmarshal(r.Body, &list) != nil {
		t.NoVerdict(fmt.Errorf("listing webhook subscriptions answered %d", r.Status))
	}
	n := 0
	for _, it := range list.Items {
		if it.Enabled {
			n++
		}
	}
	return n
}

// webhooksubsChecks are the checks of webhooksubs.go.
func webhooksubsChecks() []check.Check {
	rules := []string{"WHM-027", "WHM-028", "WHM-043", "WHM-026", "WHM-046", "WHM-013", "WHM-014", "WHM-015", "WHM-047", "WHM-049"}
	return []check.Check{
		{
			ID:     "property/webhook-subscriptions",
			Alone:  check.Always,
			Title:  "random registrations (fresh and reserved URLs), disables, re-enables, rotations and reads for one owning subject match the model of the 10-enabled limit, URL reservation, enabled, secretVersion and secretSha256",
			Rules:  rules,
			Labels: []string{check.Mutating, Label}, Needs: []string{"keys.subject", "webhook_url"},
			Run: func(t *check.T) {
				c := t.Client("subject")
				counted(c)
				// The subject's endpoints enabled before the property: read
				// once, not per case (the list is unpaged and grows by every
				// endpoint a case registers, so a per-case read made each case
				// of a long shrink slower than the last); every case disables
				// the endpoints it enabled when it ends.
				base := enabledNow(t, c)
				run(t, "property/webhook-subscriptions", rules, func(rt *rapid.T) {
					m := &whMachine{t: t, c: c, base: base}
					defer func() {
						for _, s := range m.subs {
							if s.enabled {
								fresh.DisableSubscription(t, "subject", s.id)
							}
						}
					}()
					rt.Repeat(rapid.StateMachineActions(m))
				})
			},
		},
	}
}
