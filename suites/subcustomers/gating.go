package subcustomers

import (
	"net/http"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// gatingChecks are the checks of gating.go.
func gatingChecks() []check.Check {
	return []check.Check{
		{
			ID:     "subcustomers/gated-without-programme",
			Title:  "Creating a child of a customer without the end-customer programme is 403 sub_customer_onboarding_disabled; reads stay available",
			Rules:  []string{"SUB-018", "ERR-051", "ERR-052", "SUB-021"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant", "customers.active_business"},
			Run: func(t *check.T) {
				plain := t.Customer("active_business")
				fresh.GatedWhere(t, "SUB-018", postChild(t, "tenant", plain, childBody("Personal", newRef(), "Touchstone Gated")))
				d := shape.EnvelopeAnswer(t, get(t, "tenant", base(plain)), shape.Want{Rule: "SUB-021", Status: http.StatusOK})
				list := shape.Array(t, "SUB-021", d, "end_customers")
				if len(list) != 0 {
					t.Fatalf("SUB-018", "after the refused create customers.active_business lists %d children", len(list))
				}
			},
		},
		{
			ID:     "subcustomers/no-grandchildren",
			Title:  "A sub-customer cannot create sub-customers",
			Rules:  []string{"SUB-001", "SUB-002"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant", "customers.child"},
			Run: func(t *check.T) {
				child := t.Customer("child")
				r := postChild(t, "tenant", child, childBody("Personal", newRef(), "Touchstone Grandchild"))
				if r.Status/100 == 2 {
					t.Fatalf("SUB-001", "POST end-customers under the sub-customer %s answered %d: a grandchild was created", child, r.Status)
				}
				l := get(t, "tenant", base(child))
				if l.Status == http.StatusOK {
					d := shape.EnvelopeAnswer(t, l, shape.Want{Rule: "SUB-002", Status: http.StatusOK})
					if n := len(shape.Array(t, "SUB-002", d, "end_customers")); n != 0 {
						t.Fatalf("SUB-002", "the sub-customer %s lists %d children; only one level exists", child, n)
					}
				}
			},
		},
		{
			ID:         "subcustomers/no-grandchildren-programme-on",
			Title:      "A sub-customer whose own programme setting is on still cannot create sub-customers: 403 sub_customer_onboarding_disabled",
			Rules:      []string{"SUB-001", "CUST-022"},
			Labels:     []string{check.Mutating, check.NeedsControl},
			Needs:      []string{"keys.tenant"},
			ControlWhy: "switches the end-customer programme on for a sub-customer of the check's own, so only being a sub-customer can refuse the grandchild",
			Run: func(t *check.T) {
				// A parent and child of our own; the child's programme
				// setting on, so the programme gate cannot refuse first.
				parent := fresh.Activated(t, "SUB-001")
				fresh.Programme(t, parent, true)
				child := createChild(t, "tenant", parent, "Personal")
				fresh.Programme(t, child, true)
				fresh.Gated(t, "SUB-001", postChild(t, "tenant", child, childBody("Personal", newRef(), "Touchstone Grandchild")))
			},
		},
		{
			ID:         "subcustomers/gated-tenant-programme-off",
			Alone:      check.Always,
			Title:      "With the tenant's end-customer programme off, creating a child of a parent that holds the programme is 403 sub_customer_onboarding_disabled",
			Rules:      []string{"SUB-018", "CUST-022"},
			Labels:     []string{check.Mutating, check.NeedsControl, check.Alone},
			Needs:      []string{"keys.tenant"},
			ControlWhy: "switches the tenant's end-customer programme off (a tenant-wide setting, so the check runs alone) while the parent's stays on",
			Run: func(t *check.T) {
				parent := fresh.Activated(t, "SUB-018")
				fresh.Programme(t, parent, true)
				if err := t.Control().Call(t.Context(), http.MethodPost, "/customers/"+parent+"/programme", map[string]any{"enabled": false, "level": "tenant"}, nil); err != nil {
					t.NoVerdict(err)
				}
				defer func() {
					if err := t.Control().Call(t.Context(), http.MethodPost, "/customers/"+parent+"/programme", map[string]any{"enabled": true, "level": "tenant"}, nil); err != nil {
						t.Logf("could not switch the tenant's end-customer programme back on: %v", err)
					}
				}()
				fresh.Gated(t, "SUB-018", postChild(t, "tenant", parent, childBody("Personal", newRef(), "Touchstone Tenant Gated")))
			},
		},
		{
			ID:     "subcustomers/programme-revoked",
			Title:  "With the programme revoked, creating and verifying children is 403 sub_customer_onboarding_disabled while reads of existing children stay available",
			Rules:  []string{"SUB-018", "SUB-019", "SUB-021", "SUB-025", "ERR-051", "ERR-052", "CUST-022"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.tenant"},
			Run: func(t *check.T) {
				// A parent of our own: an Active customer given the programme.
				parent := fresh.Activated(t, "SUB-018")
				fresh.Programme(t, parent, true)
				child := createChild(t, "tenant", parent, "Personal")
				fresh.Programme(t, parent, false)
				fresh.GatedWhere(t, "SUB-018", postChild(t, "tenant", parent, childBody("Personal", newRef(), "Touchstone Revoked")))
				fresh.GatedWhere(t, "SUB-019", onboard(t, parent, child, map[string]any{"contact_email": fresh.Email()}))
				d := shape.EnvelopeAnswer(t, get(t, "tenant", base(parent)), shape.Want{Rule: "SUB-021", Status: http.StatusOK})
				list := shape.Array(t, "SUB-021", d, "end_customers")
				if len(list) != 1 {
					t.Fatalf("SUB-021", "after revocation the parent lists %d children, want its 1 existing child", len(list))
				}
				endCustomer(t, "SUB-021", shape.EnvelopeAnswer(t, get(t, "tenant", base(parent)+"/"+child), shape.Want{Rule: "SUB-021", Status: http.StatusOK}), parent)
				shape.EnvelopeAnswer(t, get(t, "tenant", base(parent)+"/"+child+"/balance"), shape.Want{Rule: "SUB-021", Status: http.StatusOK})
				shape.EnvelopeAnswer(t, get(t, "tenant", base(parent)+"/"+child+"/documents"), shape.Want{Rule: "SUB-021", Status: http.StatusOK})
				// The programme is what gates: switched back on, verification starts.
				fresh.Programme(t, parent, true)
				childSession(t, "SUB-025", fresh.Success(t, "SUB-019", onboard(t, parent, child, map[string]any{"contact_email": fresh.Email()})))
			},
		},
	}
}
