package pagination

import (
	"encoding/json"
	"net/http"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// pagedList is one paged list route (document 1, Pagination). Every check
// in paged.go runs once per row of pagedLists, so a newly served list is
// one more row here.
type pagedList struct {
	// name is the slug used in check ids ("customers" gives
	// pagination/customers-defaults, ...).
	name string
	// rule is the catalogue id stating that this list is paged.
	rule string
	// items is the data member holding the list; "" means the single
	// array member other than pagination (PAGE-025).
	items string
	// key is the profile key the list is read with; needs are the profile
	// fixtures path uses (besides the key).
	key   string
	needs []string
	path  func(t *check.T) string
	// empty returns a client and path whose list is empty, for
	// last_page on an empty list; nil when the target offers none.
	empty      func(t *check.T) (*client.Client, string)
	emptyNeeds []string
	// emptyRules are the rules empty's setup fails under (creating a
	// customer whose list is empty: CUST-022).
	emptyRules []string
	// create adds one row to the list with the list's key and returns its
	// id; nil when rows cannot be added through the API. It is used to put
	// rows with equal created_at on a standing virtual clock.
	create func(t *check.T) string
	// createRules are the rules create fails under (the operation that
	// adds the row, and the shape of its answer).
	createRules []string
	// written says other checks add rows to the list as they run (checks
	// run side by side): its checks, which compare pages and totals read
	// one after the other, run alone.
	written bool
	// group is the serial group of the checks that write it (the
	// scheduler never runs two checks of one group at once).
	group string
}

var pagedLists = []pagedList{
	{
		name: "customers", rule: "PAGE-018", items: "customers", key: "tenant",
		path:        func(*check.T) string { return api.P + "/customers" },
		empty:       func(t *check.T) (*client.Client, string) { return t.Client("unbound"), api.P + "/customers" },
		emptyNeeds:  []string{"keys.unbound"},
		create:      createCustomer,
		createRules: []string{"CUST-022"},
		written:     true,
	},
	{
		name: "banking-deposits", rule: "PAGE-019", items: "deposits", key: "tenant", needs: []string{"customers.active_personal"},
		path: func(t *check.T) string { return api.Customer(t.Customer("active_personal")) + "/banking/deposits" },
	},
	{
		name: "conversion-requests", rule: "PAGE-023", key: "tenant", needs: []string{"customers.exchange"},
		path: func(t *check.T) string { return conversionRequests(t.Customer("exchange")) },
		empty: func(t *check.T) (*client.Client, string) {
			id, _ := fresh.Customer(t)
			return t.Client("tenant"), conversionRequests(id)
		},
		emptyRules:  []string{"CUST-022"},
		create:      createConversion,
		createRules: []string{"CONV-014", "CONV-004"},
		written:     true, // the exchange checks convert for customers.exchange
		group:       "conversions",
	},
	// Crypto lists (suites/crypto): the crypto fixture customer's.
	{
		name: "crypto-withdrawals", rule: "PAGE-022", items: "withdrawals", key: "tenant", needs: []string{"crypto.customer", "crypto.whitelist_btc"},
		path:        func(t *check.T) string { return api.Customer(t.Crypto("customer")) + "/crypto/withdrawals" },
		create:      createCryptoWithdrawal,
		createRules: []string{"CWD-021"},
		written:     true, // the crypto withdrawal checks withdraw for crypto.customer
		group:       "crypto withdrawals",
	},
	{
		name: "crypto-deposits", rule: "PAGE-020", items: "deposits", key: "tenant", needs: []string{"crypto.customer"},
		path: func(t *check.T) string { return api.Customer(t.Crypto("customer")) + "/crypto/deposits" },
	},
}

// unpagedList is a list documented as unpaged: all rows in one response,
// no data.pagination, page and limit ignored (PAGE-016, PAGE-017).
type unpagedList struct {
	name  string
	rules []string
	items string
	key   string
	needs []string
	path  func(t *check.T) string
	group string // see pagedList.group
}

var unpagedLists = []unpagedList{
	{
		name: "crypto-wallets", rules: []string{"CRYP-019"}, items: "wallets", key: "tenant", needs: []string{"crypto.customer"},
		path: func(t *check.T) string { return api.Customer(t.Crypto("customer")) + "/crypto/wallets" },
	},
	{
		name: "end-customers", rules: []string{"SUB-007"}, items: "end_customers", key: "tenant",
		needs: []string{"customers.parent", "customers.child"},
		group: "end customers",
		path:  func(t *check.T) string { return api.P + "/customers/" + t.Customer("parent") + "/end-customers" },
	},
}

// createCustomer creates a fresh Draft customer to feed a list.
func createCustomer(t *check.T) string {
	id, _ := fresh.Customer(t)
	return id
}

// conversionRequests is a customer's conversion-requests list.
func conversionRequests(customerID string) string {
	return api.Customer(customerID) + "/banking/conversion-requests"
}

// createConversion converts 1.00 GBP to EUR for customers.exchange (setup
// under CONV-014) and returns the conversion id.
func createConversion(t *check.T) string {
	r := t.Do(t.Client("tenant"), client.Request{Method: http.MethodPost, Path: conversionRequests(t.Customer("exchange")),
		JSON: map[string]any{"from_currency": "GBP", "to_currency": "EUR", "amount_minor": 100}, IdempotencyKey: t.NewKey()})
	d := fresh.Setup(t, "CONV-014", r, "create a conversion request")
	if _, ok := d["conversion_request"].(map[string]any); !ok {
		t.FatalAt(r, "CONV-014", "POST conversion-requests answered no data.conversion_request object: data has %v", d)
	}
	// The answer is data.conversion_request with id and status (CONV-004).
	shape.String(t, "CONV-004", d, "conversion_request.status")
	return shape.String(t, "CONV-004", d, "conversion_request.id")
}

// createCryptoWithdrawal sends a one-satoshi BTC withdrawal of the crypto
// fixture customer to its Active whitelist entry and returns its id.
func createCryptoWithdrawal(t *check.T) string {
	r := t.Do(t.Client("tenant"), client.Request{Method: "POST", Path: api.Customer(t.Crypto("customer")) + "/crypto/withdrawals", IdempotencyKey: t.NewKey(),
		JSON: map[string]any{"asset": "BTC", "amount": json.Number("0.00000001"), "whitelisted_address_id": t.Crypto("whitelist_btc"), "description": "TS page"}})
	d := fresh.Setup(t, "CWD-021", r, "submit a crypto withdrawal")
	w, _ := d["withdrawal"].(map[string]any)
	id, _ := w["id"].(string)
	if id == "" {
		t.FatalAt(r, "CWD-021", "the crypto withdrawal answer has no data.withdrawal.id")
	}
	return id
}
