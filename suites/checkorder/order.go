package checkorder

// Document 2, Errors / Check order: when several checks fail, the earliest
// in the order correlation id, X-Tenant-Id, API key, rate limits,
// Idempotency-Key, idempotency conflict, body binding, operation is the one
// reflected. Each check here sends requests failing two adjacent steps (and
// the key step against the Idempotency-Key step, which a pipeline that
// validates request headers early gets wrong) and asserts the earlier wins.

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// orderChecks are the checks of order.go.
func orderChecks() []check.Check {
	return []check.Check{
		{
			ID:    "checkorder/correlation-before-tenant-header",
			Title: "an invalid X-Correlation-Id wins over an X-Tenant-Id header: 400 correlation_id_invalid",
			Rules: []string{"ORDER-003", "ORDER-002"},
			Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				c := t.Client("tenant")
				for _, x := range []struct {
					what string
					corr []string
				}{
					{"129-character X-Correlation-Id", []string{tooLongCorrelation}},
					{"two X-Correlation-Id lines", []string{"ts-corr-a", "ts-corr-b"}},
				} {
					h := http.Header{"X-Correlation-Id": x.corr, "X-Tenant-Id": {uuid.NewString()}}
					r := t.Do(c, client.Request{Method: http.MethodGet, Path: api.P + "/me", Header: h})
					laterStepWon(t, r, "ORDER-003", x.what+" plus X-Tenant-Id (step 1 before step 2)", "tenant header", "")
					// Not the later step's answer: step 1's own (ORDER-002).
					shape.ProblemAnswer(t, r, shape.Want{Rule: "ORDER-003", ShapeRule: "ORDER-002", Status: http.StatusBadRequest, Code: "correlation_id_invalid", What: fmt.Sprintf("%s plus X-Tenant-Id", x.what)})
				}
			},
		},
		{
			ID:    "checkorder/tenant-header-before-key",
			Title: "an X-Tenant-Id header wins over a missing or wrong API key: 400 with no code, not 401",
			Rules: []string{"ORDER-005", "ORDER-004"},
			Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				h := http.Header{"X-Tenant-Id": {uuid.NewString()}}
				none := t.Do(t.Anonymous(), client.Request{Method: http.MethodGet, Path: api.P + "/me", NoAuth: true, Header: h})
				tenantRefusal(t, "ORDER-005", "ORDER-004", none, "X-Tenant-Id without an API key")
				wrong := t.Do(t.Anonymous().With("tenant", wrongSecretKey(t)), client.Request{Method: http.MethodGet, Path: api.P + "/me", Header: h})
				tenantRefusal(t, "ORDER-005", "ORDER-004", wrong, "X-Tenant-Id with a wrong API key secret")
			},
		},
		{
			ID:     "checkorder/key-before-rate-limit",
			Alone:  check.WithControl,
			Title:  "with a route budget spent, a wrong key secret is 401, not 429",
			Rules:  []string{"ORDER-007", "ORDER-006", "RATE-004"},
			Needs:  []string{"keys.read_only"},
			Budget: &check.Budget{Routes: []string{"read_only GET " + api.P + "/me"}, Tenant: 602},
			Run: func(t *check.T) {
				c := t.Client("read_only")
				me := client.Request{Method: http.MethodGet, Path: api.P + "/me"}
				shape.StatusAnswer(t, exhaust(t, func() *client.Response { return t.Do(c, me) }), shape.Want{Rule: "RATE-004", Status: http.StatusTooManyRequests, What: "request 601 of GET /me in one window"})
				r := t.Do(t.Anonymous().With("read_only", wrongSecretOf(t, "read_only")), me)
				// Which step answers is the order (ORDER-007); the key step's own
				// refusal, its code and body, is step 3's (ORDER-006).
				shape.ProblemAnswer(t, r, shape.Want{Rule: "ORDER-007", ShapeRule: "ORDER-006", Status: http.StatusUnauthorized, Code: "api_key_authentication_failed", What: "wrong key secret while GET /me's budget is spent", Why: "the key step comes before rate limits"})
			},
		},
		{
			ID:     "checkorder/earliest-of-many",
			Title:  "a request failing three, four or five steps at once gets the earliest step's refusal",
			Rules:  []string{"ORDER-001"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant"},
			Run: func(t *check.T) {
				// POST /customers with a wrong key secret, no Idempotency-Key
				// and a malformed body (steps 3, 5 and 7), then with
				// X-Tenant-Id too (2), then with two X-Correlation-Id lines
				// too (1): each time the earliest failing step answers.
				bad := t.Anonymous().With("tenant", wrongSecretKey(t))
				send := func(h http.Header) *client.Response {
					return t.Do(bad, client.Request{Method: http.MethodPost, Path: api.P + "/customers", Body: malformedJSON, Header: h})
				}
				what := "POST /customers with a wrong key secret, no Idempotency-Key and a malformed JSON body"
				r := send(jsonHeader())
				shape.StatusAnswer(t, r, shape.Want{Rule: "ORDER-001", Status: http.StatusUnauthorized, What: what, Why: "step 3 (the key) is the earliest failing"})
				h := withHeader(jsonHeader(), "X-Tenant-Id", uuid.NewString())
				r = send(h)
				tenantRefusal(t, "ORDER-001", "ORDER-001", r, what+", with X-Tenant-Id (step 2 is the earliest failing)")
				r = send(withHeader(h, "X-Correlation-Id", "ts-corr-a", "ts-corr-b"))
				shape.ProblemAnswer(t, r, shape.Want{Rule: "ORDER-001", Status: http.StatusBadRequest, Code: "correlation_id_invalid", What: what + ", with X-Tenant-Id and two X-Correlation-Id lines", Why: "step 1 is the earliest failing"})
			},
		},
		{
			ID:    "checkorder/key-before-idempotency-key",
			Title: "a key failure wins over a missing Idempotency-Key: 401/403, not 400",
			// ORDER-018 states which step answers (the status); the
			// refusal's body is the key step's own: a 401's code is
			// AUTH-018's, its media type and members AUTH-017's; a scope
			// 403's code is ERR-023's, its media type ERR-003's.
			Rules:  []string{"ORDER-018", "AUTH-017", "AUTH-018", "ERR-023", "ERR-003"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant", "keys.read_only"},
			Run: func(t *check.T) {
				// One refusal per key step: a wrong secret (the whole key
				// check, presence included, comes first) and a missing scope.
				// Both are refused at the key step (KeyRefusal: the plan
				// knows the wrong secret, not read_only's missing scope).
				post := func(c *client.Client) *client.Response {
					return t.Do(c, client.Request{Method: http.MethodPost, Path: api.P + "/customers", JSON: newCustomerBody(), KeyRefusal: true})
				}
				r := post(t.Anonymous().With("tenant", wrongSecretKey(t)))
				laterStepWon(t, r, "ORDER-018", "POST /customers with a wrong key secret and no Idempotency-Key", "Idempotency-Key", "idempotency_key_invalid")
				if code := shape.BodyCode(r); r.Status == http.StatusUnauthorized && code != "" && code != "api_key_authentication_failed" {
					t.ErrorAt(r, "AUTH-018", "POST /customers with a wrong key secret and no Idempotency-Key: 401 code is %q, want api_key_authentication_failed (every 401 carries it)", code)
				} else {
					shape.ProblemAnswer(t, r, shape.Want{Rule: "ORDER-018", ShapeRule: "AUTH-017", Status: http.StatusUnauthorized, Code: "api_key_authentication_failed", What: "POST /customers with a wrong key secret and no Idempotency-Key", Why: "the key step comes before the Idempotency-Key step"})
				}
				r = post(t.Client("read_only"))
				laterStepWon(t, r, "ORDER-018", "POST /customers with keys.read_only and no Idempotency-Key", "Idempotency-Key", "idempotency_key_invalid")
				shape.ProblemAnswer(t, r, shape.Want{Rule: "ORDER-018", ShapeRule: "ERR-023", MediaRule: "ERR-003", Status: http.StatusForbidden, Code: "api_key_not_authorized", What: "POST /customers with keys.read_only (no onboarding:write) and no Idempotency-Key"})
			},
		},
		{
			ID:     "checkorder/rate-limit-before-idempotency-key",
			Alone:  check.WithControl,
			Title:  "with a route budget spent, a write without Idempotency-Key is 429 rate_limited, not 400",
			Rules:  []string{"ORDER-010", "ORDER-009", "ERR-009", "RATE-004"},
			Needs:  []string{"keys.tenant"},
			Budget: &check.Budget{Routes: []string{"tenant PATCH " + api.P + "/customers/{id}"}, Tenant: 602},
			Run: func(t *check.T) {
				c := t.Client("tenant")
				// PATCH of a nonexistent customer: passes steps 1-7 and is
				// refused by the operation (404), changing nothing.
				patch := func(idem string) client.Request {
					return client.Request{Method: http.MethodPatch, Path: api.P + "/customers/" + uuid.NewString(), JSON: map[string]any{}, IdempotencyKey: idem}
				}
				shape.StatusAnswer(t, exhaust(t, func() *client.Response { return t.Do(c, patch(t.NewKey())) }), shape.Want{Rule: "RATE-004", Status: http.StatusTooManyRequests, What: "request 601 of PATCH /customers/{id} in one window"})
				r := t.Do(c, patch(""))
				// Which step answers is the order (ORDER-010); the rate step's
				// own code is step 4's (ORDER-009); the 429 body's members and
				// Retry-After are ERR-009's.
				if r.Status == http.StatusTooManyRequests {
					if code := shape.BodyCode(r); code != "rate_limited" {
						t.FatalAt(r, "ORDER-009", "PATCH /customers/{id} without Idempotency-Key while the route budget is spent: 429 with code %q, want rate_limited; body: %s", code, shape.Clip(r.Body))
					}
				}
				shape.ProblemAnswer(t, r, shape.Want{Rule: "ORDER-010", Status: http.StatusTooManyRequests, Code: "rate_limited", ShapeRule: "ERR-009", What: "PATCH /customers/{id} without Idempotency-Key while the route budget is spent", Why: "rate limits come before the Idempotency-Key step"})
				if ra := r.Header.Get("Retry-After"); ra == "" || strings.Trim(ra, "0123456789") != "" {
					t.Errorf("ERR-009", "429 Retry-After is %q, want whole seconds", ra)
				}
			},
		},
		{
			ID:     "checkorder/idempotency-key-before-conflict",
			Title:  "a duplicated Idempotency-Key naming a used key is 400 idempotency_key_invalid, not 409",
			Rules:  []string{"ORDER-012", "ORDER-011"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant"},
			Run: func(t *check.T) {
				used := t.NewKey()
				createCustomer(t, newCustomerBody(), used)
				for _, pair := range [][]string{{used, t.NewKey()}, {t.NewKey(), used}} {
					r := t.Do(t.Client("tenant"), client.Request{Method: http.MethodPost, Path: api.P + "/customers", JSON: newCustomerBody(),
						Header: http.Header{"Idempotency-Key": pair}})
					shape.ProblemAnswer(t, r, shape.Want{Rule: "ORDER-012", ShapeRule: "ORDER-011", MediaRule: "ORDER-012", Status: http.StatusBadRequest, Code: "idempotency_key_invalid", What: "two Idempotency-Key lines, one already used with another body", Why: "the key is malformed before any conflict"})
				}
			},
		},
		{
			ID:     "checkorder/idempotency-key-before-binding",
			Title:  "a missing or malformed Idempotency-Key wins over a malformed JSON body: 400 idempotency_key_invalid",
			Rules:  []string{"ORDER-019"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant"},
			Run: func(t *check.T) {
				c := t.Client("tenant")
				for _, x := range []struct {
					what string
					h    http.Header
				}{
					{"no Idempotency-Key", jsonHeader()},
					{"an Idempotency-Key containing spaces", withHeader(jsonHeader(), "Idempotency-Key", "ts key with spaces")},
					{"a 7-character Idempotency-Key", withHeader(jsonHeader(), "Idempotency-Key", "ts-1234")},
				} {
					r := t.Do(c, client.Request{Method: http.MethodPost, Path: api.P + "/customers", Body: malformedJSON, Header: x.h})
					laterStepWon(t, r, "ORDER-019", fmt.Sprintf("POST /customers with %s and a malformed JSON body", x.what), "body binding", "")
					shape.ProblemAnswer(t, r, shape.Want{Rule: "ORDER-019", Status: http.StatusBadRequest, Code: "idempotency_key_invalid", What: fmt.Sprintf("POST /customers with %s and a malformed JSON body", x.what)})
				}
			},
		},
		{
			ID:     "checkorder/conflict-before-binding",
			Title:  "a reused Idempotency-Key with a malformed body is 409 idempotency_key_reused, not a binding 400",
			Rules:  []string{"ORDER-014", "ORDER-013", "ERR-024"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant"},
			Run: func(t *check.T) {
				key := t.NewKey()
				createCustomer(t, newCustomerBody(), key)
				r := t.Do(t.Client("tenant"), client.Request{Method: http.MethodPost, Path: api.P + "/customers", Body: malformedJSON,
					Header: jsonHeader(), IdempotencyKey: key})
				shape.ProblemAnswer(t, r, shape.Want{Rule: "ORDER-014", ShapeRule: "ORDER-013", MediaRule: "ORDER-014", Status: http.StatusConflict, Code: "idempotency_key_reused", What: "POST /customers reusing a key with a malformed body", Why: "the conflict step comes before binding"})
			},
		},
		{
			ID:    "checkorder/binding-before-operation",
			Title: "a malformed body to a nonexistent or unreachable customer is the binding 400, not 404",
			Rules: []string{"ORDER-016", "ORDER-015", "ORDER-017"},
			Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				c := t.Client("tenant")
				// The operation alone: PATCH of a nonexistent customer is 404.
				alone := t.Do(c, client.Request{Method: http.MethodPatch, Path: api.P + "/customers/" + uuid.NewString(), JSON: map[string]any{}, IdempotencyKey: t.NewKey()})
				shape.FlatAnswer(t, alone, shape.Want{Rule: "ORDER-017", Status: http.StatusNotFound, What: "PATCH /customers/{nonexistent} {}"})
				targets := map[string]string{"a nonexistent customer": uuid.NewString()}
				if other := t.Profile().CustomerMap()["other_tenant"]; other != "" {
					targets["another tenant's customer"] = other
				}
				for _, what := range slices.Sorted(maps.Keys(targets)) {
					id := targets[what]
					r := t.Do(c, client.Request{Method: http.MethodPatch, Path: api.P + "/customers/" + id, Body: malformedJSON, Header: jsonHeader(), IdempotencyKey: t.NewKey()})
					if r.Status == http.StatusNotFound {
						t.Fatalf("ORDER-016", "PATCH %s with a malformed JSON body: 404; body binding comes before the operation; body: %s", what, shape.Clip(r.Body))
					}
					// Not the operation's 404: step 7's own answer (ORDER-015).
					bindingError(t, "ORDER-015", r, "PATCH "+what+" with a malformed JSON body")
				}
			},
		},
	}
}
