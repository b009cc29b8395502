package beneficiaries

import (
	"maps"
	"net/http"
	"slices"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// createChecks are the checks of create.go.
func createChecks() []check.Check {
	return slices.Concat(
		creationChecks(),
		resultPerRecordChecks(),
		unsupportedCurrencyAndSchemeChecks(),
	)
}

// resultPerRecordChecks returns check beneficiaries/create-result-per-record
// (one of createChecks).
func resultPerRecordChecks() []check.Check {
	return []check.Check{
		{
			ID:     "beneficiaries/create-result-per-record",
			Title:  "For a customer with no beneficiaries, one create answers exactly the records it made: data.beneficiaries holds one result per record the list then shows",
			Rules:  []string{"BEN-005", "BEN-020", "BEN-021", "CUST-022"},
			Labels: []string{check.Mutating, check.NeedsControl},
			ControlWhy: "a customer with no beneficiary of its own, made Active through the control API (document 1, States / Customer lifecycle): " +
				"the profile's customers already hold beneficiaries other checks create beside this one",
			Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				cust := fresh.Activated(t, "CUST-022")
				r := fresh.PostBeneficiary(t, cust, fresh.GBPPayee("Counted Payee"))
				answered := map[any]bool{}
				for _, x := range shape.Array(t, "BEN-021", fresh.Success(t, "BEN-021", r), "beneficiaries") {
					b, _ := x.(map[string]any)
					answered[b["id"]] = true
				}
				l := shape.EnvelopeAnswer(t, get(t, "tenant", fresh.Beneficiaries(cust)), shape.Want{Rule: "BEN-020", Status: http.StatusOK})
				made := map[any]bool{}
				for _, x := range shape.Array(t, "BEN-020", l, "beneficiaries") {
					if b, ok := x.(map[string]any); ok {
						made[b["id"]] = true
					}
				}
				for id := range made {
					if !answered[id] {
						t.FatalAt(r, "BEN-005", "the create made record %v (listed) but answered no result for it: %d results for %d records; one result per selected provider is due", id, len(answered), len(made))
					}
				}
				for id := range answered {
					if !made[id] {
						t.Fatalf("BEN-020", "the create answered result %v, which the beneficiary list does not hold", id)
					}
				}
			},
		},
	}
}

// creationChecks are the creation checks of create.go (see createChecks):
// what a create answers and stores (pending, one result per provider), the
// details a create requires (PROVIDER_B name attributes, bank details), and
// the profile's seeded beneficiaries.
func creationChecks() []check.Check {
	return []check.Check{
		{
			ID:     "beneficiaries/create-pending-one-per-provider",
			Title:  "POST beneficiaries returns data.beneficiaries, one record per provider, each PendingApproval with its bank registration and schemes",
			Rules:  []string{"BEN-005", "BEN-021", "BEN-013", "BEN-006", "BEN-008", "BEN-020"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant", "customers.active_personal"},
			Run: func(t *check.T) {
				cust := t.Customer("active_personal")
				r := fresh.PostBeneficiary(t, cust, fresh.GBPPayee("Grace Payee"))
				d := fresh.Success(t, "BEN-021", r)
				// The array itself is BEN-021's (what the route returns);
				// its results, one per selected provider, are BEN-005's.
				arr := shape.Array(t, "BEN-021", d, "beneficiaries")
				if len(arr) == 0 {
					t.FatalAt(r, "BEN-005", "data.beneficiaries is empty; one result per selected provider is due")
				}
				ids, providers := map[string]bool{}, map[any]bool{}
				for i, x := range arr {
					b, _ := x.(map[string]any)
					id := shape.String(t, "BEN-005", b, "id")
					shape.String(t, "BEN-005", b, "status")
					if ids[id] {
						t.FatalAt(r, "BEN-005", "data.beneficiaries[%d] repeats id %s", i, id)
					}
					ids[id] = true
					if p, ok := b["provider"]; ok && p != nil {
						if providers[p] {
							t.FatalAt(r, "BEN-005", "data.beneficiaries holds two results for provider %v; one per provider is due", p)
						}
						providers[p] = true
					}
				}
				for _, id := range slices.Sorted(maps.Keys(ids)) {
					b := read(t, "BEN-020", cust, id)
					if b["id"] != id {
						t.Fatalf("BEN-020", "GET beneficiaries/%s returned id %v", id, b["id"])
					}
					if a := approvalStatus(t, b); a != "PendingApproval" {
						t.Fatalf("BEN-013", "a newly created beneficiary reads approval_status %q, want PendingApproval", a)
					}
					shape.String(t, "BEN-008", b, "bank_registration.status")
					shape.Array(t, "BEN-008", b, "supported_schemes")
				}
				l := shape.EnvelopeAnswer(t, get(t, "tenant", fresh.Beneficiaries(cust)), shape.Want{Rule: "BEN-020", Status: http.StatusOK})
				listed := map[any]bool{}
				for _, x := range shape.Array(t, "BEN-020", l, "beneficiaries") {
					if b, ok := x.(map[string]any); ok {
						listed[b["id"]] = true
					}
				}
				for _, id := range slices.Sorted(maps.Keys(ids)) {
					if !listed[id] {
						t.Fatalf("BEN-020", "the beneficiary list does not hold the new beneficiary %s", id)
					}
				}
			},
		},
		{
			ID:     "beneficiaries/provider-b-name-attributes",
			Title:  "A PROVIDER_B payee needs first and last name (personal) or a company name in attributes; without them the create is refused",
			Rules:  []string{"BEN-002", "BEN-003", "BEN-004"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant", "customers.active_personal"},
			Run: func(t *check.T) {
				cust := t.Customer("active_personal")
				if withProvider(fresh.NewBeneficiaries(t, cust, fresh.GBPPayee("Probe Payee")), "PROVIDER_B") == nil {
					t.Skipf("the target selects no PROVIDER_B for a GBP beneficiary of customers.active_personal")
				}
				body := without(fresh.GBPPayee("Nameless Payee"), "attributes")
				r := fresh.PostBeneficiary(t, cust, body)
				refused(t, "BEN-002", r, "a PROVIDER_B payee with no name attributes")
				shape.EnvelopeAnswer(t, r, shape.Want{Rule: "BEN-004", Status: http.StatusUnprocessableEntity, Code: "beneficiary_details_incomplete"})
				body["attributes"] = map[string]any{"beneficiary_first_name": "Only"}
				refused(t, "BEN-002", fresh.PostBeneficiary(t, cust, body), "a PROVIDER_B personal payee with a first name and no last name")
				body["attributes"] = map[string]any{"beneficiary_company_name": "Payee Trading Ltd"}
				d := fresh.Success(t, "BEN-003", fresh.PostBeneficiary(t, cust, body))
				if len(shape.Array(t, "BEN-003", d, "beneficiaries")) == 0 {
					t.Fatalf("BEN-003", "a company payee with beneficiary_company_name returned no beneficiaries")
				}
			},
		},
		{
			ID:     "beneficiaries/bank-details-required",
			Title:  "A GBP beneficiary needs sort_code and account_number, a EUR one an IBAN; without them 422 beneficiary_details_incomplete",
			Rules:  []string{"BEN-001", "ERR-078"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant", "customers.active_personal"},
			Run: func(t *check.T) {
				cust := t.Customer("active_personal")
				gbp := fresh.GBPPayee("Detail Payee")
				for _, missing := range []string{"sort_code", "account_number"} {
					r := fresh.PostBeneficiary(t, cust, without(gbp, missing))
					refused(t, "BEN-001", r, "a GBP beneficiary without "+missing)
					shape.EnvelopeAnswer(t, r, shape.Want{Rule: "BEN-001", Status: http.StatusUnprocessableEntity, Code: "beneficiary_details_incomplete"})
				}
				eur := without(gbp, "sort_code", "account_number")
				eur["currency"], eur["rail"] = "EUR", "SCT"
				r := fresh.PostBeneficiary(t, cust, eur)
				refused(t, "BEN-001", r, "a EUR beneficiary without an IBAN")
				shape.EnvelopeAnswer(t, r, shape.Want{Rule: "ERR-078", Status: http.StatusUnprocessableEntity, Code: "beneficiary_details_incomplete"})
			},
		},
		{
			ID:    "beneficiaries/seeded-approved",
			Title: "The profile's beneficiaries (gbp, eur, usd) read Approved in their currency; gbp_pending reads PendingApproval",
			Rules: []string{"BEN-006", "BEN-020"},
			Needs: []string{"keys.tenant", "customers.active_personal", "beneficiaries.gbp", "beneficiaries.eur", "beneficiaries.usd"},
			Run: func(t *check.T) {
				cust := t.Customer("active_personal")
				currencies := map[string]string{"gbp": "GBP", "eur": "EUR", "usd": "USD"}
				for _, name := range slices.Sorted(maps.Keys(currencies)) {
					cur := currencies[name]
					b := read(t, "BEN-020", cust, t.Beneficiary(name))
					if a := approvalStatus(t, b); a != "Approved" {
						t.Fatalf("BEN-006", "beneficiaries.%s reads approval_status %q, want Approved (the profile names it approved)", name, a)
					}
					if c, ok := b["currency"]; ok && c != cur {
						t.Fatalf("BEN-006", "beneficiaries.%s reads currency %v, want %s", name, c, cur)
					}
				}
			},
		},
	}
}

// approvalValues are the documented values of approval_status (BEN-006).
var approvalValues = []string{"PendingApproval", "Approved", "Rejected"}

// approvalStatus reads a beneficiary's approval_status and stops under
// BEN-006 when it is not one of the documented values: a value outside
// them is that rule's failure, not a wrong state.
func approvalStatus(t *check.T, b map[string]any) string {
	a := shape.String(t, "BEN-006", b, "approval_status")
	if !slices.Contains(approvalValues, a) {
		t.Fatalf("BEN-006", "approval_status is %q, want one of %v", a, approvalValues)
	}
	return a
}

// unsupportedCurrencyAndSchemeChecks returns check
// beneficiaries/unsupported-currency-and-scheme (one of createChecks).
func unsupportedCurrencyAndSchemeChecks() []check.Check {
	return []check.Check{
		{
			ID:     "beneficiaries/unsupported-currency-and-scheme",
			Title:  "A beneficiary in an unsupported currency is 422 unsupported_currency; a rail the currency has no scheme for is 422 unsupported_payment_scheme",
			Rules:  []string{"ERR-075", "ERR-077"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant", "customers.active_personal"},
			Run: func(t *check.T) {
				cust := t.Customer("active_personal")
				body := fresh.GBPPayee("Exotic Payee")
				body["currency"] = "XTS" // ISO 4217 code reserved for testing
				shape.EnvelopeAnswer(t, fresh.PostBeneficiary(t, cust, body), shape.Want{Rule: "ERR-075", Status: http.StatusUnprocessableEntity, Code: "unsupported_currency"})
				body = fresh.GBPPayee("Card Rail Payee")
				body["rail"] = "CARD_PUSH_TS"
				shape.EnvelopeAnswer(t, fresh.PostBeneficiary(t, cust, body), shape.Want{Rule: "ERR-077", Status: http.StatusUnprocessableEntity, Code: "unsupported_payment_scheme"})
			},
		},
	}
}
