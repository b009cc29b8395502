// Package transfers checks internal transfers between a parent and its
// direct child (document 1, Resources / Internal transfer (parent and
// child); States / Internal transfer; Endpoints / Sub-customers).
package transfers

import (
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/google/uuid"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

var needs = []string{"keys.tenant", "customers.parent", "customers.child"}

func base(t *check.T) string {
	return api.Customer(t.Customer("parent")) + "/end-customers/" + t.Customer("child") + "/internal-transfers"
}

// tbody is an internal transfer body under a fresh client reference.
func tbody(direction, currency string, amount any) map[string]any {
	return map[string]any{"direction": direction, "currency": currency, "amount_minor": amount, "client_reference": uuid.NewString()}
}

// withRef sets b's client_reference.
func withRef(b map[string]any, ref string) map[string]any {
	b["client_reference"] = ref
	return b
}

// post sends the body with its client_reference as the Idempotency-Key
// (ITR-004; reading ITR-005).
func post(t *check.T, b map[string]any) *client.Response {
	return t.Do(t.Client("tenant"), client.Request{Method: http.MethodPost, Path: base(t), JSON: b, IdempotencyKey: b["client_reference"].(string)})
}

func get(t *check.T, path string) *client.Response {
	return t.Do(t.Client("tenant"), client.Request{Method: http.MethodGet, Path: path})
}

// done asserts a completed transfer answer and returns data.internal_transfer.
func done(t *check.T, rule string, r *client.Response) map[string]any {
	d := fresh.Success(t, rule, r)
	x, _ := d["internal_transfer"].(map[string]any)
	if x == nil {
		t.FatalAt(r, rule, "data.internal_transfer is %v, want an object", d["internal_transfer"])
	}
	return x
}

func ctl(t *check.T, rule, op string, body map[string]any) {
	if err := t.Control().InternalTransfers(t.Context(), op, body); err != nil {
		t.Fatalf(rule, "control: internal-transfers %s: %v", op, err)
	}
}

// rows finds the one array member of the list's data (its key is not shown).
func rows(t *check.T, rule string, r *client.Response) []any {
	d := shape.EnvelopeAnswer(t, r, shape.Want{Rule: "ITR-036", Status: http.StatusOK})
	var out []any
	n := 0
	for _, v := range d {
		if a, ok := v.([]any); ok {
			out = a
			n++
		}
	}
	if n != 1 {
		t.FatalAt(r, rule, "the list's data has %d array members, want exactly one: %v", n, d)
	}
	if _, paged := d["pagination"]; paged {
		t.FatalAt(r, rule, "the take list carries data.pagination; it has no page or cursor")
	}
	return out
}

// refusedBody judges the form of a refused internal transfer under rule:
// how "bind" is the binding 400 (problem+json, no code) whose errors map
// names amount_minor; "either" that 400 (any member named) or a 422
// envelope with a data.code; "currency" also a flat 409
// internal_transfer_accounts_ineligible (reading ITR-034).
func refusedBody(t *check.T, rule, how string, r *client.Response, what string) {
	switch {
	case r.Status == http.StatusBadRequest:
		m := shape.ProblemAnswer(t, r, shape.Want{Rule: rule, Status: http.StatusBadRequest, What: "a transfer with " + what})
		errs, _ := m["errors"].(map[string]any)
		if len(errs) == 0 {
			t.FatalAt(r, rule, "a transfer with %s: the binding 400 carries no errors map", what)
		}
		if how == "bind" && !namesAmount(errs) {
			t.FatalAt(r, rule, "a transfer with %s: the binding 400's errors map names %v, not amount_minor", what, slices.Sorted(maps.Keys(errs)))
		}
	case how == "bind":
		shape.ProblemAnswer(t, r, shape.Want{Rule: rule, Status: http.StatusBadRequest, What: "a transfer with " + what, Why: "a fractional or non-numeric amount cannot be bound to a whole number"})
	case r.Status == http.StatusUnprocessableEntity:
		d := shape.EnvelopeAnswer(t, r, shape.Want{Rule: rule, Status: http.StatusUnprocessableEntity, What: "a transfer with " + what})
		if code, _ := d["code"].(string); code == "" {
			t.FatalAt(r, rule, "a transfer with %s: the 422 carries no data.code", what)
		}
	case how == "currency" && r.Status == http.StatusConflict:
		shape.FlatAnswer(t, r, shape.Want{Rule: rule, Status: http.StatusConflict, Code: "internal_transfer_accounts_ineligible", What: "a transfer with " + what})
	default:
		t.FatalAt(r, rule, "a transfer with %s answered %d, want the binding 400 or a 422 envelope; body: %s", what, r.Status, shape.Clip(r.Body))
	}
}

// namesAmount tells whether an errors map names amount_minor (any
// spelling: amount_minor, $.amount_minor, AmountMinor).
func namesAmount(errs map[string]any) bool {
	for k := range errs {
		flat := strings.Map(func(r rune) rune {
			if r == '_' || r == '$' || r == '.' {
				return -1
			}
			return unicode.ToLower(r)
		}, k)
		if strings.Contains(flat, "amountminor") {
			return true
		}
	}
	return false
}

func jsonText(v any) string { b, _ := json.Marshal(v); return string(b) }

func ids(xs []any) []string {
	var out []string
	for _, x := range xs {
		if m, ok := x.(map[string]any); ok {
			id, _ := m["id"].(string)
			out = append(out, id)
		}
	}
	return out
}

// transfersChecks are the checks of transfers.go.
func transfersChecks() []check.Check {
	return slices.Concat(
		transferCreateChecks(),
		transferGateChecks(),
		transferLimitChecks(),
		amountExactAbove253Checks(),
		recovery404InFlightChecks(),
		balancesMoveChecks(),
		newestFirstChecks(),
	)
}

// transferCreateChecks create transfers both ways, refuse invalid bodies,
// retry by client reference and read transfers back.
func transferCreateChecks() []check.Check {
	return []check.Check{
		{
			ID:     "transfers/create-both-directions",
			Title:  "A parent-to-child and a child-to-parent transfer, in GBP and EUR, with no beneficiary, complete with id, journal_entry_id, client_reference and the exact amount_minor_string; a quoted integer amount is accepted",
			Rules:  []string{"ITR-001", "ITR-002", "ITR-003", "ITR-004", "ITR-005", "ITR-007", "ITR-008", "ITR-012", "ITR-019"},
			Labels: []string{check.Mutating},
			Needs:  needs,
			Run: func(t *check.T) {
				// Each case is judged under the sentence it sends: a body
				// without beneficiary (ITR-019), a quoted integer amount
				// (ITR-003), the reverse direction (ITR-001), EUR (ITR-002).
				for _, c := range []struct {
					rule, dir, cur string
					amount         any
					want           string
				}{
					{"ITR-019", "parent_to_end_customer", "GBP", 1200, "1200"},
					{"ITR-003", "parent_to_end_customer", "GBP", "1500", "1500"},
					{"ITR-001", "end_customer_to_parent", "GBP", 7, "7"},
					{"ITR-002", "parent_to_end_customer", "EUR", 2501, "2501"},
				} {
					b := tbody(c.dir, c.cur, c.amount)
					r := post(t, b)
					fresh.Success(t, c.rule, r) // the case is taken
					x := done(t, "ITR-012", r)
					shape.String(t, "ITR-007", x, "id")
					shape.String(t, "ITR-007", x, "journal_entry_id")
					// The answer's status (ITR-007); that completed means both
					// balances moved (ITR-010) is judged by transfers/balances-move.
					if st := shape.String(t, "ITR-007", x, "status"); st != "completed" {
						t.FatalAt(r, "ITR-007", "data.internal_transfer.status %q, want completed", st)
					}
					if cur, has := x["currency"]; has && cur != c.cur {
						t.ErrorAt(r, "ITR-002", "a %s transfer answers currency %v, want %s (GBP or EUR as sent)", c.cur, cur, c.cur)
					}
					if dir, has := x["direction"]; has && dir != c.dir {
						t.ErrorAt(r, "ITR-001", "a %s transfer answers direction %v, want the one sent", c.dir, dir)
					}
					if ref := shape.String(t, "ITR-004", x, "client_reference"); ref != b["client_reference"] {
						t.FatalAt(r, "ITR-005", "client_reference %q, want the one sent %v", ref, b["client_reference"])
					}
					if s := shape.String(t, "ITR-008", x, "amount_minor_string"); s != c.want {
						t.FatalAt(r, "ITR-008", "amount_minor_string %q, want %q", s, c.want)
					}
				}
			},
		},
		{
			ID:     "transfers/invalid-bodies-refused",
			Title:  "An internal transfer whose amount_minor is 0, negative (a number or a quoted string), fractional (a number or a quoted string) or a quoted non-number, whose currency is USD, whose direction is unknown or whose client_reference is not a UUID is refused and creates nothing; a fractional or non-numeric amount is the binding 400 naming amount_minor",
			Rules:  []string{"ITR-003", "ITR-037", "ITR-034", "ITR-002", "ITR-001", "ITR-004"},
			Labels: []string{check.Mutating},
			Needs:  needs,
			Run: func(t *check.T) {
				// In a fixed order, each judged: a map's order would make the
				// first refusal to fail vary from run to run. sentence is the
				// rule a transfer made from the body breaks; form the rule
				// of the refusal's status and body (bind: the 400 naming
				// amount_minor; either: that 400 or a 422 envelope; currency:
				// also 409 internal_transfer_accounts_ineligible).
				for _, c := range []struct {
					sentence, form, how string
					body                map[string]any
				}{
					{"ITR-003", "ITR-037", "either", tbody("parent_to_end_customer", "GBP", 0)},
					{"ITR-003", "ITR-037", "either", tbody("parent_to_end_customer", "GBP", -5)},
					{"ITR-003", "ITR-037", "either", tbody("parent_to_end_customer", "GBP", "-5")},
					{"ITR-003", "ITR-037", "bind", tbody("parent_to_end_customer", "GBP", json.Number("15.5"))},
					{"ITR-003", "ITR-037", "bind", tbody("parent_to_end_customer", "GBP", "15.5")},
					{"ITR-003", "ITR-037", "bind", tbody("parent_to_end_customer", "GBP", "fifteen")},
					{"ITR-002", "ITR-034", "currency", tbody("parent_to_end_customer", "USD", 100)},
					{"ITR-001", "ITR-037", "either", tbody("sideways", "GBP", 100)},
					{"ITR-004", "ITR-037", "either", withRef(tbody("parent_to_end_customer", "GBP", 100), "ts-not-a-uuid-"+uuid.NewString()[:8])},
				} {
					r := post(t, c.body)
					what := "amount_minor " + jsonText(c.body["amount_minor"]) + ", currency " + c.body["currency"].(string) + ", direction " + c.body["direction"].(string) + ", client_reference " + c.body["client_reference"].(string)
					if r.Status/100 == 2 {
						t.ErrorAt(r, c.sentence, "an internal transfer with %s was made (%d); it must be refused", what, r.Status)
						continue
					}
					refusedBody(t, c.form, c.how, r, what)
					shape.FlatAnswer(t, get(t, base(t)+"/by-client-reference/"+c.body["client_reference"].(string)), shape.Want{Rule: c.sentence, Status: http.StatusNotFound, What: "the by-client-reference read of the refused transfer with " + what})
				}
			},
		},
		{
			ID:     "transfers/client-reference-idempotency",
			Title:  "An identical retry returns the same transfer; other parameters under the same client reference are 409 internal_transfer_client_reference_reused",
			Rules:  []string{"ITR-020", "ITR-021", "ITR-033", "ITR-012"},
			Labels: []string{check.Mutating},
			Needs:  needs,
			Run: func(t *check.T) {
				b := tbody("parent_to_end_customer", "GBP", 321)
				first := done(t, "ITR-012", post(t, b))
				again := done(t, "ITR-020", post(t, b))
				if first["id"] != again["id"] {
					t.Fatalf("ITR-020", "an identical retry answered transfer %v, want the same %v", again["id"], first["id"])
				}
				b["amount_minor"] = 322
				// The status is the decision (ITR-021); where the code sits, the
				// flat code member or the envelope's data.code, is the reading
				// ITR-033 takes.
				shape.FlatOrRefusalAnswer(t, post(t, b), shape.Want{Rule: "ITR-021", ShapeRule: "ITR-033", Status: http.StatusConflict, Code: "internal_transfer_client_reference_reused"})
			},
		},
		{
			ID:     "transfers/recovery-reads",
			Title:  "GET .../internal-transfers/by-client-reference/{ref} and .../{id} return the transfer; an unknown reference is 404",
			Rules:  []string{"ITR-014", "ITR-015"},
			Labels: []string{check.Mutating},
			Needs:  needs,
			Run: func(t *check.T) {
				b := tbody("parent_to_end_customer", "GBP", 55)
				// Before the POST the reference is unknown (404). This says
				// nothing of a request in flight (ITR-022): any server passes
				// it, so only transfers/recovery-404-in-flight judges that.
				shape.FlatAnswer(t, get(t, base(t)+"/by-client-reference/"+b["client_reference"].(string)), shape.Want{Rule: "ITR-015", Status: http.StatusNotFound})
				x := done(t, "ITR-012", post(t, b))
				// The reads return the transfer made: its id, and the values
				// the POST answered (the client reference sent, the amount).
				same := func(rule, how string, got map[string]any) {
					for _, k := range []string{"id", "client_reference", "amount_minor_string", "journal_entry_id"} {
						if got[k] != x[k] {
							t.Fatalf(rule, "%s returned %s %v, want the transfer's %v", how, k, got[k], x[k])
						}
					}
					if got["client_reference"] != b["client_reference"] || got["amount_minor_string"] != "55" {
						t.Fatalf(rule, "%s returned client_reference %v amount_minor_string %v, want %v and 55 as sent", how, got["client_reference"], got["amount_minor_string"], b["client_reference"])
					}
				}
				same("ITR-015", "by-client-reference", done(t, "ITR-015", get(t, base(t)+"/by-client-reference/"+b["client_reference"].(string))))
				same("ITR-014", "the by-id read", done(t, "ITR-014", get(t, base(t)+"/"+x["id"].(string))))
				shape.FlatAnswer(t, get(t, base(t)+"/"+uuid.NewString()), shape.Want{Rule: "ITR-014", Status: http.StatusNotFound})
			},
		},
		{
			ID:     "transfers/take-list",
			Title:  "The child's internal-transfers list shows both directions, takes take (default 50, clamped 1-200) and has no pagination",
			Rules:  []string{"ITR-009", "ITR-013", "ITR-036", "ITR-012"},
			Labels: []string{check.Mutating},
			Needs:  needs,
			Run: func(t *check.T) {
				a := done(t, "ITR-012", post(t, tbody("parent_to_end_customer", "GBP", 11)))
				b := done(t, "ITR-012", post(t, tbody("end_customer_to_parent", "GBP", 12)))
				got := ids(rows(t, "ITR-013", get(t, base(t)+"?take=200")))
				ia, ib := -1, -1
				for i, id := range got {
					if id == a["id"] {
						ia = i
					}
					if id == b["id"] {
						ib = i
					}
				}
				if ia < 0 || ib < 0 {
					t.Fatalf("ITR-013", "the list (take=200) holds the parent-to-child transfer at %d and the child-to-parent one at %d; want both directions listed", ia, ib)
				}
				// take omitted is 50: with more than 50 transfers listed, the
				// default answers exactly 50 (transfers of 1 minor unit,
				// alternating directions, make up the number).
				all := len(rows(t, "ITR-009", get(t, base(t)+"?take=200")))
				for i := 0; all+i < 51; i++ {
					dir := "parent_to_end_customer"
					if i%2 == 1 {
						dir = "end_customer_to_parent"
					}
					done(t, "ITR-012", post(t, tbody(dir, "GBP", 1)))
				}
				if n := len(rows(t, "ITR-009", get(t, base(t)))); n != 50 {
					t.Fatalf("ITR-009", "without take the list answered %d rows of more than 50 transfers, want 50 (the default)", n)
				}
				if n := len(rows(t, "ITR-009", get(t, base(t)+"?take=1"))); n != 1 {
					t.Fatalf("ITR-009", "take=1 answered %d rows, want 1", n)
				}
				if n := len(rows(t, "ITR-009", get(t, base(t)+"?take=0"))); n != 1 {
					t.Fatalf("ITR-009", "take=0 answered %d rows, want 1 (clamped)", n)
				}
				if n := len(rows(t, "ITR-009", get(t, base(t)+"?take=5000"))); n > 200 {
					t.Fatalf("ITR-009", "take=5000 answered %d rows, want at most 200 (clamped)", n)
				}
			},
		},
	}
}

// transferGateChecks are the refusals by capability, party state, accounts and
// policy, and the origin exchange order.
func transferGateChecks() []check.Check {
	return []check.Check{
		{
			ID:     "transfers/capability",
			Alone:  check.WithControl,
			Title:  "Without the parent's, or the tenant's, internal-transfer capability a transfer is 403 parent_child_internal_transfers_disabled",
			Rules:  []string{"ITR-011", "ITR-016"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  needs,
			Run: func(t *check.T) {
				parent := t.Customer("parent")
				// Both need it: the parent's off, then the tenant's off (the
				// control API names the tenant by one of its customers).
				for _, level := range []string{"customer", "tenant"} {
					ctl(t, "ITR-016", "capability", map[string]any{"level": level, "id": parent, "enabled": false})
					r := post(t, tbody("parent_to_end_customer", "GBP", 10))
					ctl(t, "ITR-016", "capability", map[string]any{"level": level, "id": parent, "enabled": true})
					// Made: the decision (ITR-016); refused: how (ITR-011).
					if r.Status/100 == 2 {
						t.ErrorAt(r, "ITR-016", "a transfer was made (%d) while the %s lacked the internal-transfer capability", r.Status, map[string]string{"customer": "parent", "tenant": "tenant"}[level])
						continue
					}
					shape.FlatOrRefusalAnswer(t, r, shape.Want{Rule: "ITR-011", Status: http.StatusForbidden, Code: "parent_child_internal_transfers_disabled"})
				}
				done(t, "ITR-016", post(t, tbody("parent_to_end_customer", "GBP", 10)))
			},
		},
		{
			ID:     "transfers/party-not-active",
			Alone:  check.WithControl,
			Title:  "While the child is not Active, or Active but blocked or in manual review by compliance, a transfer is 409 internal_transfer_party_not_active (flat)",
			Rules:  []string{"ITR-017", "ITR-026", "ITR-038"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  needs,
			Run: func(t *check.T) {
				child := t.Customer("child")
				if err := t.Control().CustomerStatus(t.Context(), child, "Suspended"); err != nil {
					t.Fatalf("ITR-017", "control: child status: %v", err)
				}
				r := post(t, tbody("parent_to_end_customer", "GBP", 10))
				if err := t.Control().CustomerStatus(t.Context(), child, "Active"); err != nil {
					t.Fatalf("ITR-017", "control: restore child status: %v", err)
				}
				// Made: the decision (ITR-017); refused: how (ITR-026).
				if r.Status/100 == 2 {
					t.ErrorAt(r, "ITR-017", "a transfer was made (%d) while the child was Suspended; both parties must be active", r.Status)
				} else {
					shape.FlatAnswer(t, r, shape.Want{Rule: "ITR-026", Status: http.StatusConflict, Code: "internal_transfer_party_not_active"})
				}
				// Active but failing a compliance control (a block, a manual
				// review): refused too, with the same code (reading ITR-038).
				for _, state := range []string{"blocked", "manual_review"} {
					if err := t.Control().Call(t.Context(), http.MethodPost, "/money-policy/compliance/"+child, map[string]any{"state": state}, nil); err != nil {
						t.NoVerdict(err)
					}
					r := post(t, tbody("parent_to_end_customer", "GBP", 10))
					if err := t.Control().Call(t.Context(), http.MethodPost, "/money-policy/compliance/"+child, map[string]any{"state": ""}, nil); err != nil {
						t.Fatalf("ITR-017", "control: clear the child's compliance state: %v", err)
					}
					if r.Status/100 == 2 {
						t.ErrorAt(r, "ITR-017", "a transfer was made (%d) while the child's compliance state was %s; both parties must pass compliance controls", r.Status, state)
						continue
					}
					shape.FlatAnswer(t, r, shape.Want{Rule: "ITR-038", Status: http.StatusConflict, Code: "internal_transfer_party_not_active", What: "a transfer while the child's compliance state is " + state})
				}
			},
		},
		{
			ID:    "transfers/accounts-and-policy",
			Alone: check.Always,
			Title: "The parent's or the child's account ineligible is 409 internal_transfer_accounts_ineligible; either without an enabled matching policy is 409 internal_transfer_policy_unavailable (flat)",
			Rules: []string{"ITR-018", "ITR-027", "ITR-028"},
			// Alone: it makes the shared parent's and child's EUR accounts
			// ineligible for a moment, which a EUR transfer of another check
			// would meet.
			Labels: []string{check.Mutating, check.NeedsControl, check.Alone},
			Needs:  needs,
			Run: func(t *check.T) {
				// Each party alone, each condition alone: its EUR account
				// ineligible (ITR-027), then no enabled matching policy
				// (ITR-028); restored after each transfer.
				for _, party := range []string{"parent", "child"} {
					id := t.Customer(party)
					for _, c := range []struct {
						eligible, policy bool
						rule, code, what string
					}{
						{false, true, "ITR-027", "internal_transfer_accounts_ineligible", "EUR account was ineligible"},
						{true, false, "ITR-028", "internal_transfer_policy_unavailable", "EUR account had no enabled matching transfer policy"},
					} {
						ctl(t, "ITR-018", "eligibility", map[string]any{"customer_id": id, "currency": "EUR", "eligible": c.eligible, "policy": c.policy})
						r := post(t, tbody("parent_to_end_customer", "EUR", 10))
						ctl(t, "ITR-018", "eligibility", map[string]any{"customer_id": id, "currency": "EUR", "eligible": true, "policy": true})
						// Made: the decision (ITR-018); refused: how (c.rule).
						if r.Status/100 == 2 {
							t.ErrorAt(r, "ITR-018", "a transfer was made (%d) while the %s's %s", r.Status, party, c.what)
							continue
						}
						shape.FlatAnswer(t, r, shape.Want{Rule: c.rule, Status: http.StatusConflict, Code: c.code, What: "a EUR transfer while the " + party + "'s " + c.what})
					}
				}
				done(t, "ITR-018", post(t, tbody("parent_to_end_customer", "EUR", 10)))
			},
		},
		{
			ID:     "transfers/origin-exchange-order",
			Title:  "origin_exchange_order_id: a settled parent conversion into the currency is taken parent-to-child; another customer's, an unsettled one, an unknown one, a currency mismatch or the reverse direction is 409 internal_transfer_origin_exchange_invalid",
			Rules:  []string{"ITR-006", "ITR-029", "ITR-031", "ITR-032"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  needs,
			Run: func(t *check.T) {
				conv := uuid.NewString()
				ctl(t, "ITR-006", "origin", map[string]any{"id": conv, "customer_id": t.Customer("parent"), "target_currency": "GBP", "settled": true})
				with := func(dir, cur, origin string) map[string]any {
					b := tbody(dir, cur, 20)
					b["origin_exchange_order_id"] = origin
					return b
				}
				done(t, "ITR-006", post(t, with("parent_to_end_customer", "GBP", conv)))
				// The parent's own, settled, into the currency: each condition
				// broken alone (another customer's, the parent's unsettled).
				others := uuid.NewString()
				ctl(t, "ITR-006", "origin", map[string]any{"id": others, "customer_id": t.Customer("child"), "target_currency": "GBP", "settled": true})
				unsettled := uuid.NewString()
				ctl(t, "ITR-006", "origin", map[string]any{"id": unsettled, "customer_id": t.Customer("parent"), "target_currency": "GBP", "settled": false})
				for _, o := range []struct{ id, what string }{{others, "a settled GBP conversion of the child, not the parent"}, {unsettled, "the parent's GBP conversion not yet settled"}} {
					shape.FlatAnswer(t, post(t, with("parent_to_end_customer", "GBP", o.id)), shape.Want{Rule: "ITR-006", Status: http.StatusConflict, Code: "internal_transfer_origin_exchange_invalid", What: "a transfer whose origin_exchange_order_id is " + o.what})
				}
				shape.FlatAnswer(t, post(t, with("parent_to_end_customer", "GBP", uuid.NewString())), shape.Want{Rule: "ITR-029", Status: http.StatusConflict, Code: "internal_transfer_origin_exchange_invalid"})
				shape.FlatAnswer(t, post(t, with("parent_to_end_customer", "EUR", conv)), shape.Want{Rule: "ITR-006", Status: http.StatusConflict, Code: "internal_transfer_origin_exchange_invalid"})
				b := with("end_customer_to_parent", "GBP", conv)
				r := post(t, b)
				if r.Status < 400 {
					t.FatalAt(r, "ITR-031", "end_customer_to_parent with origin_exchange_order_id answered %d; it must be refused", r.Status)
				}
				shape.FlatAnswer(t, r, shape.Want{Rule: "ITR-032", Status: http.StatusConflict, Code: "internal_transfer_origin_exchange_invalid"})
			},
		},
	}
}

// transferLimitChecks are the limit decisions, a legacy one included.
func transferLimitChecks() []check.Check {
	return []check.Check{
		{
			ID:     "transfers/limit-decisions",
			Alone:  check.WithControl,
			Title:  "Over the source's limit is 422 internal_transfer_limit_exceeded; an identical retry the same UTC day is not a conflict; the next UTC day it is 409 internal_transfer_limit_decision_stale",
			Rules:  []string{"ITR-030", "ITR-019", "ITR-023", "ITR-024"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  needs,
			Run: func(t *check.T) {
				t.NeedVirtualClock()
				child := t.Customer("child")
				// The limit applies to the source: the child's limit does not
				// stop a parent-to-child transfer.
				ctl(t, "ITR-030", "limit", map[string]any{"customer_id": child, "max_minor": 100})
				defer ctl(t, "ITR-030", "limit", map[string]any{"customer_id": child, "max_minor": -1})
				done(t, "ITR-019", post(t, tbody("parent_to_end_customer", "GBP", 500)))
				b := tbody("end_customer_to_parent", "GBP", 500)
				shape.FlatAnswer(t, post(t, b), shape.Want{Rule: "ITR-030", Status: http.StatusUnprocessableEntity, Code: "internal_transfer_limit_exceeded"})
				r := post(t, b)
				if r.Status == http.StatusConflict {
					t.FatalAt(r, "ITR-023", "an identical retry the same UTC day is a 409; it may reuse the retained decision")
				}
				if _, err := t.Control().Advance(t.Context(), 24*time.Hour); err != nil {
					t.Fatalf("ITR-024", "control: advance the clock: %v", err)
				}
				shape.FlatOrRefusalAnswer(t, post(t, b), shape.Want{Rule: "ITR-024", Status: http.StatusConflict, Code: "internal_transfer_limit_decision_stale"})
			},
		},
		{
			ID:     "transfers/legacy-decision",
			Title:  "A retry against a legacy limit decision without fingerprint is 409 internal_transfer_client_reference_reused",
			Rules:  []string{"ITR-025"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  needs,
			Run: func(t *check.T) {
				b := tbody("parent_to_end_customer", "GBP", 30)
				ctl(t, "ITR-025", "legacy-decision", map[string]any{"parent_id": t.Customer("parent"), "client_reference": b["client_reference"]})
				shape.FlatOrRefusalAnswer(t, post(t, b), shape.Want{Rule: "ITR-025", Status: http.StatusConflict, Code: "internal_transfer_client_reference_reused"})
			},
		},
	}
}

// amountExactAbove253Checks returns check transfers/amount-exact-above-2-53
// (one of transfersChecks).
func amountExactAbove253Checks() []check.Check {
	return []check.Check{
		{
			ID:     "transfers/amount-exact-above-2-53",
			Alone:  check.WithControl,
			Title:  "A quoted amount_minor above 2^53 moves exactly: amount_minor_string is the same digits",
			Rules:  []string{"ITR-008", "ITR-003"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  needs,
			Run: func(t *check.T) {
				parent := t.Customer("parent")
				const big = "9007199254740993" // 2^53 + 1
				if err := t.Control().SetFunds(t.Context(), parent, "EUR", 1<<62); err != nil {
					t.Fatalf("ITR-008", "control: fund the parent: %v", err)
				}
				defer func() { _ = t.Control().SetFunds(t.Context(), parent, "EUR", 5_000_000) }()
				r := post(t, tbody("parent_to_end_customer", "EUR", big))
				x := done(t, "ITR-003", r)
				if s := shape.String(t, "ITR-008", x, "amount_minor_string"); s != big {
					t.FatalAt(r, "ITR-008", "amount_minor_string %q, want exactly %q", s, big)
				}
				back := post(t, tbody("end_customer_to_parent", "EUR", big))
				done(t, "ITR-003", back)
			},
		},
	}
}

// recovery404InFlightChecks returns check transfers/recovery-404-in-flight
// (one of transfersChecks).
func recovery404InFlightChecks() []check.Check {
	return []check.Check{
		{
			ID:     "transfers/recovery-404-in-flight",
			Alone:  check.WithControl,
			Title:  "While the original POST is held in flight a recovery read by its client reference is 404; retrying the original POST with the same UUID and body returns the transfer",
			Rules:  []string{"ITR-022", "ITR-020", "ITR-035"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  needs,
			Run: func(t *check.T) {
				const template = api.P + "/customers/{customerId}/end-customers/{endCustomerId}/internal-transfers"
				ctl := t.Control()
				if err := ctl.SetLatency(t.Context(), http.MethodPost, template, 300*time.Millisecond); err != nil {
					t.Fatalf("ITR-022", "control: latency: %v", err)
				}
				b := tbody("parent_to_end_customer", "GBP", 77)
				var first, during *client.Response
				t.Go(2, func(i int) {
					if i == 0 {
						first = post(t, b)
						return
					}
					time.Sleep(100 * time.Millisecond)
					during = get(t, base(t)+"/by-client-reference/"+b["client_reference"].(string))
				})
				if err := ctl.SetLatency(t.Context(), http.MethodPost, template, 0); err != nil {
					t.Fatalf("ITR-022", "control: latency off: %v", err)
				}
				// Found or not is the decision (ITR-022); the flat 404 body is
				// the reading ITR-035 takes of the read during the hold.
				shape.FlatAnswer(t, during, shape.Want{Rule: "ITR-022", ShapeRule: "ITR-035", Status: http.StatusNotFound, What: "the recovery read while the original POST is held in flight"})
				x := done(t, "ITR-012", first)
				again := done(t, "ITR-020", post(t, b))
				if again["id"] != x["id"] {
					t.Fatalf("ITR-020", "retrying the original POST answered %v, want the transfer %v", again["id"], x["id"])
				}
			},
		},
	}
}

// available reads a customer's Available balance in currency from GET
// .../banking/balance (0 when the currency has no row).
func available(t *check.T, rule, customerID, currency string) int {
	d := shape.EnvelopeAnswer(t, get(t, api.Customer(customerID)+"/banking/balance"), shape.Want{Rule: rule, Status: http.StatusOK})
	for _, x := range shape.Array(t, rule, d, "balances") {
		if m, _ := x.(map[string]any); m != nil && m["currency"] == currency {
			return shape.Int(t, rule, m, "balance_minor")
		}
	}
	return 0
}

// balancesMoveChecks returns check transfers/balances-move (one of
// transfersChecks).
func balancesMoveChecks() []check.Check {
	return []check.Check{
		{
			ID:    "transfers/balances-move",
			Alone: check.Always,
			Title: "A completed transfer has moved the amount: parent_to_end_customer takes it from the parent's Available GBP and adds it to the child's; end_customer_to_parent the reverse; an identical retry returns the same transfer and moves nothing more",
			Rules: []string{"ITR-010", "ITR-001", "ITR-012", "ITR-020"},
			// Alone: it compares the shared parent's and child's balances
			// before and after, which any other check's transfer or
			// withdrawal would move.
			Labels: []string{check.Mutating, check.Alone},
			Needs:  needs,
			Run: func(t *check.T) {
				parent, child := t.Customer("parent"), t.Customer("child")
				p0, c0 := available(t, "ITR-010", parent, "GBP"), available(t, "ITR-010", child, "GBP")
				for _, c := range []struct {
					dir     string
					toChild int // what the transfer moves to the child
				}{{"parent_to_end_customer", 700}, {"end_customer_to_parent", -300}} {
					amount := max(c.toChild, -c.toChild)
					b := tbody(c.dir, "GBP", amount)
					r := post(t, b)
					first := done(t, "ITR-012", r)
					// An identical retry returns the same transfer and moves
					// nothing more (ITR-020).
					if again := done(t, "ITR-020", post(t, b)); again["id"] != first["id"] {
						t.Fatalf("ITR-020", "an identical retry answered transfer %v, want the same %v", again["id"], first["id"])
					}
					p1, c1 := available(t, "ITR-010", parent, "GBP"), available(t, "ITR-010", child, "GBP")
					dp, dc := p1-p0, c1-c0
					switch {
					case dp == -c.toChild && dc == c.toChild:
					case dp == c.toChild && dc == -c.toChild:
						t.FatalAt(r, "ITR-001", "a %s transfer of %d moved the parent's Available GBP by %+d and the child's by %+d: the money went the other way", c.dir, amount, dp, dc)
					case dp == -2*c.toChild && dc == 2*c.toChild:
						t.FatalAt(r, "ITR-020", "a %s transfer of %d and its identical retry moved the parent's Available GBP by %+d and the child's by %+d: the retry moved the money again", c.dir, amount, dp, dc)
					default:
						t.FatalAt(r, "ITR-010", "a completed %s transfer of %d moved the parent's Available GBP by %+d and the child's by %+d, want %+d and %+d: both balance changes commit before completed", c.dir, amount, dp, dc, -c.toChild, c.toChild)
					}
					p0, c0 = p1, c1
				}
			},
		},
	}
}

// newestFirstChecks returns check transfers/list-newest-first (one of
// transfersChecks).
func newestFirstChecks() []check.Check {
	return []check.Check{
		{
			ID:    "transfers/list-newest-first",
			Alone: check.Always,
			Title: "The child's internal-transfers list is newest first: of two transfers a second apart, the later one is listed before the earlier",
			Rules: []string{"ITR-013", "ITR-012"},
			// Alone: on a virtual clock it moves the clock a second.
			Labels: []string{check.Mutating, check.Alone},
			Needs:  needs,
			Run: func(t *check.T) {
				older := done(t, "ITR-012", post(t, tbody("parent_to_end_customer", "GBP", 13)))
				if t.Target().VirtualClock() {
					if _, err := t.Control().Advance(t.Context(), time.Second); err != nil {
						t.NoVerdict(err)
					}
				} else {
					time.Sleep(1100 * time.Millisecond)
				}
				newer := done(t, "ITR-012", post(t, tbody("end_customer_to_parent", "GBP", 13)))
				got := ids(rows(t, "ITR-013", get(t, base(t)+"?take=2")))
				if len(got) != 2 || got[0] != newer["id"] || got[1] != older["id"] {
					t.Fatalf("ITR-013", "take=2 lists %v, want the newer transfer %v first, then the older %v (newest first)", got, newer["id"], older["id"])
				}
			},
		},
	}
}
