package subcustomers

import (
	"net/http"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// balanceChecks are the checks of balance.go.
func balanceChecks() []check.Check {
	return []check.Check{
		{
			ID:    "subcustomers/balance",
			Title: "GET end-customers/{id}/balance returns total_amount and asset_scale",
			Rules: []string{"SUB-014", "PAGE-016"},
			Needs: []string{"keys.tenant", "customers.parent", "customers.child"},
			Run: func(t *check.T) {
				d := shape.EnvelopeAnswer(t, get(t, "tenant", base(t.Customer("parent"))+"/"+t.Customer("child")+"/balance"), shape.Want{Rule: "SUB-014", Status: http.StatusOK})
				shape.Int(t, "SUB-014", d, "total_amount")
				if s := shape.Int(t, "SUB-014", d, "asset_scale"); s < 0 {
					t.Fatalf("SUB-014", "asset_scale is %d, want a non-negative integer", s)
				}
				if _, ok := d["pagination"]; ok {
					t.Fatalf("PAGE-016", "the balance read carries pagination; it is unpaged")
				}
			},
		},
	}
}
