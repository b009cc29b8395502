package webhooks

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/shape"
	"github.com/touchstone-harness/touchstone/internal/webhooks/verify"
)

// Fiat account and fiat deposit events (document 2, Events: Event types and
// emitting outcomes; Payload fields / viban.ready, the account-request
// family, deposit.received (fiat), deposit.returned; document 1, States /
// Fiat account provisioning).

var accountEventTypes = []string{"viban.ready", "virtual_account_request.completed", "customer.account_ready",
	"virtual_account_request.needs_correction", "customer.needs_information", "virtual_account_request.rejected"}

func fiatCtl(t *check.T, path string, body map[string]any) map[string]any {
	var out map[string]any
	if err := t.Control().Call(t.Context(), http.MethodPost, path, body, &out); err != nil {
		t.NoVerdict(err)
	}
	return out
}

// openAccount opens an account in currency for the customer (setup) and
// returns its id.
func openAccount(t *check.T, customerID, currency string) string {
	r := t.Do(t.Client("tenant"), client.Request{Method: http.MethodPost, Path: api.Customer(customerID) + "/banking/accounts", JSON: map[string]any{"currency": currency}, IdempotencyKey: t.NewKey()})
	return shape.String(t, "FIAT-004", fresh.Setup(t, "FIAT-022", r, "open a fiat account"), "account.id")
}

func provisioning(t *check.T, accountID, status, reason, event string) {
	fiatCtl(t, "/fiat/accounts/"+accountID+"/outcome", map[string]any{"status": status, "reason": reason, "event": event})
}

// depositRecord reads a deposit (GET path with the tenant key; what names
// it) for a payload check that compares a delivery with it: data, or nil
// when the read is not a 200 object, and then rule is not judged on this
// target.
func depositRecord(t *check.T, path, what, rule string) map[string]any {
	r := t.Do(t.Client("tenant"), client.Request{Method: http.MethodGet, Path: path})
	var data map[string]any
	if r.Status == http.StatusOK {
		var env map[string]any
		_ = json.Unmarshal(r.Body, &env)
		data, _ = env["data"].(map[string]any)
	}
	if data == nil {
		t.NotJudged(fmt.Sprintf("GET %s answered %d: the deposit's provider_reference was not read", what, r.Status), rule)
	}
	return data
}

func text(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// translation tells a status that is a translation of a provisioning
// state, right or wrong: one of the four documented values, or an internal
// state (document 1, States / Fiat account provisioning) left untranslated,
// in any case. Any other value breaks the documented set itself.
func translation(v any) bool {
	s, _ := v.(string)
	switch strings.ToLower(s) {
	case "active", "pending", "needs_information", "failed",
		"completed", "manualreview", "pendingprovider", "requested", "closed":
		return true
	}
	return false
}

// depositKind judges deposit.received data.deposit_type for a deposit of
// kind want: a value outside fiat and crypto breaks the event's documented
// kinds (EVT-056), the other kind the deposit's own (EVT-097).
func depositKind(t *check.T, d map[string]any, want string) {
	switch got := d["deposit_type"]; got {
	case want:
	case "fiat", "crypto":
		t.Errorf("EVT-097", "deposit.received data.deposit_type is %v for a %s deposit, want %s", got, want, want)
	default:
		t.Errorf("EVT-056", "deposit.received data.deposit_type is %v, want fiat or crypto (%s)", got, want)
	}
}

// requestFamily asserts the one data shape of the account-request family
// for an event about account id with the expected status and reason.
func requestFamily(t *check.T, typ string, env, d map[string]any, cust, id, currency, status, reason string) {
	for _, k := range []string{"event", "customer_id", "request_id", "virtual_account_id", "currency", "provider", "status", "vendor_error_code",
		"vendor_error_message", "officer_note", "missing_fields", "created_at", "updated_at", "completed_at"} {
		if _, ok := d[k]; !ok {
			t.Errorf("EVT-084", "%s data lacks %s: %v", typ, k, d)
		}
	}
	if ev, present := d["event"]; present && ev != typ { // absent: EVT-084 above
		t.Errorf("EVT-085", "%s data.event is %v, want the event type", typ, ev)
	}
	if d["customer_id"] != cust || d["currency"] != currency {
		t.Errorf("EVT-084", "%s data.customer_id %v / currency %v, want %s / %s", typ, d["customer_id"], d["currency"], cust, currency)
	}
	if d["request_id"] != id || d["virtual_account_id"] != id {
		t.Errorf("EVT-086", "%s request_id %v and virtual_account_id %v, want both the account id %s", typ, d["request_id"], d["virtual_account_id"], id)
	}
	if d["status"] != status {
		rule := map[string]string{"active": "FIAT-012", "failed": "FIAT-013", "needs_information": "FIAT-014", "pending": "FIAT-015"}[status]
		if rule == "" {
			rule = "FIAT-016"
		}
		if translation(d["status"]) {
			// A documented status or an internal state left untranslated:
			// the wrong translation of the state.
			t.Errorf(rule, "%s data.status is %v, want %s", typ, d["status"], status)
		} else {
			t.Errorf("EVT-087", "%s data.status is %v, not one of active, pending, needs_information, failed (want %s)", typ, d["status"], status)
		}
	}
	if reason == "" {
		if d["vendor_error_code"] != nil {
			t.Errorf("EVT-089", "%s without a status reason: vendor_error_code %v, want null", typ, d["vendor_error_code"])
		}
		if d["vendor_error_message"] != nil || d["officer_note"] != nil {
			t.Errorf("EVT-090", "%s without a status reason: vendor_error_message %v, officer_note %v; want both null", typ, d["vendor_error_message"], d["officer_note"])
		}
	} else {
		if d["vendor_error_code"] != "provider_status" {
			t.Errorf("EVT-089", "%s with a status reason: vendor_error_code %v, want provider_status", typ, d["vendor_error_code"])
		}
		if d["vendor_error_message"] != reason || d["officer_note"] != reason {
			t.Errorf("EVT-090", "%s vendor_error_message %v and officer_note %v, want both %q", typ, d["vendor_error_message"], d["officer_note"], reason)
		}
	}
	if mf, ok := d["missing_fields"].([]any); !ok || len(mf) != 0 {
		t.Errorf("EVT-091", "%s missing_fields is %v, want an empty array", typ, d["missing_fields"])
	}
	if d["created_at"] != env["occurred_at"] || d["updated_at"] != env["occurred_at"] {
		t.Errorf("EVT-092", "%s created_at %v / updated_at %v, want both occurred_at %v", typ, d["created_at"], d["updated_at"], env["occurred_at"])
	}
	wantCompleted := any(nil)
	if typ == "virtual_account_request.completed" || typ == "customer.account_ready" {
		wantCompleted = env["occurred_at"]
	}
	if d["completed_at"] != wantCompleted {
		t.Errorf("EVT-093", "%s completed_at %v, want %v", typ, d["completed_at"], wantCompleted)
	}
}

// eventsFiatChecks are the checks of events_fiat.go.
func eventsFiatChecks() []check.Check {
	return slices.Concat(
		fiatAccountEventChecks(),
		fiatDepositEventChecks(),
	)
}

// fiatAccountEventChecks are the events of a fiat account's provisioning:
// issued, needing information, rejected.
func fiatAccountEventChecks() []check.Check {
	return []check.Check{
		{
			ID:    "webhooks/event-fiat-account-issued",
			Title: "A completed fiat account emits viban.ready (coordinates per currency, provider fields, nulls as documented), virtual_account_request.completed and customer.account_ready (one shape, status active)",
			Rules: []string{"EVT-052", "EVT-053", "EVT-076", "EVT-077", "EVT-078", "EVT-079", "EVT-080", "EVT-081", "EVT-082", "EVT-083",
				"EVT-084", "EVT-085", "EVT-086", "EVT-087", "EVT-089", "EVT-091", "EVT-092", "EVT-093", "FIAT-012", "EVT-046", "WHM-003"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.tenant", "webhook_url"},
			Run: func(t *check.T) {
				in, subID, stop := listen(t, "tenant", accountEventTypes...)
				defer stop()
				cust := fresh.Activated(t, "FIAT-022")
				for _, cur := range []string{"EUR", "GBP"} {
					id := openAccount(t, cust, cur)
					provisioning(t, id, "Completed", "", "")
					in.await(subID, 3)
					recs := in.records()
					// The three events first (EVT-052): their instants and ids
					// are judged among the three.
					for _, typ := range []string{"viban.ready", "virtual_account_request.completed", "customer.account_ready"} {
						oneEnv(t, "EVT-052", envsOf(t, recs, subID, typ, id), typ+" of the completed "+cur+" account")
					}
					// One outcome, three deliveries: distinct event ids, one
					// envelope id and occurred_at (EVT-046).
					ids, at := map[string]bool{}, map[any]bool{}
					for _, typ := range []string{"viban.ready", "virtual_account_request.completed", "customer.account_ready"} {
						for _, rec := range forSub(recs, subID) {
							if rec.EventType == typ && envelopeOf(t, "EVT-006", rec)["id"] == id {
								ids[rec.Header.Get(verify.HeaderID)] = true
								at[envelopeOf(t, "EVT-006", rec)["occurred_at"]] = true
							}
						}
					}
					if len(ids) != 3 || len(at) != 1 {
						t.Errorf("EVT-046", "the %s account's issuance: %d distinct event ids (want 3) and %d distinct occurred_at (want 1)", cur, len(ids), len(at))
					}
					_, d := oneEnv(t, "EVT-052", envsOf(t, recs, subID, "viban.ready", id), "viban.ready of the completed "+cur+" account")
					for _, k := range []string{"user_id", "customer_id"} {
						if d[k] != cust {
							t.Errorf("EVT-076", "viban.ready data.%s is %v, want the customer id %s", k, d[k], cust)
						}
					}
					if text(d["tenant_id"]) == "" || d["virtual_account_id"] != id {
						t.Errorf("EVT-076", "viban.ready tenant_id %v, virtual_account_id %v (want the account id %s)", d["tenant_id"], d["virtual_account_id"], id)
					}
					set, null, rule := []string{"iban", "bic"}, []string{"sort_code", "account_number"}, "EVT-077"
					if cur == "GBP" {
						set, null, rule = null, set, "EVT-078"
					}
					for _, k := range set {
						if v, _ := d[k].(string); v == "" {
							t.Errorf("EVT-053", "viban.ready for %s: %s is %v, want the coordinate", cur, k, d[k])
						}
					}
					for _, k := range null {
						if v, present := d[k]; !present || v != nil {
							t.Errorf(rule, "viban.ready for %s: %s is %v (present %v), want null", cur, k, v, present)
						}
					}
					if d["currency"] != cur {
						t.Errorf("EVT-079", "viban.ready data.currency is %v, want %s", d["currency"], cur)
					}
					switch {
					case d["status"] == "active":
					case translation(d["status"]):
						t.Errorf("FIAT-012", "viban.ready data.status is %v, want active (Completed translates to active)", d["status"])
					default:
						t.Errorf("EVT-079", "viban.ready data.status is %v, want active", d["status"])
					}
					if p, _ := d["provider"].(string); p == "" || d["provider_name"] != d["provider"] {
						t.Errorf("EVT-080", "viban.ready provider %v and provider_name %v, want both the raw provider code", d["provider"], d["provider_name"])
					}
					for _, k := range []string{"provider_account_id", "account_holder_name", "bank_name"} {
						if _, ok := d[k]; !ok {
							t.Errorf("EVT-081", "viban.ready data lacks %s", k)
						}
					}
					if v, _ := d["provider_account_id"].(string); v == "" {
						t.Errorf("EVT-081", "viban.ready provider_account_id is %v, want the provider's account id", d["provider_account_id"])
					}
					if v, present := d["account_country"]; !present || !(v == nil || text(v) != "") {
						t.Errorf("EVT-082", "viban.ready account_country is %v (present %v), want a value or null", v, present)
					}
					if v, present := d["bank_address"]; !present || v != nil {
						t.Errorf("EVT-083", "viban.ready bank_address is %v (present %v), want null", v, present)
					}
					for _, typ := range []string{"virtual_account_request.completed", "customer.account_ready"} {
						e, dd := oneEnv(t, "EVT-052", envsOf(t, recs, subID, typ, id), typ+" of the completed "+cur+" account")
						for _, k := range []string{"iban", "bic", "sort_code", "account_number"} {
							if v, ok := dd[k]; ok && v != nil {
								t.Errorf("EVT-053", "%s carries bank coordinate %s = %v; only viban.ready does", typ, k, v)
							}
						}
						requestFamily(t, typ, e, dd, cust, id, cur, "active", "")
					}
				}
			},
		},
		{
			ID:    "webhooks/event-fiat-account-needs-information-and-rejected",
			Title: "A provisioning needing information emits needs_correction + customer.needs_information (needs_information, provider_status reason), a failure virtual_account_request.rejected (failed); pending and other states translate as documented",
			Rules: []string{"EVT-054", "EVT-055", "EVT-084", "EVT-085", "EVT-087", "EVT-089", "EVT-090", "EVT-093",
				"FIAT-013", "FIAT-014", "FIAT-015", "FIAT-016", "EVT-137", "WHM-003"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.tenant", "webhook_url"},
			Run: func(t *check.T) {
				in, subID, stop := listen(t, "tenant", accountEventTypes...)
				defer stop()
				cust := fresh.Activated(t, "FIAT-022")
				id := openAccount(t, cust, "GBP")
				reason := "Proof of address is unreadable."
				provisioning(t, id, "ManualReview", reason, "")
				in.await(subID, 2)
				for _, typ := range []string{"virtual_account_request.needs_correction", "customer.needs_information"} {
					e, d := oneEnv(t, "EVT-054", in.envs(subID, typ, id), typ)
					requestFamily(t, typ, e, d, cust, id, "GBP", "needs_information", reason)
				}
				provisioning(t, id, "Failed", "", "")
				in.await(subID, 3)
				e, d := oneEnv(t, "EVT-055", in.envs(subID, "virtual_account_request.rejected", id), "virtual_account_request.rejected")
				requestFamily(t, "virtual_account_request.rejected", e, d, cust, id, "GBP", "failed", "")
				// The provider's notices of other internal states (the sandbox
				// sends them as needs_correction notices).
				other := openAccount(t, cust, "EUR")
				n := 3
				for i, tc := range []struct{ state, want string }{{"PendingProvider", "pending"}, {"Requested", "pending"}, {"Closed", "closed"}} {
					provisioning(t, other, tc.state, "", "virtual_account_request.needs_correction")
					n++
					in.await(subID, n)
					envs := in.envs(subID, "virtual_account_request.needs_correction", other)
					if len(envs) != i+1 {
						t.Fatalf("EVT-137", "%d notices after internal state %s, want %d (one per state, whatever the state)", len(envs), tc.state, i+1)
					}
					last, _ := envs[len(envs)-1]["data"].(map[string]any)
					rule := "FIAT-015"
					if tc.want == "closed" {
						rule = "FIAT-016"
					}
					if last["status"] != tc.want {
						t.Errorf(rule, "internal state %s is reported as status %v, want %s", tc.state, last["status"], tc.want)
					}
				}
			},
		},
	}
}

// fiatDepositEventChecks are the events of a fiat deposit: received, held
// (nothing), returned.
func fiatDepositEventChecks() []check.Check {
	return []check.Check{
		{
			ID:    "webhooks/event-fiat-deposit-received-and-returned",
			Title: "A fiat deposit emits deposit.received with the documented fiat payload; a held one emits nothing; a bank recall emits deposit.returned (balance_adjusted false, under_review) and leaves the balance",
			Rules: []string{"EVT-056", "FIAT-003", "DEP-001", "EVT-058", "EVT-094", "EVT-095", "EVT-096", "EVT-097", "EVT-098", "EVT-099", "EVT-100", "EVT-101",
				"EVT-102", "EVT-103", "EVT-104", "EVT-105", "EVT-106", "EVT-107", "EVT-108", "EVT-109", "EVT-110", "EVT-111", "EVT-112", "WHM-003"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.tenant", "webhook_url"},
			Run: func(t *check.T) {
				// viban.ready too: it names the account's raw provider code,
				// which deposit.received repeats (EVT-107).
				in, subID, stop := listen(t, "tenant", "deposit.received", "deposit.returned", "viban.ready")
				defer stop()
				cust := fresh.Activated(t, "FIAT-022")
				c := fresh.Read(t, "FIAT-022", cust)
				email, _ := c["external_reference"].(string)
				acct := openAccount(t, cust, "EUR")
				provisioning(t, acct, "Completed", "", "")
				ref := "TS-" + uuid.NewString()[:8]
				out := fiatCtl(t, "/fiat/deposits", map[string]any{"account_id": acct, "amount_minor": 250000, "fee_minor": 150, "sender": "Ellen Payer", "reference": ref})
				dep, _ := out["deposit_id"].(string)
				in.await(subID, 2)
				env, d := oneEnv(t, "FIAT-003", in.envs(subID, "deposit.received", dep), "deposit.received of the fiat deposit")
				for _, k := range []string{"customer_id", "tenant_id", "customer_email", "tenant_name", "deposit_type", "sender", "virtual_account_id", "crypto_wallet_id",
					"iban", "bic", "amount_minor", "amount_major", "fee_minor", "fee_major", "net_amount_minor", "net_amount_major", "asset_code", "currency",
					"provider", "provider_transaction_id", "ledger_transaction_id", "reference", "deposit_address_masked", "deposited_at"} {
					if _, ok := d[k]; !ok {
						t.Errorf("EVT-094", "deposit.received data lacks %s", k)
					}
				}
				want := []struct {
					rule, key string
					v         any
				}{
					{"EVT-094", "customer_id", cust}, {"EVT-098", "sender", "Ellen Payer"},
					{"EVT-099", "virtual_account_id", acct}, {"EVT-100", "crypto_wallet_id", nil}, {"EVT-102", "amount_minor", "250000"},
					{"EVT-103", "fee_minor", "150"}, {"EVT-104", "net_amount_minor", "249850"}, {"EVT-105", "asset_code", nil}, {"EVT-106", "currency", "EUR"},
					{"EVT-110", "reference", ref}, {"EVT-111", "deposit_address_masked", nil}, {"EVT-112", "deposited_at", env["occurred_at"]},
				}
				depositKind(t, d, "fiat")
				for _, w := range want {
					got := d[w.key]
					if w.v == nil {
						if got != nil {
							t.Errorf(w.rule, "deposit.received data.%s is %v, want null for fiat", w.key, got)
						}
						continue
					}
					if text(got) != text(w.v) {
						t.Errorf(w.rule, "deposit.received data.%s is %v, want %v", w.key, got, w.v)
					}
				}
				for _, m := range []struct{ rule, key, want string }{{"EVT-102", "amount_major", "2500"}, {"EVT-103", "fee_major", "1.5"}, {"EVT-104", "net_amount_major", "2498.5"}} {
					n, ok := d[m.key].(json.Number)
					f, _ := n.Float64()
					wf, _ := json.Number(m.want).Float64()
					if !ok || f != wf {
						t.Errorf(m.rule, "deposit.received data.%s is %v, want the number %s", m.key, d[m.key], m.want)
					}
				}
				if e := d["customer_email"]; e != nil && e != email {
					t.Errorf("EVT-095", "deposit.received customer_email %v, want the receiving customer's %s or null", e, email)
				}
				if !(d["tenant_name"] == nil || text(d["tenant_name"]) != "") {
					t.Errorf("EVT-096", "deposit.received tenant_name %v, want the programme name or null", d["tenant_name"])
				}
				acctRead := fresh.Success(t, "FIAT-018", t.Do(t.Client("tenant"), client.Request{Method: http.MethodGet, Path: api.Customer(cust) + "/banking/accounts/" + acct}))
				iban, _ := shape.Get(acctRead, "account.iban")
				if d["iban"] != nil && d["iban"] != iban {
					t.Errorf("EVT-101", "deposit.received iban %v, want the receiving account's %v or null", d["iban"], iban)
				}
				if p, _ := d["provider"].(string); p == "" {
					t.Errorf("EVT-107", "deposit.received provider is %v, want the banking provider code", d["provider"])
				} else if vs := in.envs(subID, "viban.ready", acct); len(vs) == 1 {
					// The account's banking provider, as viban.ready names it.
					if vd, _ := vs[0]["data"].(map[string]any); vd != nil && text(vd["provider"]) != "" && text(vd["provider"]) != p {
						t.Errorf("EVT-107", "deposit.received provider is %v, want the receiving account's banking provider %v (its viban.ready provider)", p, vd["provider"])
					}
				}
				if p, _ := d["provider_transaction_id"].(string); p == "" {
					t.Errorf("EVT-108", "deposit.received provider_transaction_id is %v, want the provider reference or payment id", d["provider_transaction_id"])
				} else {
					// The deposit's provider_reference (its provider transaction
					// id), or the platform payment id when there is none.
					rd := depositRecord(t, api.Customer(cust)+"/banking/deposits/"+dep, ".../banking/deposits/{id}", "EVT-108")
					pref, _ := shape.Get(rd, "deposit.provider_reference")
					if want := text(pref); rd != nil && want != "" && p != want {
						t.Errorf("EVT-108", "deposit.received provider_transaction_id is %v, want the deposit's provider_reference %v", p, want)
					} else if rd != nil && want == "" && p != dep {
						t.Errorf("EVT-108", "deposit.received provider_transaction_id is %v, want the payment id %v (the deposit has no provider_reference)", p, dep)
					}
				}
				if !(d["ledger_transaction_id"] == nil || text(d["ledger_transaction_id"]) != "") {
					t.Errorf("EVT-109", "deposit.received ledger_transaction_id %v, want the journal entry id or null", d["ledger_transaction_id"])
				}
				balance := func() string {
					b := fresh.Success(t, "BAL-004", t.Do(t.Client("tenant"), client.Request{Method: http.MethodGet, Path: api.Customer(cust) + "/banking/balance"}))
					rows, _ := b["balances"].([]any)
					for _, x := range rows {
						if m, _ := x.(map[string]any); m != nil && m["currency"] == "EUR" {
							return text(m["balance_minor"])
						}
					}
					return "0"
				}
				credited := balance()
				if credited != "249850" {
					t.Errorf("FIAT-003", "EUR balance_minor %s after the deposit, want 249850 (gross minus fee)", credited)
				}
				held := fiatCtl(t, "/fiat/deposits", map[string]any{"account_id": acct, "amount_minor": 999, "held": true})
				heldID, _ := held["deposit_id"].(string)
				in.await(subID, 3)
				if n := len(in.envs(subID, "deposit.received", heldID)); n != 0 {
					t.Errorf("DEP-001", "a deposit held for review fired %d deposit.received deliveries, want none", n)
				}
				fiatCtl(t, "/fiat/deposits/"+dep+"/return", map[string]any{})
				in.await(subID, 3)
				_, r := oneEnv(t, "EVT-058", in.envs(subID, "deposit.returned", dep), "deposit.returned of the recalled deposit")
				if r["balance_adjusted"] != false || r["status"] != "under_review" {
					t.Errorf("EVT-058", "deposit.returned balance_adjusted %v, status %v; want false and under_review", r["balance_adjusted"], r["status"])
				}
				if got := balance(); got != credited {
					t.Errorf("EVT-058", "EUR balance_minor %s after the recall, want it unchanged (%s)", got, credited)
				}
			},
		},
	}
}
