package onboarding

import (
	"net/http"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// dedicatedChecks are the checks of dedicated.go.
func dedicatedChecks() []check.Check {
	return []check.Check{
		{
			ID:     "onboarding/sub-customer-dedicated-route",
			Title:  "Generic initiate and token for a sub-customer are 409 sub_customer_dedicated_route_required",
			Rules:  []string{"SUB-017", "ERR-053"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant", "customers.child"},
			Run: func(t *check.T) {
				child := t.Customer("child")
				kind := fresh.Kind(t, "SUB-017", fresh.Read(t, "SUB-017", child))
				keys := []string{"tenant"}
				if t.Profile().Key("subject") != "" {
					keys = append(keys, "subject") // the parent's key reaches its child
				}
				for _, key := range keys {
					for _, op := range []string{"initiate", "token"} {
						r := t.Do(t.Client(key), client.Request{Method: http.MethodPost, Path: api.P + "/customers/" + child + "/onboarding/" + kind + "/" + op, IdempotencyKey: t.NewKey()})
						shape.EnvelopeAnswer(t, r, shape.Want{Rule: "SUB-017", Status: http.StatusConflict, Code: "sub_customer_dedicated_route_required"})
					}
				}
			},
		},
	}
}
