package otherpaths

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

const v2Customers = api.V2 + "/customers"

// v2List reads the v2 simple list envelope { items, count, limit }
// (V2-008) and asserts count == len(items) <= limit and no page.
func v2List(t *check.T, key string, limit string) (items []any, count, lim int) {
	q := map[string][]string{}
	if limit != "" {
		q["limit"] = []string{limit}
	}
	r := t.Do(t.Client(key), client.Request{Method: http.MethodGet, Path: v2Customers, Query: q})
	shape.StatusAnswer(t, r, shape.Want{Rule: "V2-001", Status: http.StatusOK})
	shape.ContentType(t, "V2-001", r, shape.JSON)
	m := shape.Object(t, "V2-001", r)
	items = shape.Array(t, "V2-008", m, "items")
	count = shape.Int(t, "V2-005", m, "count")
	lim = shape.Int(t, "V2-005", m, "limit")
	if count > lim {
		t.Fatalf("V2-006", "count %d exceeds limit %d", count, lim)
	}
	if count != len(items) {
		t.Fatalf("V2-008", "count is %d but items holds %d", count, len(items))
	}
	for _, k := range []string{"page", "pagination"} {
		if _, ok := m[k]; ok {
			t.Fatalf("V2-005", "the v2 list carries %q; it has no page", k)
		}
	}
	return items, count, lim
}

// simpleList asserts the v2 simple list envelope on path under rule: an
// object (no v1 envelope) with one array of rows, count equal to its
// length and at most limit, limit as asked, and no page.
func simpleList(t *check.T, rule, key, path string, limit int) {
	r := t.Do(t.Client(key), client.Request{Method: http.MethodGet, Path: path, Query: map[string][]string{"limit": {strconv.Itoa(limit)}}})
	if r.Status != http.StatusOK {
		t.NotJudged(fmt.Sprintf("GET %s answered %d", path, r.Status), rule)
		return
	}
	m := shape.Object(t, rule, r)
	if _, env := m["success"]; env {
		t.FatalAt(r, rule, "GET %s answers the v1 envelope, not the v2 simple list: %s", path, shape.Clip(r.Body))
	}
	var rows []any
	arrays := 0
	for _, v := range m {
		if arr, ok := v.([]any); ok {
			rows, arrays = arr, arrays+1
		}
	}
	if arrays != 1 {
		t.FatalAt(r, rule, "GET %s holds %d arrays, want one list of rows", path, arrays)
	}
	count, lim := shape.Int(t, rule, m, "count"), shape.Int(t, rule, m, "limit")
	if lim != limit || count > lim || count != len(rows) {
		t.FatalAt(r, rule, "GET %s?limit=%d: count %d, limit %d, %d rows; want limit %d and count = rows ≤ limit", path, limit, count, lim, len(rows), limit)
	}
	for _, k := range []string{"page", "pagination"} {
		if _, ok := m[k]; ok {
			t.FatalAt(r, rule, "GET %s carries %q; the v2 simple list has no page", path, k)
		}
	}
}

func ids(items []any) map[string]bool {
	out := map[string]bool{}
	for _, x := range items {
		if m, ok := x.(map[string]any); ok {
			if id, ok := m["id"].(string); ok {
				out[id] = true
			}
		}
	}
	return out
}

// v2customersChecks are the checks of v2customers.go.
func v2customersChecks() []check.Check {
	return []check.Check{
		{
			ID:    "otherpaths/v2-customers-list",
			Title: "GET V2/customers uses the simple list envelope: items, count and limit, count equal to limit meaning possibly more; V2/fiat/accounts the same envelope",
			Rules: []string{"V2-001", "V2-005", "V2-006", "V2-007", "V2-008", "V2-009"},
			Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				v2List(t, "tenant", "") // the default limit is not documented for this list
				_, all, _ := v2List(t, "tenant", "500")
				if all < 2 {
					t.Fatalf("V2-001", "the tenant key lists %d customers; the tenant has several", all)
				}
				for _, l := range []int{1, 2} {
					_, count, lim := v2List(t, "tenant", strconv.Itoa(l))
					if lim != l {
						t.Fatalf("V2-009", "limit=%d is reported as limit %d", l, lim)
					}
					if count != min(l, all) {
						t.Fatalf("V2-006", "limit=%d with %d customers in a limit-500 read gave count %d, want %d", l, all, count, min(l, all))
					}
				}
				// count == limit signals possibly more: with limit 1 there are.
				_, c1, l1 := v2List(t, "tenant", "1")
				if c1 != l1 {
					t.Fatalf("V2-006", "limit=1 with %d customers gave count %d", all, c1)
				}
				// V2/fiat/accounts answers the same envelope (V2-007).
				simpleList(t, "V2-007", "tenant", v2Customers, 2)
				simpleList(t, "V2-007", "tenant", api.V2+"/fiat/accounts", 2)
			},
		},
		{
			ID:    "otherpaths/v2-customers-binding",
			Title: "GET V2/customers follows the key's binding: narrowed for a subject key, unfiltered for a tenant key, empty for an unbound key",
			Rules: []string{"BIND-005", "BIND-011", "BIND-014", "V2-008"},
			Needs: []string{"keys.tenant", "keys.subject", "customers.parent", "customers.active_personal"},
			Run: func(t *check.T) {
				parent := t.Customer("parent")
				tenantItems, n, _ := v2List(t, "tenant", "500")
				if tid := ids(tenantItems); n < 500 && len(tid) > 0 && !tid[t.Customer("active_personal")] {
					t.Fatalf("BIND-011", "the tenant key's v2 list (limit 500) lacks customers.active_personal")
				}
				me := shape.EnvelopeAnswer(t, t.Do(t.Client("subject"), client.Request{Method: http.MethodGet, Path: api.P + "/me"}), shape.Want{Rule: "BIND-005", Status: http.StatusOK})
				reach := map[string]bool{parent: true}
				for _, x := range shape.Array(t, "BIND-005", me, "delegated_customer_ids") {
					if s, ok := x.(string); ok {
						reach[s] = true
					}
				}
				items, count, _ := v2List(t, "subject", "500")
				if count > len(reach) {
					t.Fatalf("BIND-005", "the subject key lists %d customers; it reaches only %d (its customer and direct children)", count, len(reach))
				}
				for _, id := range slices.Sorted(maps.Keys(ids(items))) {
					if !reach[id] {
						t.Fatalf("BIND-005", "the subject key's v2 list holds %s, which is neither its customer nor a direct child", id)
					}
				}
				if count == 0 {
					t.Fatalf("BIND-005", "the subject key's v2 list is empty; it reaches its own customer")
				}
				if t.Profile().Key("unbound") != "" {
					if _, n, _ := v2List(t, "unbound", ""); n != 0 {
						t.Fatalf("BIND-014", "an unbound key's v2 list holds %d customers, want none", n)
					}
				} else {
					t.NotJudged("profile has no keys.unbound: no unbound key's list to read; add keys.unbound", "BIND-014")
				}
			},
		},
	}
}
