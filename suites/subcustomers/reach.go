package subcustomers

import (
	"net/http"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// reachChecks are the checks of reach.go.
func reachChecks() []check.Check {
	return []check.Check{
		{
			ID:     "subcustomers/subject-key-reach",
			Title:  "The parent's subject key reaches its children and their nested routes; a customer that is not its child is 404",
			Rules:  []string{"BIND-006", "BIND-002", "BIND-003", "SUB-024", "BIND-001", "SUB-005"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.subject", "customers.parent", "customers.child", "customers.active_personal"},
			Run: func(t *check.T) {
				parent, child, stranger := t.Customer("parent"), t.Customer("child"), t.Customer("active_personal")
				own := createChild(t, "subject", parent, "Personal")
				for _, id := range []string{child, own} {
					d := shape.EnvelopeAnswer(t, get(t, "subject", base(parent)+"/"+id), shape.Want{Rule: "BIND-006", Status: http.StatusOK})
					endCustomer(t, "SUB-024", d, parent)
					c := shape.EnvelopeAnswer(t, get(t, "subject", api.P+"/customers/"+id), shape.Want{Rule: "BIND-006", Status: http.StatusOK})
					if c["id"] != id {
						t.Fatalf("BIND-006", "the subject key's read of its child %s returned id %v", id, c["id"])
					}
					// The child's onboarding-status route acts on the child.
					s := shape.EnvelopeAnswer(t, get(t, "subject", api.P+"/customers/"+id+"/onboarding/status"), shape.Want{Rule: "BIND-003", Status: http.StatusOK})
					if s["customer_status"] != c["status"] {
						t.Fatalf("BIND-003", "the child's onboarding/status says customer_status %v, the child is %v", s["customer_status"], c["status"])
					}
				}
				// Unreachable is 404, never 403 (a 403 fails BIND-001, not the
				// reach).
				unreachable := func(r *client.Response) {
					if r.Status == http.StatusForbidden {
						t.FatalAt(r, "BIND-001", "status 403 for a customer the subject key cannot act for; it is 404, never 403; body: %s", shape.Clip(r.Body))
					}
					shape.FlatAnswer(t, r, shape.Want{Rule: "BIND-006", Status: http.StatusNotFound})
				}
				// On end-customers routes {customerId} is the parent: the key
				// reaches customers.child, yet its own new child is not an
				// end customer of customers.child.
				r := get(t, "subject", base(child)+"/"+own)
				if r.Status == http.StatusForbidden {
					t.FatalAt(r, "BIND-001", "status 403 for a customer the subject key cannot act for; it is 404, never 403; body: %s", shape.Clip(r.Body))
				}
				shape.StatusAnswer(t, r, shape.Want{Rule: "BIND-002", Status: http.StatusNotFound, What: "GET end-customers/{id} under a customer that is not the child's parent"})
				// Not a child of the parent: unreachable through the parent.
				unreachable(get(t, "subject", base(parent)+"/"+stranger))
				// Another customer's end-customer routes: unreachable.
				unreachable(get(t, "subject", base(stranger)))
				unreachable(get(t, "subject", api.P+"/customers/"+stranger))
			},
		},
	}
}
