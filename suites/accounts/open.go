package accounts

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// blocked is the exact blocked-jurisdiction list (document 1, Two refusals
// to know).
var blocked = strings.Fields("AF AQ BV BY CD CF CN CU ET GS HM HT IQ IR KP LB LY ML MM NI NR RU SD SO SS SY TF UA UM VE YE ZW")

// openChecks are the checks of open.go.
func openChecks() []check.Check {
	return slices.Concat(
		openingChecks(),
		jurisdictionChecks(),
		openRefusalChecks(),
	)
}

// openingChecks open an account and read what it answers: bank details once
// Completed, the USD provider, the form schema and the v2 list.
func openingChecks() []check.Check {
	return []check.Check{
		{
			ID:     "accounts/open-complete-bank-details",
			Title:  "POST banking/accounts answers data.account (id, status) of the customer itself, though another customer holds accounts at the same provider; an account opened without a provider is routed by the tenant's rule; once Completed it has provider_account_id and the currency's bank details (GBP sort_code + account_number, EUR iban + bic); the list and by-id read show it",
			Rules:  []string{"FIAT-001", "FIAT-004", "FIAT-005", "FIAT-006", "FIAT-007", "FIAT-011", "FIAT-018", "FIAT-022", "SVC-002", "CUST-022"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.tenant"},
			Run: func(t *check.T) {
				cust := fresh.Activated(t, "FIAT-022")
				// The tenant's routing rules name PROVIDER_A for both
				// currencies: an account opened without a provider is routed
				// by them.
				policy(t, cust, map[string]any{"route": map[string]any{"GBP": "PROVIDER_A", "EUR": "PROVIDER_A"}})
				// Another customer of the tenant already holds accounts in both
				// currencies at the same provider: the customer's are its own.
				other := fresh.Activated(t, "FIAT-022")
				policy(t, other, map[string]any{"route": map[string]any{"GBP": "PROVIDER_A", "EUR": "PROVIDER_A"}})
				for _, cur := range []string{"GBP", "EUR"} {
					opened(t, "FIAT-022", open(t, other, map[string]any{"currency": cur}))
				}
				for _, tc := range []struct{ cur, a, b string }{{"GBP", "sort_code", "account_number"}, {"EUR", "iban", "bic"}} {
					a := opened(t, "FIAT-022", open(t, cust, map[string]any{"currency": tc.cur}))
					id := a["id"].(string)
					if owner, present := a["customer_id"]; present && owner != cust {
						t.Fatalf("SVC-002", "the %s account opened for customer %s names customer_id %v: an account belongs to one customer", tc.cur, cust, owner)
					}
					if p, _ := a["provider"].(string); a["provider"] != nil && p != "PROVIDER_A" && p != "PROVIDER_B" {
						t.Errorf("FIAT-001", "a %s account names provider %v, want PROVIDER_A or PROVIDER_B", tc.cur, a["provider"])
					}
					if a["status"] == "Completed" && a["provider_account_id"] == nil {
						t.Errorf("FIAT-005", "the new %s account is Completed with provider_account_id null", tc.cur)
					}
					outcome(t, id, "Completed")
					got := readAccount(t, cust, id)
					if got["status"] != "Completed" {
						t.Fatalf("FIAT-011", "after the provider completed it the account reads status %v, want Completed", got["status"])
					}
					// The other provider is a routing decision; a provider outside
					// the two is already wrong under FIAT-001.
					if p := got["provider"]; p == "PROVIDER_B" {
						t.Errorf("FIAT-007", "a %s account opened without a provider under a routing rule naming PROVIDER_A is issued by %v", tc.cur, p)
					}
					if p, _ := got["provider_account_id"].(string); p == "" {
						t.Errorf("FIAT-005", "the Completed %s account has provider_account_id %v, want it populated", tc.cur, got["provider_account_id"])
					}
					for _, k := range []string{tc.a, tc.b} {
						if v, _ := got[k].(string); v == "" {
							t.Errorf("FIAT-006", "the Completed %s account has %s %v, want a string", tc.cur, k, got[k])
						}
					}
					if owner, present := got["customer_id"]; present && owner != cust {
						t.Errorf("SVC-002", "the %s account of customer %s names customer_id %v", tc.cur, cust, owner)
					}
					if got["currency"] != nil && got["currency"] != tc.cur {
						t.Errorf("FIAT-001", "the %s account reads currency %v", tc.cur, got["currency"])
					}
					found := false
					for _, x := range accountsOf(t, "FIAT-018", "tenant", accountsPath(cust)) {
						if x["id"] == id {
							found = true
						}
					}
					if !found {
						t.Errorf("FIAT-018", "the %s account %s is not in GET .../banking/accounts", tc.cur, id)
					}
				}
			},
		},
		{
			ID:     "accounts/usd-always-provider-a",
			Title:  "A USD account is PROVIDER_A even when the tenant's routing rule names PROVIDER_B; asking PROVIDER_B or an unknown provider for USD is 422 unsupported_provider",
			Rules:  []string{"FIAT-002", "ERR-069", "CUST-022"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.tenant"},
			Run: func(t *check.T) {
				cust := fresh.Activated(t, "FIAT-022")
				for _, p := range []string{"PROVIDER_B", "PROVIDER_Z"} {
					r := open(t, cust, map[string]any{"currency": "USD", "provider": p})
					shape.EnvelopeAnswer(t, r, shape.Want{Rule: "ERR-069", Status: http.StatusUnprocessableEntity, Code: "unsupported_provider"})
				}
				policy(t, cust, map[string]any{"route": map[string]any{"USD": "PROVIDER_B"}})
				a := opened(t, "FIAT-022", open(t, cust, map[string]any{"currency": "USD"}))
				if a["provider"] != "PROVIDER_A" {
					outcome(t, a["id"].(string), "Completed")
					a = readAccount(t, cust, a["id"].(string))
					if a["provider"] != "PROVIDER_A" {
						t.Fatalf("FIAT-002", "a USD account routed under a rule naming PROVIDER_B is issued by %v, want PROVIDER_A", a["provider"])
					}
				}
			},
		},
		{
			ID:     "accounts/form-schema-and-transactions",
			Title:  "form-schema is its own route (200 envelope); a credited deposit is a journal line of the receiving account only",
			Rules:  []string{"FIAT-019", "FIAT-020", "FIAT-021", "FIAT-024", "CUST-022"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.tenant"},
			Run: func(t *check.T) {
				cust := fresh.Activated(t, "FIAT-022")
				fs := get(t, "tenant", accountsPath(cust)+"/form-schema")
				if d := shape.EnvelopeAnswer(t, fs, shape.Want{Rule: "FIAT-020", Status: http.StatusOK}); len(d) == 0 {
					t.ErrorAt(fs, "FIAT-019", "form-schema answered an empty data object; a form schema is due (its members are not shown)")
				}
				gbp := completedAccount(t, cust, "GBP")["id"].(string)
				eur := completedAccount(t, cust, "EUR")["id"].(string)
				ref := "TS-" + uuid.NewString()[:8]
				deposit(t, gbp, 4321, 0, "Journal Payer", ref, false)
				rows := func(id string) []map[string]any {
					d := shape.EnvelopeAnswer(t, get(t, "tenant", accountsPath(cust)+"/"+id+"/transactions"), shape.Want{Rule: "FIAT-021", Status: http.StatusOK})
					var out []map[string]any
					for _, x := range shape.Array(t, "FIAT-024", d, "transactions") {
						if m, ok := x.(map[string]any); ok {
							out = append(out, m)
						}
					}
					return out
				}
				hit := 0
				for _, row := range rows(gbp) {
					if row["account_id"] != gbp {
						t.Errorf("FIAT-021", "the GBP account's transactions list holds a line of account %v", row["account_id"])
					}
					if jsonText(row["amount_minor"]) == "4321" {
						hit++
					}
				}
				if hit != 1 {
					t.Errorf("FIAT-021", "the GBP account's transactions list holds %d lines of the 4321 deposit, want 1", hit)
				}
				for _, row := range rows(eur) {
					if row["account_id"] != eur || jsonText(row["amount_minor"]) == "4321" {
						t.Errorf("FIAT-021", "the EUR account's transactions list shows another account's line: %v", row)
					}
				}
			},
		},
		{
			ID:    "accounts/v2-fiat-accounts",
			Title: "GET V2/fiat/accounts answers the v2 simple list (items, count, limit; count never above limit) and /{accountId} reads one",
			Rules: []string{"V2-004"},
			Needs: []string{"keys.tenant", "customers.active_personal"},
			Run: func(t *check.T) {
				r := get(t, "tenant", "/api/v2/public/fiat/accounts?limit=2")
				shape.StatusAnswer(t, r, shape.Want{Rule: "V2-004", Status: http.StatusOK})
				m := shape.Object(t, "V2-004", r)
				if _, env := m["success"]; env {
					t.FatalAt(r, "V2-004", "the v2 list answers the v1 envelope: %s", shape.Clip(r.Body))
				}
				count, limit := shape.Int(t, "V2-004", m, "count"), shape.Int(t, "V2-004", m, "limit")
				if limit != 2 || count > limit {
					t.FatalAt(r, "V2-004", "count %d, limit %d: want limit 2 and count ≤ limit", count, limit)
				}
				var items []any
				for _, k := range slices.Sorted(maps.Keys(m)) {
					v := m[k]
					if arr, ok := v.([]any); ok && k != "errors" {
						items = arr
					}
				}
				if len(items) != count {
					t.FatalAt(r, "V2-004", "count %d but the list holds %d items", count, len(items))
				}
				if count == 0 {
					t.Skipf("the tenant's fiat account list is empty; nothing to read by id")
				}
				first, _ := items[0].(map[string]any)
				id, _ := first["id"].(string)
				one := get(t, "tenant", "/api/v2/public/fiat/accounts/"+id)
				shape.StatusAnswer(t, one, shape.Want{Rule: "V2-004", Status: http.StatusOK})
				if got, _ := shape.Get(shape.Object(t, "V2-004", one), "id"); got != id {
					if d, _ := shape.Get(shape.Object(t, "V2-004", one), "data.account.id"); d != id {
						t.FatalAt(one, "V2-004", "V2/fiat/accounts/%s does not read that account", id)
					}
				}
			},
		},
	}
}

// jurisdictionChecks are the refusals by where and who the customer is:
// blocked jurisdictions, currencies not offered to its type, self-serve locks.
func jurisdictionChecks() []check.Check {
	return []check.Check{
		{
			ID:     "accounts/blocked-jurisdiction-seeded",
			Title:  "Opening a fiat account for customers.blocked_country is 403 flat fiat_unsupported_jurisdiction, with or without a requested provider, in every currency",
			Rules:  []string{"SVC-007", "SVC-008", "SVC-010", "ERR-033"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant", "customers.blocked_country"},
			Run: func(t *check.T) {
				cust := t.Customer("blocked_country")
				r := open(t, cust, map[string]any{"currency": "GBP"})
				gateForm(t, r, "a GBP account for customers.blocked_country")
				shape.FlatAnswer(t, r, shape.Want{Rule: "SVC-007", Status: http.StatusForbidden, Code: "fiat_unsupported_jurisdiction"})
				// Every currency and any requested provider (SVC-008); the
				// code at another status is ERR-033's.
				for _, b := range []map[string]any{{"currency": "EUR", "provider": "PROVIDER_A"}, {"currency": "USD"}, {"currency": "GBP", "provider": "PROVIDER_B"}} {
					shape.FlatAnswer(t, open(t, cust, b), shape.Want{Rule: "SVC-008", ShapeRule: "ERR-033", Status: http.StatusForbidden, Code: "fiat_unsupported_jurisdiction", What: fmt.Sprintf("opening %v for customers.blocked_country", b)})
				}
			},
		},
		{
			ID:     "accounts/blocked-jurisdiction-list-before-routing",
			Title:  "Every country of the blocked list gets 403 fiat_unsupported_jurisdiction, even when no routing rule exists for the currency; a country off the list is not refused so",
			Rules:  []string{"SVC-007", "SVC-008", "SVC-010", "CUST-022"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.tenant"},
			Run: func(t *check.T) {
				cust := fresh.Activated(t, "FIAT-022")
				policy(t, cust, map[string]any{"route": map[string]any{"GBP": "none", "EUR": "none"}})
				for _, j := range blocked {
					shape.EnvelopeAnswer(t, fresh.Patch(t, cust, map[string]any{"jurisdiction": j}), shape.Want{Rule: "CUST-011", Status: http.StatusOK})
					r := open(t, cust, map[string]any{"currency": "GBP"})
					if r.Status == http.StatusForbidden {
						gateForm(t, r, "a GBP account for a customer in "+j)
						shape.FlatAnswer(t, r, shape.Want{Rule: "SVC-008", Status: http.StatusForbidden, Code: "fiat_unsupported_jurisdiction"})
						continue
					}
					// Not refused while no route exists: either the country
					// is off the server's list (SVC-007) or its check runs
					// after routing (SVC-008). With a route back, a listed
					// country is still refused; one off the list is not.
					policy(t, cust, map[string]any{})
					again := open(t, cust, map[string]any{"currency": "GBP"})
					if refused := again.Status == http.StatusForbidden; !refused {
						t.FatalAt(again, "SVC-007", "%s is on the blocked-jurisdiction list, but opening a GBP account for a customer there is %d, want 403 fiat_unsupported_jurisdiction", j, again.Status)
					}
					t.FatalAt(r, "SVC-008", "%s is refused 403 once a route exists, but with no route the refusal is %d: the blocked-jurisdiction check runs after routing", j, r.Status)
				}
				shape.EnvelopeAnswer(t, fresh.Patch(t, cust, map[string]any{"jurisdiction": "FR"}), shape.Want{Rule: "CUST-011", Status: http.StatusOK})
				r := open(t, cust, map[string]any{"currency": "GBP"})
				shape.EnvelopeAnswer(t, r, shape.Want{Rule: "SVC-007", Status: http.StatusConflict, Code: "provider_routing_unavailable"})
			},
		},
		{
			ID:     "accounts/currency-type-and-self-serve",
			Title:  "A currency not offered to the customer's type is 403 flat currency_not_available_for_customer_type; a locked customer gets 403 self_serve_provisioning_disabled first, even before the kyc precondition",
			Rules:  []string{"SVC-009", "SVC-010", "ERR-034", "ERR-035", "ERR-036", "CUST-022", "CUST-011"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.tenant"},
			Run: func(t *check.T) {
				cust := fresh.Activated(t, "FIAT-022")
				policy(t, cust, map[string]any{"not_offered": []string{"USD"}})
				r := open(t, cust, map[string]any{"currency": "USD"})
				if r.Status == http.StatusForbidden {
					gateForm(t, r, "a USD account the customer's type is not offered")
				}
				shape.FlatAnswer(t, r, shape.Want{Rule: "SVC-009", Status: http.StatusForbidden, Code: "currency_not_available_for_customer_type"})
				policy(t, cust, map[string]any{"self_serve_disabled": true, "not_offered": []string{"USD"}})
				shape.FlatAnswer(t, open(t, cust, map[string]any{"currency": "USD"}), shape.Want{Rule: "ERR-035", Status: http.StatusForbidden, Code: "self_serve_provisioning_disabled"})
				draft, _ := fresh.Customer(t)
				policy(t, draft, map[string]any{"self_serve_disabled": true})
				shape.FlatAnswer(t, open(t, draft, map[string]any{"currency": "GBP"}), shape.Want{Rule: "ERR-035", Status: http.StatusForbidden, Code: "self_serve_provisioning_disabled"})
				// First of every operation refusal (ERR-036's reading): a
				// locked customer in a blocked country gets the lock's 403,
				// not the jurisdiction's.
				policy(t, cust, map[string]any{"self_serve_disabled": true})
				shape.EnvelopeAnswer(t, fresh.Patch(t, cust, map[string]any{"jurisdiction": "RU"}), shape.Want{Rule: "CUST-011", Status: http.StatusOK})
				r = open(t, cust, map[string]any{"currency": "GBP"})
				if code := shape.BodyCode(r); code == "fiat_unsupported_jurisdiction" {
					t.FatalAt(r, "ERR-036", "a customer with account opening locked, in a blocked country, got %d %s: self_serve_provisioning_disabled is checked first", r.Status, code)
				}
				shape.FlatAnswer(t, r, shape.Want{Rule: "ERR-035", Status: http.StatusForbidden, Code: "self_serve_provisioning_disabled"})
			},
		},
	}
}

// openRefusalChecks are the other refusals of account opening: operation
// codes, a duplicate currency, the KYC precondition and the compliance gates.
func openRefusalChecks() []check.Check {
	return []check.Check{
		{
			ID:     "accounts/operation-codes",
			Title:  "Account opening refusals: 422 unsupported_currency, provider_unavailable, missing_provider_prerequisites; 409 provider_routing_unavailable, onboarding_prerequisite_not_met (envelope data.code)",
			Rules:  []string{"ERR-068", "ERR-070", "ERR-071", "ERR-072", "ERR-073", "ERR-041", "CUST-022"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.tenant"},
			Run: func(t *check.T) {
				cust := fresh.Activated(t, "FIAT-022")
				// Each code's status is its own sentence; that operation
				// codes ride in the envelope's data.code is ERR-041's.
				shape.EnvelopeAnswer(t, open(t, cust, map[string]any{"currency": "JPY"}), shape.Want{Rule: "ERR-068", ShapeRule: "ERR-041", Status: http.StatusUnprocessableEntity, Code: "unsupported_currency"})
				cases := []struct {
					rule, code string
					status     int
					p          map[string]any
				}{
					{"ERR-070", "provider_unavailable", http.StatusUnprocessableEntity, map[string]any{"provider_down": []string{"PROVIDER_A", "PROVIDER_B"}}},
					{"ERR-071", "missing_provider_prerequisites", http.StatusUnprocessableEntity, map[string]any{"prerequisite": "missing_provider_prerequisites"}},
					{"ERR-073", "onboarding_prerequisite_not_met", http.StatusConflict, map[string]any{"prerequisite": "onboarding_prerequisite_not_met"}},
					{"ERR-072", "provider_routing_unavailable", http.StatusConflict, map[string]any{"route": map[string]any{"GBP": "none"}}},
				}
				for _, tc := range cases {
					policy(t, cust, tc.p)
					shape.EnvelopeAnswer(t, open(t, cust, map[string]any{"currency": "GBP"}), shape.Want{Rule: tc.rule, ShapeRule: "ERR-041", Status: tc.status, Code: tc.code})
				}
				// A customer-scoped route also answers the flat 404 (ERR-041):
				// an unknown customer id.
				r := open(t, uuid.NewString(), map[string]any{"currency": "GBP"})
				shape.StatusAnswer(t, r, shape.Want{Rule: "ERR-041", Status: http.StatusNotFound, What: "POST banking/accounts for an unknown customer id"})
				flatForm(t, "ERR-041", r, "the 404 of an unknown customer id")
			},
		},
		{
			ID:     "accounts/duplicate-currency-account",
			Title:  "Opening an account in a currency where a Completed account exists at another provider is 409 duplicate_currency_account",
			Rules:  []string{"ERR-074", "FIAT-018"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant", "customers.active_personal"},
			Run: func(t *check.T) {
				cust := t.Customer("active_personal")
				var held map[string]any
				for _, a := range accountsOf(t, "FIAT-018", "tenant", accountsPath(cust)) {
					if a["status"] == "Completed" && (a["currency"] == "GBP" || a["currency"] == "EUR") && (a["provider"] == "PROVIDER_A" || a["provider"] == "PROVIDER_B") {
						held = a
						break
					}
				}
				if held == nil {
					t.Skipf("customers.active_personal holds no Completed GBP or EUR account naming its provider")
				}
				other := "PROVIDER_A"
				if held["provider"] == "PROVIDER_A" {
					other = "PROVIDER_B"
				}
				r := open(t, cust, map[string]any{"currency": held["currency"], "provider": other})
				shape.EnvelopeAnswer(t, r, shape.Want{Rule: "ERR-074", Status: http.StatusConflict, Code: "duplicate_currency_account"})
			},
		},
		{
			ID:     "accounts/kyc-precondition",
			Title:  "Opening a fiat account for a customer that is not Active is 409 kyc_or_kyb_not_approved",
			Rules:  []string{"LIFE-025", "FIAT-022"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant", "customers.draft"},
			Run: func(t *check.T) {
				r := open(t, t.Customer("draft"), map[string]any{"currency": "GBP"})
				if r.Status/100 == 2 {
					// The route's own sentence: what the refusal should have
					// said is moot once the account is opened.
					t.FatalAt(r, "FIAT-022", "a Draft customer opened a fiat account (%d): account opening needs approved onboarding", r.Status)
				}
				shape.EnvelopeAnswer(t, r, shape.Want{Rule: "LIFE-025", Status: http.StatusConflict, Code: "kyc_or_kyb_not_approved"})
			},
		},
		{
			ID:     "accounts/compliance-gates",
			Title:  "Account opening applies the compliance policy gates in the flat body: 403 compliance_subject_blocked, 409 compliance_subject_manual_review, _lifecycle_unavailable, _lifecycle_unknown",
			Rules:  []string{"ERR-028", "ERR-029", "ERR-030", "ERR-031", "ERR-032", "ERR-005", "CUST-022"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.tenant"},
			Run: func(t *check.T) {
				cust := fresh.Activated(t, "FIAT-022")
				defer compliance(t, cust, "")
				var accepted []string
				var acceptedAt []acceptedOpening
				for _, tc := range []struct {
					state, rule, code string
					status            int
				}{
					{"blocked", "ERR-029", "compliance_subject_blocked", http.StatusForbidden},
					{"manual_review", "ERR-030", "compliance_subject_manual_review", http.StatusConflict},
					{"unavailable", "ERR-031", "compliance_subject_lifecycle_unavailable", http.StatusConflict},
					{"unknown", "ERR-032", "compliance_subject_lifecycle_unknown", http.StatusConflict},
				} {
					compliance(t, cust, tc.state)
					r := open(t, cust, map[string]any{"currency": "GBP"})
					if r.Status/100 == 2 {
						// One state let through breaks that state's refusal;
						// every state let through, the gate itself (below).
						accepted = append(accepted, tc.state)
						acceptedAt = append(acceptedAt, acceptedOpening{r, tc.rule})
						continue
					}
					if r.Status == http.StatusConflict {
						// A compliance hold: the 409 is the flat body (ERR-005).
						conflictForm(t, r, formFlat, "a 409 for compliance state "+tc.state)
					}
					shape.FlatAnswer(t, r, shape.Want{Rule: tc.rule, Status: tc.status, Code: tc.code})
				}
				if len(accepted) == 4 {
					t.FatalAt(acceptedAt[0].r, "ERR-028", "account opening was accepted in every compliance state (%v): the policy gates do not apply to it", accepted)
				}
				for _, a := range acceptedAt {
					t.ErrorAt(a.r, a.rule, "account opening was accepted for a customer in compliance state %v", accepted)
				}
				if len(accepted) > 0 {
					return
				}
				// The other two 409s of the status table (ERR-005): an
				// operation refusal is the envelope, an idempotency
				// conflict problem+json. Each is judged by its form only
				// when the server answers 409; its code is another check's.
				compliance(t, cust, "")
				key := t.NewKey()
				first := map[string]any{"currency": "GBP"}
				r := t.Do(t.Client("tenant"), client.Request{Method: http.MethodPost, Path: accountsPath(cust), JSON: first, IdempotencyKey: key})
				if r.Status/100 != 2 {
					t.Skipf("the GBP account was not opened once the compliance state cleared (%d): the envelope and problem+json 409s need it", r.Status)
				}
				held := accountIn(r)
				id, _ := held["id"].(string)
				if id == "" {
					t.Skipf("the GBP opening's answer names no data.account.id: the envelope and problem+json 409s need it")
				}
				other := "PROVIDER_A"
				if held["provider"] == "PROVIDER_A" {
					other = "PROVIDER_B"
				}
				outcome(t, id, "Completed")
				if r := open(t, cust, map[string]any{"currency": "GBP", "provider": other}); r.Status == http.StatusConflict {
					conflictForm(t, r, formEnvelope, "a second GBP account at another provider (an operation refusal)")
				}
				reused := t.Do(t.Client("tenant"), client.Request{Method: http.MethodPost, Path: accountsPath(cust), JSON: map[string]any{"currency": "EUR"}, IdempotencyKey: key})
				if reused.Status == http.StatusConflict {
					conflictForm(t, reused, formProblem, "the opening's Idempotency-Key reused with another body (an idempotency conflict)")
				}
			},
		},
	}
}

// acceptedOpening is an account opening a compliance state should have
// refused, and the rule of that state's refusal.
type acceptedOpening struct {
	r    *client.Response
	rule string
}

// jsonText is v's JSON text (json.Number as written).
func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
