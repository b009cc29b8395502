package auth

// Document 2, Authentication 8 and 11: a key issued to an end customer of
// the integrator is subject-bound to just that end customer. Its /me names
// the child with no delegated customers (one level only: a child onboards no
// children), its list holds only the child, and its parent, like any other
// customer, is a 404 byte-identical to a nonexistent id.

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
			ID:             "auth/child-key-bound-to-child",
			FailedAuthHold: 3,
			Title:          "a key issued to an end customer is subject-bound to just it: /me names the child, its list holds only the child, its parent is 404 like a nonexistent id",
			Rules:          []string{"BIND-021", "BIND-006", "BIND-008", "BIND-001", "BIND-017", "BIND-018", "ME-003", "ME-002", "ME-004", "ERR-004"},
			Needs:          []string{"keys.child", "customers.child", "customers.parent"},
			Run: func(t *check.T) {
				ck := t.Client("child")
				child, parent := t.Customer("child"), t.Customer("parent")
				t.SpendAuthFailures(1)
				data, ids := identity(t, "child")
				if got := data["subject_binding"]; got != "subject" {
					t.Errorf("BIND-021", "GET /me with keys.child: subject_binding is %v, want \"subject\" (a key issued to an end customer is subject-bound)", got)
				}
				if got := data["customer_id"]; got != child {
					t.Errorf("BIND-021", "GET /me with keys.child: customer_id is %v, want customers.child %s", got, child)
				}
				if len(ids) != 0 {
					t.Errorf("ME-003", "GET /me with keys.child: delegated_customer_ids is %v, want empty (an end customer has no end customers of its own)", ids)
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
				if total > 1 {
					t.Errorf(list, "GET /customers with keys.child reports total %d; the key is bound to just the end customer", total)
				}
				if !slices.Contains(listed, child) {
					t.Errorf(list, "GET /customers with keys.child lacks customers.child %s", child)
				}
				for _, id := range listed {
					if id != child {
						t.Errorf(list, "GET /customers with keys.child lists %s; the key is bound to just the end customer", id)
						break
					}
				}
				// The parent is not reachable: 404 byte-identical to nonexistent.
				t.SpendAuthFailuresAtMost(0, 3) // should any be refused at the key step
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
