package pagination

import (
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/suites/api"
	"github.com/touchstone-harness/touchstone/suites/fresh"
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
	// create adds one row to the list with the list's key and returns its
	// id; nil when rows cannot be added through the API. It is used to put
	// rows with equal created_at on a standing virtual clock.
	create func(t *check.T) string
}

var pagedLists = []pagedList{
	{
		name: "customers", rule: "PAGE-018", items: "customers", key: "tenant",
		path:       func(*check.T) string { return api.P + "/customers" },
		empty:      func(t *check.T) (*client.Client, string) { return t.Client("unbound"), api.P + "/customers" },
		emptyNeeds: []string{"keys.unbound"},
		create:     createCustomer,
	},
	{
		name: "banking-deposits", rule: "PAGE-019", items: "deposits", key: "tenant", needs: []string{"customers.active_personal"},
		path: func(t *check.T) string { return api.Customer(t.Customer("active_personal")) + "/banking/deposits" },
	},
	// Next lists, one line each when served.
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
}

var unpagedLists = []unpagedList{
	{
		name: "end-customers", rules: []string{"SUB-007"}, items: "end_customers", key: "tenant",
		needs: []string{"customers.parent", "customers.child"},
		path:  func(t *check.T) string { return api.P + "/customers/" + t.Customer("parent") + "/end-customers" },
	},
}

// createCustomer creates a fresh Draft customer to feed a list.
func createCustomer(t *check.T) string {
	id, _ := fresh.Customer(t)
	return id
}
