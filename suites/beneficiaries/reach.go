package beneficiaries

import (
	"net/http"

	"github.com/google/uuid"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// reachChecks are the checks of reach.go.
func reachChecks() []check.Check {
	return []check.Check{
		{
			ID:    "beneficiaries/not-mine-404",
			Title: "Another customer's beneficiary read through this customer is a 404 byte-identical to a nonexistent beneficiary",
			Rules: []string{"BIND-020"},
			Needs: []string{"keys.tenant", "customers.active_personal", "customers.active_business", "beneficiaries.gbp"},
			Run: func(t *check.T) {
				other := fresh.Beneficiaries(t.Customer("active_business"))
				// The beneficiary exists, for active_personal.
				shape.StatusAnswer(t, get(t, "tenant", fresh.Beneficiaries(t.Customer("active_personal"))+"/"+t.Beneficiary("gbp")), shape.Want{Rule: "BIND-020", Status: http.StatusOK})
				mine := get(t, "tenant", other+"/"+t.Beneficiary("gbp"))
				shape.FlatAnswer(t, mine, shape.Want{Rule: "BIND-020", Status: http.StatusNotFound})
				none := get(t, "tenant", other+"/"+uuid.NewString())
				shape.FlatAnswer(t, none, shape.Want{Rule: "BIND-020", Status: http.StatusNotFound})
				shape.SameResponse(t, "BIND-020", mine, none, "another customer's beneficiary and a nonexistent one")
			},
		},
	}
}
