package auth

// Document 1, Key identity response (GET me) and Typical flow; document 2,
// Authentication 2, 3 and 8: GET /me reports customer_id, subject_binding,
// delegated_customer_ids (direct children only) and api_key_prefix (the
// key's public prefix) for each binding; umbrella scopes are never shown.

import (
	"net/http"
	"sort"
	"strings"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// identity asserts the binding-independent members of /me data and
// returns them; /me answering other than 200 fails under ME-002.
func identity(t *check.T, name string) (data map[string]any, delegatedIDs []string) {
	return identityUnder(t, "ME-002", name)
}

// identityUnder is identity with the rule a refused /me breaks.
func identityUnder(t *check.T, statusRule, name string) (data map[string]any, delegatedIDs []string) {
	r := t.Do(t.Client(name), client.Request{Method: http.MethodGet, Path: api.P + "/me"})
	data = shape.EnvelopeAnswer(t, r, shape.Want{Rule: statusRule, ShapeRule: "ME-002", Status: http.StatusOK, What: "GET /me with keys." + name})
	got, ok := data["api_key_prefix"].(string)
	if !ok {
		t.Fatalf("ME-002", "GET /me with keys.%s: api_key_prefix is %v, want a string", name, masked(data["api_key_prefix"]))
	}
	if want := publicPrefix(t.Profile().Key(name)); got != want {
		// Another key's public prefix is a prefix, of the wrong key (ME-004);
		// a value that is no key's public prefix is not the part before the
		// dot at all (AUTH-011, where the check names it). Either stops the
		// check: what it compares next (prefixes of two keys) rests on it.
		if other := prefixOwner(t, got); other != "" || !t.Declares("AUTH-011") {
			t.Fatalf("ME-004", "GET /me with keys.%s: api_key_prefix is %q (keys.%s's public prefix), want the key's own public prefix %q", name, masked(got), other, want)
		}
		t.Fatalf("AUTH-011", "GET /me with keys.%s: api_key_prefix is %q, not the part of the key before the dot (%q)", name, masked(got), want)
	}
	if _, present := data["customer_id"]; !present {
		t.Errorf("ME-002", "GET /me with keys.%s: customer_id is missing (uuid or null)", name)
	}
	delegatedIDs = delegated(t, "ME-002", data)
	return data, delegatedIDs
}

// prefixOwner names the profile key whose public prefix is prefix ("" when
// none is).
func prefixOwner(t *check.T, prefix string) string {
	keys := t.Profile().KeyMap()
	names := make([]string, 0, len(keys))
	for n := range keys {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if keys[n] != "" && publicPrefix(keys[n]) == prefix {
			return n
		}
	}
	return ""
}

func binding(t *check.T, name string, data map[string]any, want string) {
	if got := data["subject_binding"]; got != want {
		t.Errorf("ME-007", "GET /me with keys.%s: subject_binding is %v, want %q", name, got, want)
	}
}

// meChecks are the checks of me.go.
func meChecks() []check.Check {
	return []check.Check{
		{
			ID:    "auth/me-tenant-key",
			Title: "GET /me for a tenant key: customer_id null, subject_binding tenant, api_key_prefix its public prefix",
			Rules: []string{"ME-001", "ME-002", "ME-004", "ME-007", "AUTH-011"},
			Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				data, _ := identity(t, "tenant")
				binding(t, "tenant", data, "tenant")
				if v, present := data["customer_id"]; present && v != nil {
					t.Errorf("ME-001", "GET /me with keys.tenant: customer_id is %v, want null for a tenant-bound key", v)
				}
			},
		},
		{
			ID:    "auth/me-subject-key",
			Title: "GET /me for a subject key: customer_id its subject, subject_binding subject, delegated_customer_ids its direct children only",
			Rules: []string{"ME-002", "ME-003", "ME-004", "ME-007"},
			Needs: []string{"keys.subject", "customers.parent", "customers.child"},
			Run: func(t *check.T) {
				parent, child := t.Customer("parent"), t.Customer("child")
				data, ids := identity(t, "subject")
				binding(t, "subject", data, "subject")
				if data["customer_id"] != parent {
					t.Errorf("ME-007", "GET /me with keys.subject: customer_id is %v, want customers.parent %s", data["customer_id"], parent)
				}
				// Direct children: the parent's own end-customer list.
				r := t.Do(t.Client("subject"), client.Request{Method: http.MethodGet, Path: api.P + "/customers/" + parent + "/end-customers"})
				list := shape.Array(t, "ME-003", shape.EnvelopeAnswer(t, r, shape.Want{Rule: "ME-003", Status: http.StatusOK}), "end_customers")
				children := map[string]bool{}
				for _, x := range list {
					if id, ok := shape.Get(x, "id"); ok {
						children[toString(id)] = true
					}
				}
				hasChild := false
				for _, id := range ids {
					switch {
					case id == parent:
						t.Errorf("ME-003", "delegated_customer_ids lists the subject itself (%s)", id)
					case !children[id]:
						t.Errorf("ME-003", "delegated_customer_ids lists %s, which is not a direct end-customer of %s", id, parent)
					}
					hasChild = hasChild || id == child
				}
				if !hasChild {
					t.Errorf("ME-003", "delegated_customer_ids %v lacks customers.child %s", ids, child)
				}
			},
		},
		{
			ID:    "auth/me-unbound-key",
			Title: "GET /me for an unbound key: subject_binding unbound, customer_id null, no delegated customers",
			Rules: []string{"ME-006", "ME-002", "ME-004"},
			Needs: []string{"keys.unbound"},
			Run: func(t *check.T) {
				data, ids := identity(t, "unbound")
				// ME-007 states the subject and tenant bindings; the unbound
				// one is ME-006's reading.
				if got := data["subject_binding"]; got != "unbound" {
					t.Errorf("ME-006", "GET /me with keys.unbound: subject_binding is %v, want \"unbound\"", got)
				}
				if v := data["customer_id"]; v != nil {
					t.Errorf("ME-006", "GET /me with keys.unbound: customer_id is %v, want null", v)
				}
				if len(ids) != 0 {
					t.Errorf("ME-006", "GET /me with keys.unbound: delegated_customer_ids is %v, want empty", ids)
				}
			},
		},
		{
			ID:    "auth/me-prefix-every-key",
			Title: "GET /me reports api_key_prefix equal to the public prefix of whichever key is used",
			Rules: []string{"ME-004", "AUTH-011", "SCOPE-002", "ME-002"},
			Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				names := []string{}
				for name, k := range t.Profile().KeyMap() {
					switch name {
					case "other_environment", "ip_restricted", "live",
						"revoked", "expired", "not_yet_active", "suspended_tenant", "access_off":
						continue // refused by design, or not ours to use
					case "rotated_old":
						continue // valid only within its overlap window; auth/rotation-* read its /me
					}
					if strings.HasPrefix(name, "lacking") {
						continue // keys lacking one scope each: the route-scope tables use them
					}
					if k != "" {
						names = append(names, name)
					}
				}
				sort.Strings(names)
				for _, name := range names {
					// Keys of every scope set: /me refused to one of them
					// breaks "GET P/me requires no scope".
					identityUnder(t, "SCOPE-002", name)
				}
			},
		},
		{
			ID:    "auth/me-umbrella-never-shown",
			Title: "GET /me for a key granted transactions:read/write shows no umbrella scope name",
			Rules: []string{"SCOPE-001"},
			Needs: []string{"keys.umbrella"},
			Run: func(t *check.T) {
				r := t.Do(t.Client("umbrella"), client.Request{Method: http.MethodGet, Path: api.P + "/me"})
				shape.EnvelopeAnswer(t, r, shape.Want{Rule: "SCOPE-001", Status: http.StatusOK})
				body := strings.ToLower(string(r.Body))
				for _, name := range []string{"transactions:read", "transactions:write", "transactionsread", "transactionswrite"} {
					if strings.Contains(body, name) {
						t.Errorf("SCOPE-001", "GET /me with keys.umbrella shows the umbrella scope %q; umbrella scopes are stored expanded and never shown", name)
					}
				}
			},
		},
	}
}
