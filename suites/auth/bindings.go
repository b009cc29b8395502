package auth

// Document 2, Authentication 8, and document 1, Endpoints / Common rules:
// what each key binding reaches. A subject key reads its subject and the
// direct children it onboarded, and anything else is 404 byte-identical to
// a nonexistent id (never 403); its lists are silently narrowed. A tenant
// key reaches any customer of its tenant and lists them all. An unbound key
// authenticates but gets 404 on every by-id read, empty lists with 200 and
// refused creates.

import (
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"

	"github.com/google/uuid"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// me reads GET /me for a client and returns data.
func me(t *check.T, rule string, c *client.Client) map[string]any {
	r := t.Do(c, client.Request{Method: http.MethodGet, Path: api.P + "/me"})
	return shape.EnvelopeAnswer(t, r, shape.Want{Rule: rule, Status: http.StatusOK})
}

// delegated reads delegated_customer_ids from a /me data object.
func delegated(t *check.T, rule string, data map[string]any) []string {
	var out []string
	for i, v := range shape.Array(t, rule, data, "delegated_customer_ids") {
		s, ok := v.(string)
		if !ok || !isUUID(s) {
			t.Fatalf(rule, "delegated_customer_ids[%d] is %v, want a uuid", i, v)
		}
		out = append(out, s)
	}
	return out
}

// sameAsNonexistentUnder sends the same request for a not-reachable id and
// for a random nonexistent uuid (same method, same route shape) and asserts
// 404 flat with code null, byte-identical. reachRule is the rule a status
// other than 404 or 403 breaks (a 403 always breaks BIND-001): a
// subject-bound key reaching a customer not its own breaks BIND-006, an
// unbound key reaching a customer BIND-013, a key reaching another
// tenant's SVC-001.
func sameAsNonexistentUnder(t *check.T, reachRule string, c *client.Client, method, notMine, suffix, what string) {
	req := func(id string) client.Request {
		r := client.Request{Method: method, Path: api.P + "/customers/" + id + suffix}
		if method != http.MethodGet {
			r.IdempotencyKey = t.NewKey()
			r.JSON = map[string]any{}
		}
		return r
	}
	a := t.Do(c, req(notMine))
	b := t.Do(c, req(uuid.NewString()))
	if a.Status == http.StatusForbidden {
		t.Fatalf("BIND-001", "%s: status 403; a customer the key cannot act for is 404, never 403; body: %s", what, shape.Clip(a.Body))
	}
	shape.StatusAnswer(t, a, shape.Want{Rule: reachRule, Status: http.StatusNotFound, What: what})
	shape.FlatAnswer(t, b, shape.Want{Rule: "ERR-004", Status: http.StatusNotFound})
	// Byte-identical read as the same status, the same Content-Type and
	// the same body bytes (BIND-018): the Content-Type is the reading's,
	// the bytes BIND-017's.
	if ca, cb := a.Header.Get("Content-Type"), b.Header.Get("Content-Type"); ca != cb && t.Declares("BIND-018") {
		t.FatalAt(a, "BIND-018", "%s: Content-Type %q, but %q for a nonexistent uuid; the two 404s are byte-identical, Content-Type included", what, ca, cb)
	}
	shape.SameResponse(t, "BIND-017", a, b, what+" vs the same request for a nonexistent uuid")
}

// customerPage reads one page of GET /customers with c: its total and ids.
func customerPage(t *check.T, rule string, c *client.Client, limit, page int) (total int, ids []string) {
	r := t.Do(c, client.Request{Method: http.MethodGet, Path: api.P + "/customers", Query: url.Values{"limit": {strconv.Itoa(limit)}, "page": {strconv.Itoa(page)}}})
	data := shape.EnvelopeAnswer(t, r, shape.Want{Rule: rule, Status: http.StatusOK})
	for i, x := range shape.Array(t, rule, data, "customers") {
		id, _ := shape.Get(x, "id")
		s, ok := id.(string)
		if !ok {
			t.Fatalf(rule, "data.customers[%d].id is %v, want a string", i, id)
		}
		ids = append(ids, s)
	}
	return shape.Int(t, rule, data, "pagination.total"), ids
}

// customerEnds reads the ids at both ends of GET /customers with c: the
// first page of per (the newest customers) and the last per or more (the
// oldest: a profile's pre-made customers, made before any run and before
// the children a subject onboarded), then, only while want holds an id not
// yet seen, pages of per from the end backwards. A list of any length costs
// a few pages, not a walk.
func customerEnds(t *check.T, rule string, c *client.Client, per int, want []string) map[string]bool {
	seen := map[string]bool{}
	add := func(ids []string) {
		for _, id := range ids {
			seen[id] = true
		}
	}
	total, ids := customerPage(t, rule, c, per, 1)
	add(ids)
	if total <= per {
		return seen
	}
	total, ids = customerTail(t, rule, c, per, total)
	add(ids)
	missing := func() bool {
		for _, id := range want {
			if id != "" && !seen[id] {
				return true
			}
		}
		return false
	}
	for page := (total+per-1)/per - 1; page > 1 && missing(); page-- {
		_, ids := customerPage(t, rule, c, per, page)
		add(ids)
	}
	return seen
}

// tailReads bounds the reads of the list's end: on a real clock, with
// other checks creating customers meanwhile, five reads in a row had each
// seen the total move.
const tailReads = 20

// customerTail reads at least the last n customers in one request: a page
// size between n and 2n whose last page holds n rows or more, so that
// customers other callers add meanwhile (at the front) cannot push the
// oldest past the page read. The read is redone while the total it reports
// is not the one the page was chosen for. It returns that total and the ids.
func customerTail(t *check.T, rule string, c *client.Client, n, total int) (int, []string) {
	for range tailReads {
		size := n
		for l := n; l <= 2*n; l++ {
			if r := total % l; r == 0 || r >= n {
				size = l
				break
			}
		}
		now, ids := customerPage(t, rule, c, size, (total+size-1)/size)
		if now == total {
			return total, ids
		}
		total = now
	}
	t.NoVerdict(fmt.Errorf("the customer list's total moved on %d reads in a row (%d now)", tailReads, total))
	return 0, nil
}

func toString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case interface{ String() string }:
		return x.String()
	}
	return ""
}

// sample returns up to n ids from each end of ids, leaving out skip.
func sample(ids []string, skip string, n int) []string {
	var rest []string
	for _, id := range ids {
		if id != skip {
			rest = append(rest, id)
		}
	}
	if len(rest) <= 2*n {
		return rest
	}
	return append(rest[:n:n], rest[len(rest)-n:]...)
}

// tenantFixtures are the profile customers of the tenant's own tenant.
var tenantFixtures = []string{"active_personal", "active_business", "draft", "suspended", "blocked_country", "parent", "child"}

// bindingsChecks are the checks of bindings.go.
func bindingsChecks() []check.Check {
	return []check.Check{
		{
			ID:    "auth/subject-key-reaches-subject-and-children",
			Title: "a subject key reads its subject and each direct child it onboarded",
			Rules: []string{"BIND-006", "ME-003", "ME-002"},
			Needs: []string{"keys.subject", "customers.parent", "customers.child"},
			Run: func(t *check.T) {
				sk := t.Client("subject")
				parent, child := t.Customer("parent"), t.Customer("child")
				ids := delegated(t, "ME-002", me(t, "ME-002", sk))
				found := false
				for _, id := range ids {
					found = found || id == child
				}
				if !found {
					t.Errorf("ME-003", "delegated_customer_ids of keys.subject %v lacks customers.child %s", ids, child)
				}
				// Every run may onboard more children: the subject, the
				// profile's child and the first and last few of the others as
				// /me lists them show the rule at the same cost however many
				// there are.
				for _, id := range append([]string{parent, child}, sample(ids, child, 3)...) {
					r := t.Do(sk, client.Request{Method: http.MethodGet, Path: api.P + "/customers/" + id})
					shape.StatusAnswer(t, r, shape.Want{Rule: "BIND-006", Status: http.StatusOK, What: fmt.Sprintf("GET /customers/%s (subject or direct child) with keys.subject", id), Continue: true})
				}
			},
		},
		{
			ID:    "auth/subject-key-not-mine-is-404",
			Title: "a subject key gets a 404 byte-identical to a nonexistent id for any other customer, never 403",
			Rules: []string{"BIND-001", "BIND-017", "BIND-018", "BIND-006", "ERR-004"},
			Needs: []string{"keys.subject", "customers.active_personal", "customers.other_tenant"},
			Run: func(t *check.T) {
				sk := t.Client("subject")
				// Reaching any of them breaks BIND-006 (a subject key
				// reaches its subject and direct children, anything else is
				// 404); a 403 breaks BIND-001.
				sameAsNonexistentUnder(t, "BIND-006", sk, http.MethodGet, t.Customer("active_personal"), "", "GET /customers/{active_personal} with keys.subject")
				sameAsNonexistentUnder(t, "BIND-006", sk, http.MethodGet, t.Customer("other_tenant"), "", "GET /customers/{other_tenant} with keys.subject")
				sameAsNonexistentUnder(t, "BIND-006", sk, http.MethodGet, t.Customer("active_personal"), "/onboarding/status", "GET /customers/{active_personal}/onboarding/status with keys.subject")
				sameAsNonexistentUnder(t, "BIND-006", sk, http.MethodPatch, t.Customer("active_personal"), "", "PATCH /customers/{active_personal} {} with keys.subject")
			},
		},
		{
			ID:    "auth/subject-key-list-narrowed",
			Title: "a subject key's customer list is silently narrowed to its subject and direct children",
			Rules: []string{"BIND-008", "ME-002"},
			Needs: []string{"keys.subject", "customers.parent"},
			Run: func(t *check.T) {
				sk := t.Client("subject")
				parent := t.Customer("parent")
				allowedIDs := map[string]bool{parent: true}
				for _, id := range delegated(t, "ME-002", me(t, "ME-002", sk)) {
					allowedIDs[id] = true
				}
				// The newest rows (children onboarded lately) and the oldest
				// (the subject itself, made before its children).
				ids := customerEnds(t, "BIND-008", sk, 100, []string{parent})
				if !ids[parent] {
					t.Errorf("BIND-008", "GET /customers with keys.subject lacks its own subject %s", parent)
				}
				var unknown []string
				for id := range ids {
					if !allowedIDs[id] {
						unknown = append(unknown, id)
					}
				}
				if len(unknown) > 0 {
					// Children onboarded since the first read (other
					// checks create them) are delegated by now.
					for _, id := range delegated(t, "ME-002", me(t, "ME-002", sk)) {
						allowedIDs[id] = true
					}
				}
				sort.Strings(unknown)
				for _, id := range unknown {
					if !allowedIDs[id] {
						t.Errorf("BIND-008", "GET /customers with keys.subject lists %s, which is neither its subject nor a direct child", id)
					}
				}
			},
		},
		{
			ID:     "auth/subject-key-create-acts-for-subject",
			Title:  "a subject key's POST /customers acts for its subject: the new customer is one the key reaches (its subject's direct end customer)",
			Rules:  []string{"BIND-009"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.subject", "customers.parent"},
			Run: func(t *check.T) {
				sk := t.Client("subject")
				r := t.Do(sk, client.Request{Method: http.MethodPost, Path: api.P + "/customers", JSON: newCustomerBody(), IdempotencyKey: t.NewKey()})
				if r.Status == http.StatusForbidden && shape.BodyCode(r) == "sub_customer_onboarding_disabled" {
					// The programme gates a bound key's create (document 1,
					// Endpoints, POST /customers): not this rule's to judge.
					t.NotJudged("keys.subject's subject has end-customer onboarding disabled: its POST /customers is gated, no create to act for it", "BIND-009")
					return
				}
				if r.Status/100 != 2 {
					t.Fatalf("BIND-009", "POST /customers with keys.subject: status %d, want a create (2xx) acting for its subject; body: %s", r.Status, shape.Clip(r.Body))
				}
				data := shape.EnvelopeAnswer(t, r, shape.Want{Rule: "BIND-009", Status: r.Status, What: "POST /customers with keys.subject"})
				if inner, ok := data["customer"].(map[string]any); ok {
					data = inner
				}
				id, _ := data["id"].(string)
				if id == "" {
					t.Fatalf("BIND-009", "POST /customers with keys.subject answers no customer id; body: %s", shape.Clip(r.Body))
				}
				// Created for its subject, the customer is within the key's
				// reach; created for anyone else, it is 404 to the key.
				g := t.Do(sk, client.Request{Method: http.MethodGet, Path: api.P + "/customers/" + id})
				shape.StatusAnswer(t, g, shape.Want{Rule: "BIND-009", Status: http.StatusOK, What: "GET /customers/{created} with keys.subject", Why: "a subject key's create acts for its subject, so it reaches what it created"})
			},
		},
		{
			ID:    "auth/end-customers-customer-id-is-parent",
			Title: "on end-customers routes {customerId} is the parent: a tenant key reads the child under its parent, and gets 404 for it under another customer",
			Rules: []string{"BIND-002"},
			Needs: []string{"keys.tenant", "customers.parent", "customers.child", "customers.active_personal"},
			Run: func(t *check.T) {
				tk := t.Client("tenant")
				parent, child, other := t.Customer("parent"), t.Customer("child"), t.Customer("active_personal")
				under := func(id string) *client.Response {
					return t.Do(tk, client.Request{Method: http.MethodGet, Path: api.P + "/customers/" + id + "/end-customers/" + child})
				}
				own := under(parent)
				if own.Status == http.StatusNotFound {
					t.Skipf("GET /customers/{parent}/end-customers/{child} answers 404 to keys.tenant: the end-customer by-id route is not served by this target")
				}
				shape.StatusAnswer(t, own, shape.Want{Rule: "BIND-002", Status: http.StatusOK, What: "GET /customers/{parent}/end-customers/{child} with keys.tenant", Why: "{customerId} is the child's parent"})
				// The tenant key reaches both customers: only {customerId}
				// naming a customer that is not the parent makes this 404.
				shape.StatusAnswer(t, under(other), shape.Want{Rule: "BIND-002", Status: http.StatusNotFound, What: "GET /customers/{active_personal}/end-customers/{child} with keys.tenant", Why: "on end-customers routes {customerId} means the parent, and active_personal is not the child's"})
			},
		},
		{
			ID:    "auth/tenant-key-reaches-any-customer",
			Title: "a tenant key reads every customer of its tenant and none of another tenant's",
			Rules: []string{"BIND-010", "SVC-001", "BIND-017", "BIND-018", "BIND-001", "ERR-004"},
			Needs: []string{"keys.tenant", "customers.active_personal"},
			Run: func(t *check.T) {
				tk := t.Client("tenant")
				for _, name := range tenantFixtures {
					id := t.Profile().CustomerMap()[name]
					if id == "" {
						continue
					}
					r := t.Do(tk, client.Request{Method: http.MethodGet, Path: api.P + "/customers/" + id})
					shape.StatusAnswer(t, r, shape.Want{Rule: "BIND-010", Status: http.StatusOK, What: fmt.Sprintf("GET /customers/{%s} with keys.tenant", name), Continue: true})
				}
				if other := t.Profile().CustomerMap()["other_tenant"]; other != "" {
					sameAsNonexistentUnder(t, "SVC-001", tk, http.MethodGet, other, "", "GET /customers/{other_tenant} with keys.tenant")
				} else {
					t.NotJudged("profile has no customers.other_tenant: no other tenant's customer to be refused; add customers.other_tenant", "SVC-001", "BIND-017")
				}
			},
		},
		{
			ID:    "auth/tenant-key-list-unfiltered",
			Title: "a tenant key's customer list holds every customer of its tenant and none of another tenant's",
			Rules: []string{"BIND-011", "SVC-001"},
			Needs: []string{"keys.tenant", "customers.active_personal"},
			Run: func(t *check.T) {
				// The pre-made customers are among the oldest rows: the list is
				// read from its end, not walked, however long it has grown.
				var want []string
				for _, name := range tenantFixtures {
					want = append(want, t.Profile().CustomerMap()[name])
				}
				ids := customerEnds(t, "BIND-011", t.Client("tenant"), 100, want)
				for _, name := range tenantFixtures {
					if id := t.Profile().CustomerMap()[name]; id != "" && !ids[id] {
						t.Errorf("BIND-011", "GET /customers with keys.tenant lacks customers.%s %s", name, id)
					}
				}
				if other := t.Profile().CustomerMap()["other_tenant"]; other == "" {
					t.NotJudged("profile has no customers.other_tenant: no other tenant's customer to be left out; add customers.other_tenant", "SVC-001")
				} else if ids[other] {
					t.Errorf("SVC-001", "GET /customers with keys.tenant lists customers.other_tenant %s, a customer of another tenant", other)
				}
			},
		},
		{
			ID:    "auth/unbound-key-by-id-404",
			Title: "an unbound key authenticates but every by-id read is 404 byte-identical to a nonexistent id",
			Rules: []string{"BIND-013", "BIND-019", "BIND-017", "BIND-018", "BIND-001", "ERR-004"},
			Needs: []string{"keys.unbound", "customers.active_personal"},
			Run: func(t *check.T) {
				ub := t.Client("unbound")
				r := t.Do(ub, client.Request{Method: http.MethodGet, Path: api.P + "/me"})
				shape.StatusAnswer(t, r, shape.Want{Rule: "BIND-019", Status: http.StatusOK, What: "GET /me with keys.unbound", Why: "an unbound key authenticates"})
				for _, name := range []string{"active_personal", "parent", "child"} {
					if id := t.Profile().CustomerMap()[name]; id != "" {
						sameAsNonexistentUnder(t, "BIND-013", ub, http.MethodGet, id, "", "GET /customers/{"+name+"} with keys.unbound")
					}
				}
				sameAsNonexistentUnder(t, "BIND-013", ub, http.MethodGet, t.Customer("active_personal"), "/onboarding/status", "GET /customers/{active_personal}/onboarding/status with keys.unbound")
			},
		},
		{
			ID:    "auth/unbound-key-lists-empty",
			Title: "an unbound key's lists are empty with 200",
			Rules: []string{"BIND-014", "BIND-019", "BIND-005"},
			Needs: []string{"keys.unbound"},
			Run: func(t *check.T) {
				ub := t.Client("unbound")
				r := t.Do(ub, client.Request{Method: http.MethodGet, Path: api.P + "/customers"})
				// Refused, the key does not authenticate (BIND-019); answered,
				// its list is empty (BIND-014).
				data := shape.EnvelopeAnswer(t, r, shape.Want{Rule: "BIND-019", ShapeRule: "BIND-014", Status: http.StatusOK, What: "GET /customers with keys.unbound", Why: "an unbound key authenticates, with an empty list"})
				if list := shape.Array(t, "BIND-014", data, "customers"); len(list) != 0 {
					t.Errorf("BIND-014", "GET /customers with keys.unbound lists %d customers, want none", len(list))
				}
				if tot, ok := shape.Get(data, "pagination.total"); ok && toString(tot) != "0" {
					t.Errorf("BIND-014", "GET /customers with keys.unbound reports pagination.total %v, want 0", tot)
				}
				// The v2 customers list follows the binding too, when served.
				if served(t, api.V2+"/customers") {
					v := t.Do(ub, client.Request{Method: http.MethodGet, Path: api.V2 + "/customers"})
					shape.StatusAnswer(t, v, shape.Want{Rule: "BIND-019", Status: http.StatusOK, What: "GET /api/v2/public/customers with keys.unbound", Why: "an unbound key authenticates"})
					m := shape.Object(t, "BIND-005", v)
					if n, ok := m["count"]; ok && toString(n) != "0" {
						t.Errorf("BIND-005", "GET /api/v2/public/customers with keys.unbound reports count %v, want 0", n)
					}
				}
			},
		},
		{
			ID:     "auth/unbound-key-create-refused",
			Title:  "an unbound key's creates are refused (404 for a customer-path create)",
			Rules:  []string{"BIND-015", "BIND-016"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.unbound", "customers.active_personal", "customers.parent"},
			Run: func(t *check.T) {
				ub := t.Client("unbound")
				r := t.Do(ub, client.Request{Method: http.MethodPost, Path: api.P + "/customers", JSON: newCustomerBody(), IdempotencyKey: t.NewKey()})
				if r.Status/100 == 2 {
					t.Errorf("BIND-015", "POST /customers with keys.unbound: status %d, want a refusal; body: %s", r.Status, shape.Clip(r.Body))
				}
				e := t.Do(ub, client.Request{Method: http.MethodPost, Path: api.P + "/customers/" + t.Customer("parent") + "/end-customers", JSON: newEndCustomerBody(), IdempotencyKey: t.NewKey()})
				shape.FlatAnswer(t, e, shape.Want{Rule: "BIND-016", Status: http.StatusNotFound, What: "POST /customers/{parent}/end-customers with keys.unbound", Why: "the customer is unreachable"})
				k := t.Do(ub, client.Request{Method: http.MethodPost, Path: api.P + "/customers/" + t.Customer("active_personal") + "/onboarding/kyc/initiate", IdempotencyKey: t.NewKey()})
				shape.FlatAnswer(t, k, shape.Want{Rule: "BIND-016", Status: http.StatusNotFound, What: "POST /customers/{active_personal}/onboarding/kyc/initiate with keys.unbound"})
			},
		},
	}
}
