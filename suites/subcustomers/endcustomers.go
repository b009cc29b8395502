package subcustomers

import (
	"maps"
	"net/http"
	"slices"

	"github.com/google/uuid"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

func base(parent string) string { return api.P + "/customers/" + parent + "/end-customers" }

// childBody is a create body; a business also gets legal_name and
// registration_number (needed for its verification).
func childBody(subjectType, ref, name string) map[string]any {
	b := map[string]any{"subject_type": subjectType, "external_reference": ref, "display_name": name, "country_code": "GB"}
	if subjectType == "Business" {
		b["legal_name"] = name + " Ltd"
		b["registration_number"] = "12345678"
	}
	return b
}

func newRef() string { return "ts-ref-" + uuid.NewString() }

func postChild(t *check.T, key, parent string, body map[string]any) *client.Response {
	return t.Do(t.Client(key), client.Request{Method: http.MethodPost, Path: base(parent), JSON: body, IdempotencyKey: t.NewKey()})
}

// endCustomer asserts data.end_customer with id and parent_customer_id and
// returns it.
func endCustomer(t *check.T, rule string, data map[string]any, parent string) map[string]any {
	ec, ok := data["end_customer"].(map[string]any)
	if !ok {
		t.Fatalf(rule, "data.end_customer is %v, want an object", data["end_customer"])
	}
	if s, _ := ec["id"].(string); !shape.UUIDRe.MatchString(s) {
		t.Fatalf(rule, "end_customer.id is %v, want a UUID", ec["id"])
	}
	if ec["parent_customer_id"] != parent {
		t.Fatalf("SUB-005", "end_customer.parent_customer_id is %v, want the route's customer %s", ec["parent_customer_id"], parent)
	}
	return ec
}

// createChild creates a child of parent with key and returns its id.
func createChild(t *check.T, key, parent, subjectType string) string {
	data := fresh.Success(t, "SUB-005", postChild(t, key, parent, childBody(subjectType, newRef(), "Touchstone Child")))
	return endCustomer(t, "SUB-005", data, parent)["id"].(string)
}

func get(t *check.T, key, path string) *client.Response {
	return t.Do(t.Client(key), client.Request{Method: http.MethodGet, Path: path})
}

// endcustomersChecks are the checks of endcustomers.go.
func endcustomersChecks() []check.Check {
	return []check.Check{
		{
			ID:     "subcustomers/create",
			Title:  "POST end-customers returns data.end_customer with id and parent_customer_id; the child starts Onboarding",
			Rules:  []string{"SUB-005", "SUB-006", "SUB-003", "BIND-009"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant", "customers.parent"},
			Run: func(t *check.T) {
				parent := t.Customer("parent")
				keys := []string{"tenant"}
				if t.Profile().Key("subject") != "" {
					keys = append(keys, "subject")
				} else {
					t.NotJudged("profile has no keys.subject: no subject-bound key's create to see act for its subject; add keys.subject", "BIND-009")
				}
				for _, key := range keys {
					for _, st := range []string{"Personal", "Business"} {
						id := createChild(t, key, parent, st)
						c := fresh.Read(t, "SUB-006", id)
						if c["status"] != "Onboarding" {
							t.Fatalf("SUB-006", "a new %s child (created with the %s key) reads status %v, want Onboarding", st, key, c["status"])
						}
						if c["user_type"] != st {
							t.Fatalf("SUB-003", "a child created with subject_type %s reads user_type %v", st, c["user_type"])
						}
					}
				}
			},
		},
		{
			ID:     "subcustomers/create-repost-returns-existing",
			Title:  "Re-posting the same external_reference for the same parent and subject type returns the existing child unchanged",
			Rules:  []string{"SUB-022", "SUB-024"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant", "customers.parent"},
			Run: func(t *check.T) {
				parent := t.Customer("parent")
				ref := newRef()
				d1 := fresh.Success(t, "SUB-022", postChild(t, "tenant", parent, childBody("Personal", ref, "Original Name")))
				id := endCustomer(t, "SUB-022", d1, parent)["id"]
				d2 := fresh.Success(t, "SUB-022", postChild(t, "tenant", parent, childBody("Personal", ref, "Changed Name")))
				ec := endCustomer(t, "SUB-022", d2, parent)
				if ec["id"] != id {
					t.Fatalf("SUB-022", "re-post of external_reference %s created child %v, want the existing %v", ref, ec["id"], id)
				}
				if dn, ok := ec["display_name"]; ok && dn != "Original Name" {
					t.Fatalf("SUB-022", "re-post answered display_name %v; the existing child must not be updated", dn)
				}
				if dn := fresh.Read(t, "SUB-022", id.(string))["display_name"]; dn != "Original Name" {
					t.Fatalf("SUB-022", "after the re-post the child's display_name is %v, want Original Name (not updated)", dn)
				}
				r := shape.EnvelopeAnswer(t, get(t, "tenant", base(parent)+"/"+id.(string)), shape.Want{Rule: "SUB-024", Status: http.StatusOK})
				if dn, ok := endCustomer(t, "SUB-024", r, parent)["display_name"]; ok && dn != "Original Name" {
					t.Fatalf("SUB-022", "after the re-post end_customer.display_name is %v, want Original Name", dn)
				}
			},
		},
		{
			ID:     "subcustomers/list-all-unpaged",
			Title:  "GET end-customers returns data.end_customers with every child, no pagination, ignoring page and limit",
			Rules:  []string{"SUB-007", "SUB-023", "SUB-005"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant", "customers.parent", "customers.child"},
			Run: func(t *check.T) {
				parent := t.Customer("parent")
				a := createChild(t, "tenant", parent, "Personal")
				b := createChild(t, "tenant", parent, "Personal")
				ids := func(q map[string][]string) map[string]bool {
					r := t.Do(t.Client("tenant"), client.Request{Method: http.MethodGet, Path: base(parent), Query: q})
					d := shape.EnvelopeAnswer(t, r, shape.Want{Rule: "SUB-023", Status: http.StatusOK})
					if _, ok := d["pagination"]; ok {
						t.Fatalf("SUB-007", "the end-customer list carries data.pagination; it is unpaged")
					}
					out := map[string]bool{}
					for i, x := range shape.Array(t, "SUB-023", d, "end_customers") {
						m, _ := x.(map[string]any)
						id, _ := m["id"].(string)
						if id == "" {
							t.Fatalf("SUB-023", "end_customers[%d] has no id: %v", i, x)
						}
						if m["parent_customer_id"] != nil && m["parent_customer_id"] != parent {
							t.Fatalf("SUB-023", "end_customers[%d] has parent_customer_id %v, want %s", i, m["parent_customer_id"], parent)
						}
						out[id] = true
					}
					return out
				}
				all := ids(nil)
				for _, id := range []string{t.Customer("child"), a, b} {
					if !all[id] {
						t.Fatalf("SUB-007", "child %s is not in the list of %d; the list holds all children", id, len(all))
					}
				}
				paged := ids(map[string][]string{"page": {"2"}, "limit": {"1"}})
				// More rows are fine: other callers may add children between
				// the two reads; fewer means the server paged.
				if len(paged) < len(all) {
					t.Fatalf("SUB-007", "with page=2&limit=1 the list has %d children, without %d; page and limit are ignored", len(paged), len(all))
				}
				for _, id := range slices.Sorted(maps.Keys(all)) {
					if !paged[id] {
						t.Fatalf("SUB-007", "with page=2&limit=1 child %s is missing", id)
					}
				}
			},
		},
		{
			ID:    "subcustomers/read",
			Title: "GET end-customers/{id} returns data.end_customer",
			Rules: []string{"SUB-024", "SUB-005"},
			Needs: []string{"keys.tenant", "customers.parent", "customers.child"},
			Run: func(t *check.T) {
				parent, child := t.Customer("parent"), t.Customer("child")
				d := shape.EnvelopeAnswer(t, get(t, "tenant", base(parent)+"/"+child), shape.Want{Rule: "SUB-024", Status: http.StatusOK})
				if ec := endCustomer(t, "SUB-024", d, parent); ec["id"] != child {
					t.Fatalf("SUB-024", "end_customer.id is %v, want %s", ec["id"], child)
				}
			},
		},
	}
}
