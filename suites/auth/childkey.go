package auth

// Document 2, Authentication 8 and 11: a key issued to an end customer of
// the integrator is subject-bound to just that end customer. Its /me names
// the child, delegating only the child's own end customers (none where one
// level only exists: a child onboards no children, SUB-001, judged by the
// subcustomers checks), its list holds only the child and those, and its
// parent, like any other customer, is a 404 byte-identical to a nonexistent
// id.

import (
	"net/http"
	"slices"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// childkeyChecks are the checks of childkey.go.
func childkeyChecks() []check.Check {
	return []check.Check{
		{
			ID:    "auth/child-key-bound-to-child",
			Title: "a key issued to an end customer is subject-bound to just it: /me names the child, its list holds only the child, its parent is 404 like a nonexistent id",
			Rules: []string{"BIND-021", "BIND-006", "BIND-008", "BIND-001", "BIND-017", "BIND-018", "ME-003", "ME-002", "ME-004", "ERR-004"},
			Needs: []string{"keys.child", "customers.child", "customers.parent"},
			Run: func(t *check.T) {
				ck := t.Client("child")
				child, parent := t.Customer("child"), t.Customer("parent")
				data, ids := identity(t, "child")
				if got := data["subject_binding"]; got != "subject" {
					t.Errorf("BIND-021", "GET /me with keys.child: subject_binding is %v, want \"subject\" (a key issued to an end customer is subject-bound)", got)
				}
				if got := data["customer_id"]; got != child {
					t.Errorf("BIND-021", "GET /me with keys.child: customer_id is %v, want customers.child %s", got, child)
				}
				// The child's own end customers: none where only one level
				// exists. A target that let some be created breaks SUB-001
				// (judged by the subcustomers checks); /me naming them and
				// the list holding them is then what ME-003 and BIND-008
				// state, not a breach of them.
				own := endCustomersOf(t, ck, child)
				for _, id := range ids {
					if !slices.Contains(own, id) {
						t.Errorf("ME-003", "GET /me with keys.child: delegated_customer_ids is %v, want only the child's direct end customers %v (none where only one level exists)", ids, own)
						break
					}
				}
				// What the key reaches and lists breaks the rules of a
				// subject-bound key (BIND-006, BIND-008) when /me says it is
				// one; when /me says it is not, reaching more is only the
				// consequence of BIND-021, already failed above.
				reach, list := "BIND-006", "BIND-008"
				if data["subject_binding"] != "subject" || data["customer_id"] != child {
					reach, list = "BIND-021", "BIND-021"
				}
				// Its own subject is reachable.
				r := t.Do(ck, client.Request{Method: http.MethodGet, Path: api.P + "/customers/" + child})
				shape.StatusAnswer(t, r, shape.Want{Rule: "BIND-006", Status: http.StatusOK, What: "GET /customers/{child} with keys.child", Why: "its own subject", Continue: true})
				// Its list is just the child.
				total, listed := customerPage(t, "BIND-008", ck, 20, 1)
				if total > 1+len(own) {
					t.Errorf(list, "GET /customers with keys.child reports total %d; the key is bound to just the end customer (and its %d direct end customers)", total, len(own))
				}
				if !slices.Contains(listed, child) {
					t.Errorf(list, "GET /customers with keys.child lacks customers.child %s", child)
				}
				for _, id := range listed {
					if id != child && !slices.Contains(own, id) {
						t.Errorf(list, "GET /customers with keys.child lists %s; the key is bound to just the end customer and its direct end customers", id)
						break
					}
				}
				// The parent is not reachable: 404 byte-identical to nonexistent.
				// A subject-bound key reaching them breaks BIND-006; a 403
				// breaks BIND-001.
				sameAsNonexistentUnder(t, reach, ck, http.MethodGet, parent, "", "GET /customers/{parent} with keys.child")
				sameAsNonexistentUnder(t, reach, ck, http.MethodGet, parent, "/onboarding/status", "GET /customers/{parent}/onboarding/status with keys.child")
				if ap := t.Profile().CustomerMap()["active_personal"]; ap != "" {
					sameAsNonexistentUnder(t, reach, ck, http.MethodGet, ap, "", "GET /customers/{active_personal} with keys.child")
				}
			},
		},
	}
}

// endCustomersOf reads the direct end customers of customer with c (GET
// /customers/{id}/end-customers): the ids whose parent_customer_id is
// customer. Nothing is judged here; a list not served or not readable is
// none.
func endCustomersOf(t *check.T, c *client.Client, customer string) []string {
	r := t.Do(c, client.Request{Method: http.MethodGet, Path: api.P + "/customers/" + customer + "/end-customers"})
	if r.Status != http.StatusOK {
		t.Logf("GET /customers/{child}/end-customers: status %d; the child is taken to have no end customers", r.Status)
		return nil
	}
	m, err := r.JSON()
	if err != nil {
		return nil
	}
	data, _ := m["data"].(map[string]any)
	list, _ := data["end_customers"].([]any)
	var ids []string
	for _, x := range list {
		e, _ := x.(map[string]any)
		if id, _ := e["id"].(string); id != "" && e["parent_customer_id"] == customer {
			ids = append(ids, id)
		}
	}
	return ids
}
