package subcustomers

import (
	"net/http"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
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
				// Not a child of the parent: unreachable through the parent.
				shape.FlatAnswer(t, get(t, "subject", base(parent)+"/"+stranger), shape.Want{Rule: "BIND-006", Status: http.StatusNotFound})
				// Another customer's end-customer routes: unreachable.
				shape.FlatAnswer(t, get(t, "subject", base(stranger)), shape.Want{Rule: "BIND-006", Status: http.StatusNotFound})
				shape.FlatAnswer(t, get(t, "subject", api.P+"/customers/"+stranger), shape.Want{Rule: "BIND-006", Status: http.StatusNotFound})
			},
		},
	}
}
