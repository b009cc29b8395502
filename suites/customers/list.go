package customers

import (
	"net/http"
	"sort"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// listChecks are the checks of list.go.
func listChecks() []check.Check {
	return []check.Check{
		{
			ID:    "customers/list-shape",
			Title: "GET customers returns data.customers[] of customer records plus data.pagination, and takes limit and page (limit=1&page=2 is page 2 of 1)",
			Rules: []string{"CUST-009", "PAGE-018", "ENV-005", "CUST-001", "CUST-006", "CUST-007"},
			Needs: []string{"keys.tenant", "customers.active_personal"},
			Run: func(t *check.T) {
				r := t.Do(t.Client("tenant"), client.Request{Method: http.MethodGet, Path: api.P + "/customers", Query: map[string][]string{"limit": {"500"}}})
				// A list payload carries the list under a named key inside
				// data (ENV-005); that this list's key is customers is the
				// endpoint's own row (CUST-009).
				if m, err := r.JSON(); err == nil && r.Status == http.StatusOK {
					if _, isList := m["data"].([]any); isList {
						t.FatalAt(r, "ENV-005", "data is the list itself, want an object carrying the list under a named key")
					}
				}
				data := shape.EnvelopeAnswer(t, r, shape.Want{Rule: "CUST-009", Status: http.StatusOK})
				named := false
				for _, v := range data {
					if _, ok := v.([]any); ok {
						named = true
					}
				}
				if !named {
					t.FatalAt(r, "ENV-005", "data carries no list under a named key: data has %v", mapKeys(data))
				}
				if _, ok := data["customers"]; !ok {
					t.FatalAt(r, "CUST-009", "the list is not under the key the endpoint names, data.customers: data has %v", mapKeys(data))
				}
				items := shape.Array(t, "CUST-009", data, "customers")
				if _, ok := data["pagination"].(map[string]any); !ok {
					t.Fatalf("PAGE-018", "data.pagination is %v, want an object", data["pagination"])
				}
				for _, k := range []string{"current_page", "last_page", "per_page", "total"} {
					shape.Int(t, "PAGE-018", data, "pagination."+k)
				}
				if len(items) == 0 {
					t.Fatalf("CUST-009", "GET customers with a tenant key listed no customers; the tenant has several")
				}
				// limit and page: the second page of one is answered as such
				// (which customer it holds moves as others are created).
				pr := t.Do(t.Client("tenant"), client.Request{Method: http.MethodGet, Path: api.P + "/customers", Query: map[string][]string{"limit": {"1"}, "page": {"2"}}})
				pd := shape.EnvelopeAnswer(t, pr, shape.Want{Rule: "CUST-009", Status: http.StatusOK})
				if n := len(shape.Array(t, "CUST-009", pd, "customers")); n != 1 {
					t.FatalAt(pr, "CUST-009", "limit=1&page=2 listed %d customers, want 1 (the tenant has several)", n)
				}
				if cp, pp := shape.Int(t, "CUST-009", pd, "pagination.current_page"), shape.Int(t, "CUST-009", pd, "pagination.per_page"); cp != 2 || pp != 1 {
					t.FatalAt(pr, "CUST-009", "limit=1&page=2 answered current_page %d, per_page %d: want page 2 of 1", cp, pp)
				}
				for i, it := range items {
					c, ok := it.(map[string]any)
					if !ok {
						t.Fatalf("CUST-009", "customers[%d] is %v, want an object", i, it)
					}
					shape.Customer(t, c)
				}
			},
		},
		{
			ID:     "customers/list-does-not-activate",
			Title:  "GET customers never refreshes or activates; GET customers/{id} then activates an approved case",
			Rules:  []string{"LIFE-015", "LIFE-010", "LIFE-011", "CUST-010", "CUST-022"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.tenant"},
			Run: func(t *check.T) {
				id, _ := fresh.Started(t, "LIFE-010")
				if got := fresh.ListStatus(t, "LIFE-015", id); got != "Onboarding" {
					t.Fatalf("LIFE-010", "after initiate the listed status is %q, want Onboarding", got)
				}
				fresh.Decide(t, id, "approved")
				if got := fresh.ListStatus(t, "LIFE-015", id); got != "Onboarding" {
					t.Fatalf("LIFE-015", "after the provider approved, GET customers lists status %q; the list never refreshes, want Onboarding", got)
				}
				// Listing twice more changes nothing either.
				if got := fresh.ListStatus(t, "LIFE-015", id); got != "Onboarding" {
					t.Fatalf("LIFE-015", "a second GET customers lists status %q, want Onboarding", got)
				}
				if got := fresh.Status(t, "CUST-010", id); got != "Active" {
					t.Fatalf("CUST-010", "GET customers/{id} after approval answered status %q; the read refreshes, want Active", got)
				}
				if got := fresh.ListStatus(t, "LIFE-011", id); got != "Active" {
					t.Fatalf("LIFE-011", "after the refreshing read the stored status is %q, want Active", got)
				}
			},
		},
	}
}

// mapKeys are m's keys, sorted.
func mapKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
