package accounts

import (
	"net/http"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/fresh"
)

// Issuing a child's account needs the end-customer programme on for both
// the tenant and the parent (document 1, Endpoints / Common rules): with
// the tenant's off and the parent's on, in a world where nothing else
// refuses (the child Active, the parent holding a Completed GBP account),
// the issuance is 403 sub_customer_onboarding_disabled.

// nestedTenantProgrammeChecks are the checks of nested_tenant_programme.go.
func nestedTenantProgrammeChecks() []check.Check {
	return []check.Check{
		{
			ID:         "accounts/nested-tenant-programme-off",
			Title:      "With the tenant's end-customer programme off and the parent's on, issuing an Active child's GBP account is 403 sub_customer_onboarding_disabled",
			Rules:      []string{"SUB-020", "FIAT-022", "SUB-005", "CUST-022"},
			Labels:     []string{check.Mutating, check.NeedsControl, check.Alone},
			Needs:      []string{"keys.tenant"},
			ControlWhy: "switches the tenant's end-customer programme off (a tenant-wide setting, so the check runs alone) while the parent's stays on",
			Run: func(t *check.T) {
				parent := fresh.Activated(t, "FIAT-022")
				fresh.Programme(t, parent, true)
				child := newChild(t, parent)
				fresh.Staff(t, child, "Active")
				completedAccount(t, parent, "GBP")
				if err := t.Control().Call(t.Context(), http.MethodPost, "/customers/"+parent+"/programme", map[string]any{"enabled": false, "level": "tenant"}, nil); err != nil {
					t.NoVerdict(err)
				}
				defer func() {
					if err := t.Control().Call(t.Context(), http.MethodPost, "/customers/"+parent+"/programme", map[string]any{"enabled": true, "level": "tenant"}, nil); err != nil {
						t.Logf("could not switch the tenant's end-customer programme back on: %v", err)
					}
				}()
				fresh.Gated(t, "SUB-020", openNested(t, parent, child, "GBP"))
			},
		},
	}
}
