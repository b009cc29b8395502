// Package fees checks the fee reads (document 1, Endpoints / Fees): the
// tenant's commercial configuration and a customer's effective fees. Their
// bodies are not shown, so only the envelope and an object data are
// asserted (FEE-002).
package fees

import (
	"net/http"

	"github.com/google/uuid"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

func get(t *check.T, key, path string) *client.Response {
	return t.Do(t.Client(key), client.Request{Method: http.MethodGet, Path: path})
}

// feesChecks are the checks of fees.go.
func feesChecks() []check.Check {
	return []check.Check{
		{
			ID:    "fees/commercial-config",
			Title: "GET P/commercial-config is a top-level v1 route answering a 200 envelope with an object data",
			Rules: []string{"FEE-001"},
			Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				shape.EnvelopeAnswer(t, get(t, "tenant", api.P+"/commercial-config"), shape.Want{Rule: "FEE-001", Status: http.StatusOK})
			},
		},
		{
			ID:    "fees/customer-fees",
			Title: "GET P/customers/{id}/fees answers the customer's effective fees: a 200 envelope with an object data, for a customer and for a child",
			Rules: []string{"FEE-003"},
			Needs: []string{"keys.tenant", "customers.active_personal", "customers.child"},
			Run: func(t *check.T) {
				for _, name := range []string{"active_personal", "child"} {
					shape.EnvelopeAnswer(t, get(t, "tenant", api.Customer(t.Customer(name))+"/fees"), shape.Want{Rule: "FEE-003", Status: http.StatusOK})
				}
			},
		},
		{
			ID:    "fees/not-mine-404",
			Title: "GET .../fees of a customer the key cannot act for is the 404 of a nonexistent customer, byte for byte",
			Rules: []string{"FEE-005"},
			Needs: []string{"keys.subject", "customers.parent", "customers.active_personal"},
			Run: func(t *check.T) {
				shape.EnvelopeAnswer(t, get(t, "subject", api.Customer(t.Customer("parent"))+"/fees"), shape.Want{Rule: "FEE-005", Status: http.StatusOK})
				mine := get(t, "subject", api.Customer(t.Customer("active_personal"))+"/fees")
				shape.FlatAnswer(t, mine, shape.Want{Rule: "FEE-005", Status: http.StatusNotFound})
				none := get(t, "subject", api.Customer(uuid.NewString())+"/fees")
				shape.FlatAnswer(t, none, shape.Want{Rule: "FEE-005", Status: http.StatusNotFound})
				shape.SameResponse(t, "FEE-005", mine, none, "another customer's fees and a nonexistent customer's")
			},
		},
	}
}
