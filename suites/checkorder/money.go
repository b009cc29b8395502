package checkorder

// Document 2, Errors / Check order: step 7 (body binding: 400 with an
// errors map) comes before step 8 (the operation itself: its
// 404/409/422/403). On the body-taking customer routes the operation's
// refusals include the customer lookup (flat 404), the money precondition
// (409 kyc_or_kyb_not_approved, which money routes "begin with") and the
// policy gates: a body that cannot be bound is the binding 400 before any
// of them, whoever the customer is.

import (
	"net/http"

	"github.com/google/uuid"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
)

// moneyRoutes are the body-taking routes under a customer whose operation
// refuses a customer that is not Active (the money precondition, or for a
// payout batch 422 subject_not_active).
var moneyRoutes = []string{
	"/banking/withdrawals",
	"/crypto/withdrawals",
	"/banking/conversion-requests",
	"/banking/accounts",
	"/banking/beneficiaries",
	"/payout-batches",
}

// customerBodyRoutes are every body-taking route under a customer: the
// money routes and the whitelist.
var customerBodyRoutes = append(append([]string{}, moneyRoutes...), "/crypto/withdrawal-addresses")

// childBodyRoutes are the body-taking routes under a parent's child.
var childBodyRoutes = []string{"/accounts", "/internal-transfers", "/consolidate"}

func postMalformed(t *check.T, c *client.Client, path string) *client.Response {
	return t.Do(c, client.Request{Method: http.MethodPost, Path: path, Body: malformedJSON, Header: jsonHeader(), IdempotencyKey: t.NewKey()})
}

// moneyChecks are the checks of money.go.
func moneyChecks() []check.Check {
	return []check.Check{
		{
			ID:    "checkorder/binding-before-customer-lookup",
			Title: "on every body-taking customer route (money routes, whitelist, a child's accounts, transfers, consolidation) a malformed body for an unknown customer is the binding 400, not 404",
			Rules: []string{"ORDER-016"},
			Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				c := t.Client("tenant")
				unknown := api.P + "/customers/" + uuid.NewString()
				for _, route := range customerBodyRoutes {
					bindingError(t, "ORDER-016", postMalformed(t, c, unknown+route), "POST /customers/{unknown}"+route+" with a malformed JSON body")
				}
				parent := t.Profile().CustomerMap()["parent"]
				if parent == "" {
					parent = uuid.NewString()
				}
				child := api.P + "/customers/" + parent + "/end-customers/" + uuid.NewString()
				for _, route := range childBodyRoutes {
					bindingError(t, "ORDER-016", postMalformed(t, c, child+route), "POST /customers/{parent}/end-customers/{unknown}"+route+" with a malformed JSON body")
				}
			},
		},
		{
			ID:    "checkorder/binding-before-money-precondition",
			Title: "a malformed body on a money route for a customer that is not Active is the binding 400, not 409 kyc_or_kyb_not_approved (binding is step 7, the precondition step 8)",
			Rules: []string{"ORDER-020"},
			Needs: []string{"keys.tenant", "customers.draft"},
			Run: func(t *check.T) {
				c := t.Client("tenant")
				draft := api.P + "/customers/" + t.Customer("draft")
				for _, route := range moneyRoutes {
					bindingError(t, "ORDER-020", postMalformed(t, c, draft+route), "POST /customers/{draft}"+route+" with a malformed JSON body")
				}
			},
		},
	}
}
