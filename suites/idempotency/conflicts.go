package idempotency

import (
	"net/http"
	"net/url"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// Conflicts (document 1, Common rules; document 2, problem+json codes):
// the same key with a different method, path or body is 409
// idempotency_key_reused problem+json, and nothing runs.

func conflictsChecks() []check.Check {
	var cs []check.Check
	mut := []string{check.Mutating}
	cs = append(cs,
		check.Check{
			ID:     "idempotency/reuse-different-body",
			Title:  "the same key with a different body is 409 idempotency_key_reused problem+json; nothing is created or changed",
			Rules:  []string{"IDEM-011", "IDEM-022", "ERR-024", "CUST-009"},
			Labels: mut, Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				mark := customersMark(t) // every customer made from here on is newer
				c := t.Client("tenant")
				key, e1, e2 := t.NewKey(), freshEmail(), freshEmail()
				first := t.Do(c, client.Request{Method: http.MethodPost, Path: customers, IdempotencyKey: key, JSON: map[string]any{"email": e1, "jurisdiction": "GB"}})
				idOf(t, first)
				r := t.Do(c, client.Request{Method: http.MethodPost, Path: customers, IdempotencyKey: key, JSON: map[string]any{"email": e2, "jurisdiction": "GB"}})
				conflict(t, "IDEM-011", r, "idempotency_key_reused", "POST /customers with a used key and another email")
				if n := countByReference(t, mark, e2); n != 0 {
					t.Fatalf("IDEM-011", "the refused request created %d customer(s) with its email", n)
				}

				id, k2 := createCustomer(t), t.NewKey()
				first = patch(t, c, id, k2, jsonBody("DE"))
				if first.Status != http.StatusOK {
					t.NoVerdict(errorf("PATCH jurisdiction DE: %d %s", first.Status, shape.Clip(first.Body)))
				}
				conflict(t, "IDEM-011", patch(t, c, id, k2, jsonBody("FR")), "idempotency_key_reused", "PATCH with a used key and another body")
				if j := jurisdiction(t, id); j != "DE" {
					t.Fatalf("IDEM-011", "the refused PATCH changed the jurisdiction to %s", j)
				}
				same(t, first, patch(t, c, id, k2, jsonBody("DE")), "identical PATCH after a conflicting one")
			},
		},
		check.Check{
			ID:     "idempotency/reuse-different-path",
			Title:  "the same key and body on another customer's path is 409 idempotency_key_reused; that customer is unchanged",
			Rules:  []string{"IDEM-010", "IDEM-022", "ERR-024", "CUST-022"},
			Labels: mut, Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				c := t.Client("tenant")
				x, y, key := createCustomer(t), createCustomer(t), t.NewKey()
				if r := patch(t, c, x, key, jsonBody("DE")); r.Status != http.StatusOK {
					t.NoVerdict(errorf("PATCH jurisdiction DE: %d %s", r.Status, shape.Clip(r.Body)))
				}
				conflict(t, "IDEM-010", patch(t, c, y, key, jsonBody("DE")), "idempotency_key_reused", "the same key and body on another customer's path")
				if j := jurisdiction(t, y); j != "GB" {
					t.Fatalf("IDEM-010", "the refused PATCH changed the other customer's jurisdiction to %s", j)
				}
			},
		},
		check.Check{
			ID:     "idempotency/reuse-different-query",
			Title:  "the same key and body with a query string added is 409 idempotency_key_reused (the path includes the query)",
			Rules:  []string{"IDEM-017", "IDEM-022", "CUST-022"},
			Labels: mut, Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				c := t.Client("tenant")
				x, key := createCustomer(t), t.NewKey()
				if r := patch(t, c, x, key, jsonBody("DE")); r.Status != http.StatusOK {
					t.NoVerdict(errorf("PATCH jurisdiction DE: %d %s", r.Status, shape.Clip(r.Body)))
				}
				setJurisdiction(t, x, "FR")
				r := t.Do(c, client.Request{Method: http.MethodPatch, Path: customers + "/" + x, Query: url.Values{"ts": {"1"}}, IdempotencyKey: key,
					Body: jsonBody("DE"), Header: http.Header{"Content-Type": {"application/json"}}})
				conflict(t, "IDEM-017", r, "idempotency_key_reused", "the same key and body with ?ts=1")
				if j := jurisdiction(t, x); j != "FR" {
					t.Fatalf("IDEM-017", "the refused PATCH changed the jurisdiction to %s", j)
				}
			},
		},
	)
	for _, p := range methodPairs {
		p := p
		cs = append(cs, check.Check{
			ID:     "idempotency/reuse-different-method-" + p.name,
			Title:  "the same key, path and body with another method (" + p.a + " then " + p.b + " " + p.name + ") is 409 idempotency_key_reused; nothing changes",
			Rules:  []string{"IDEM-009", "IDEM-022", "ERR-024"},
			Labels: mut, Needs: p.needs,
			Run: func(t *check.T) { checkMethodPair(t, p) },
		})
	}
	return cs
}

// methodPair is a path served with two mutating methods: the only honest
// way to change the method alone. New pairs are one row each.
type methodPair struct {
	name  string
	a, b  string
	key   string
	needs []string
	// setup returns the path, a body acceptable to method a, and a probe
	// telling whether the resource is still as a left it.
	setup func(t *check.T) (path string, body map[string]any, unchanged func() bool, cleanup func())
}

var methodPairs = []methodPair{
	{name: "webhook-subscription", a: http.MethodPatch, b: http.MethodDelete, key: "subject",
		needs: []string{"keys.subject", "webhook_url"}, setup: webhookSubscription},
}

func checkMethodPair(t *check.T, p methodPair) {
	c := t.Client(p.key)
	path, body, unchanged, cleanup := p.setup(t)
	defer cleanup()
	key := t.NewKey()
	r := t.Do(c, client.Request{Method: p.a, Path: path, IdempotencyKey: key, JSON: body})
	if r.Status/100 != 2 {
		t.NoVerdict(errorf("%s %s: %d %s", p.a, path, r.Status, shape.Clip(r.Body)))
	}
	r = t.Do(c, client.Request{Method: p.b, Path: path, IdempotencyKey: key, JSON: body})
	conflict(t, "IDEM-009", r, "idempotency_key_reused", p.b+" with the key, path and body of a "+p.a)
	if !unchanged() {
		t.Fatalf("IDEM-009", "the refused %s changed the resource", p.b)
	}
}

// webhookSubscription registers a fresh subscription with the subject key
// (unique URL: the profile's webhook_url with a unique query) and disables
// it afterwards.
func webhookSubscription(t *check.T) (string, map[string]any, func() bool, func()) {
	c := t.Client("subject")
	u := t.Profile().WebhookURL
	if parsed, err := url.Parse(u); err == nil {
		q := parsed.Query()
		q.Set("ts", t.NewKey())
		parsed.RawQuery = q.Encode()
		u = parsed.String()
	}
	body := map[string]any{"url": u, "eventTypes": []string{"deposit.received"}, "enabled": true}
	r := t.Do(c, client.Request{Method: http.MethodPost, Path: api.V2 + "/webhook-subscriptions", IdempotencyKey: t.NewKey(),
		JSON: map[string]any{"url": u, "eventTypes": []string{"deposit.received"}, "maxAttempts": nil}})
	if r.Status != http.StatusCreated {
		t.Skipf("cannot register a webhook subscription to exercise PATCH and DELETE on one path: %d %s", r.Status, shape.Clip(r.Body))
	}
	m, err := r.JSON()
	if err != nil {
		t.NoVerdict(err)
	}
	id, _ := m["subscriptionId"].(string)
	if id == "" {
		t.NoVerdict(errorf("the 201 register response has no subscriptionId: %s", shape.Clip(r.Body)))
	}
	path := api.V2 + "/webhook-subscriptions/" + id
	unchanged := func() bool {
		g := t.Do(c, client.Request{Method: http.MethodGet, Path: path})
		gm, err := g.JSON()
		return g.Status == http.StatusOK && err == nil && gm["enabled"] == true
	}
	cleanup := func() {
		t.Do(c, client.Request{Method: http.MethodDelete, Path: path, IdempotencyKey: t.NewKey()})
	}
	return path, body, unchanged, cleanup
}
