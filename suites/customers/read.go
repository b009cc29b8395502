package customers

import (
	"maps"
	"net/http"
	"slices"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// readChecks are the checks of read.go.
func readChecks() []check.Check {
	return []check.Check{
		{
			ID:    "customers/read-fields",
			Title: "GET customers/{id} returns the customer with every documented field",
			Rules: []string{"CUST-010", "CUST-001", "CUST-002", "CUST-003", "CUST-004", "CUST-005", "CUST-006", "CUST-007", "CUST-008"},
			Needs: []string{"keys.tenant", "customers.active_personal", "customers.active_business"},
			Run: func(t *check.T) {
				for _, name := range []string{"active_personal", "active_business"} {
					id := t.Customer(name)
					r := t.Do(t.Client("tenant"), client.Request{Method: http.MethodGet, Path: api.P + "/customers/" + id})
					c := shape.EnvelopeAnswer(t, r, shape.Want{Rule: "CUST-010", Status: http.StatusOK})
					if c["id"] != id {
						t.Fatalf("CUST-010", "GET customers/%s returned id %v", id, c["id"])
					}
					shape.Customer(t, c)
				}
				want := map[string]string{"active_personal": "Personal", "active_business": "Business"}
				for _, name := range slices.Sorted(maps.Keys(want)) {
					ut := want[name]
					c := fresh.Read(t, "CUST-010", t.Customer(name))
					if c["user_type"] != ut {
						t.Errorf("CUST-004", "customers.%s has user_type %v, want %s", name, c["user_type"], ut)
					}
					if c["status"] != "Active" {
						t.Errorf("CUST-006", "customers.%s has status %v, want Active", name, c["status"])
					}
				}
			},
		},
	}
}
