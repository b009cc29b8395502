package accounts

import (
	"encoding/json"
	"maps"
	"net/http"
	"slices"

	"github.com/google/uuid"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// depositRows reads the first page (limit 500) of a customer's fiat
// deposits.
func depositRows(t *check.T, customerID string) []map[string]any {
	d := shape.EnvelopeAnswer(t, get(t, "tenant", depositsPath(customerID)+"?limit=500"), shape.Want{Rule: "DEP-007", Status: http.StatusOK})
	shape.Pagination(t, "PAGE-019", d)
	var out []map[string]any
	for _, it := range shape.Items(t, "DEP-002", d, "deposits", false) {
		out = append(out, it.Raw)
	}
	return out
}

// depositFields asserts the documented fields of a fiat deposit row.
func depositFields(t *check.T, row map[string]any) {
	for _, k := range []string{"sender", "reference", "provider_reference"} {
		v, present := row[k]
		if !present || !stringOrNull(v) {
			t.Errorf(map[string]string{"sender": "DEP-003", "reference": "DEP-004", "provider_reference": "DEP-005"}[k], "deposit %v: %s is %v (present %v), want a string or null", row["id"], k, v, present)
		}
	}
	if _, ok := row["amount"].(json.Number); !ok {
		t.Errorf("DEP-006", "deposit %v: amount is %v (%T), want an integer in minor units", row["id"], row["amount"], row["amount"])
	} else if _, err := row["amount"].(json.Number).Int64(); err != nil {
		t.Errorf("DEP-006", "deposit %v: amount %v is not an integer (minor units)", row["id"], row["amount"])
	}
	if n, ok := row["asset_scale"].(json.Number); !ok || n.String() == "" {
		t.Errorf("DEP-006", "deposit %v: asset_scale is %v, want an integer", row["id"], row["asset_scale"])
	}
}

// depositsChecks are the checks of deposits.go.
func depositsChecks() []check.Check {
	return []check.Check{
		{
			ID:    "deposits/list-and-detail",
			Title: "GET banking/deposits is paged (data.deposits, data.pagination, limit honoured) with sender, reference, provider_reference, amount (minor) and asset_scale; /{depositId} answers data.deposit",
			Rules: []string{"DEP-002", "DEP-003", "DEP-004", "DEP-005", "DEP-006", "DEP-007", "PAGE-019"},
			Needs: []string{"keys.tenant", "customers.active_personal"},
			Run: func(t *check.T) {
				cust := t.Customer("active_personal")
				d := shape.EnvelopeAnswer(t, get(t, "tenant", depositsPath(cust)+"?page=1&limit=1"), shape.Want{Rule: "DEP-007", Status: http.StatusOK})
				pg := shape.Pagination(t, "PAGE-019", d)
				items := shape.Items(t, "DEP-002", d, "deposits", false)
				if pg.PerPage != 1 || len(items) > 1 {
					t.Fatalf("DEP-007", "limit=1: per_page %d and %d rows, want per_page 1 and at most one row", pg.PerPage, len(items))
				}
				if len(items) == 0 {
					t.Skipf("customers.active_personal has no fiat deposit to read")
				}
				depositFields(t, items[0].Raw)
				one := shape.EnvelopeAnswer(t, get(t, "tenant", depositsPath(cust)+"/"+items[0].ID), shape.Want{Rule: "DEP-007", Status: http.StatusOK})
				if shape.String(t, "DEP-002", one, "deposit.id") != items[0].ID {
					t.Fatalf("DEP-002", "data.deposit.id differs from the listed id %s", items[0].ID)
				}
				dep, _ := one["deposit"].(map[string]any)
				depositFields(t, dep)
				shape.FlatAnswer(t, get(t, "tenant", depositsPath(cust)+"/"+uuid.NewString()), shape.Want{Rule: "DEP-007", Status: http.StatusNotFound})
			},
		},
		{
			ID:     "deposits/delivered-credits-available",
			Title:  "A delivered fiat deposit credits the Available balance (balance_minor integer, balance_major number = minor/100) and is listed with its sender, reference, provider reference, amount and asset_scale 2",
			Rules:  []string{"FIAT-003", "BAL-002", "BAL-003", "BAL-004", "DEP-003", "DEP-004", "DEP-005", "DEP-006", "DEP-007", "FIAT-022", "CUST-022"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.tenant"},
			Run: func(t *check.T) {
				cust := fresh.Activated(t, "FIAT-022")
				gbp := completedAccount(t, cust, "GBP")["id"].(string)
				before := minorText(t, balanceOf(t, cust, "GBP"))
				ref, providerTx := "TS-"+uuid.NewString()[:8], "PTX-"+uuid.NewString()[:12]
				// The provider reports the payment with its own transaction id.
				out := ctl(t, "/fiat/deposits", map[string]any{"account_id": gbp, "amount_minor": 12345, "fee_minor": 0, "sender": "Payer Ltd",
					"reference": ref, "provider_transaction_id": providerTx, "held": false})
				id, _ := out["deposit_id"].(string)
				if id == "" {
					t.NoVerdict(errString("control: the deposit returned no id"))
				}
				row := balanceOf(t, cust, "GBP")
				if row == nil {
					t.Fatalf("FIAT-003", "no GBP row in data.balances after a 12345 GBP deposit")
				}
				if got := minorText(t, row); before != "0" || got != "12345" {
					t.Fatalf("FIAT-003", "GBP balance_minor %s → %s after a 12345 deposit to a new account, want 0 → 12345", before, got)
				}
				major, ok := row["balance_major"].(json.Number)
				if !ok {
					t.Fatalf("BAL-002", "balance_major is %v (%T), want a JSON number", row["balance_major"], row["balance_major"])
				}
				if f, _ := major.Float64(); f != 123.45 {
					t.Errorf("BAL-003", "balance_major %s for balance_minor 12345, want 123.45", major)
				}
				var mine map[string]any
				for _, r := range depositRows(t, cust) {
					if r["id"] == id {
						mine = r
					}
				}
				if mine == nil {
					t.Fatalf("DEP-007", "the delivered deposit %s is not in the deposits list", id)
				}
				depositFields(t, mine)
				want := map[string]struct{ rule, v string }{"sender": {"DEP-003", "Payer Ltd"}, "reference": {"DEP-004", ref}, "amount": {"DEP-006", "12345"}, "asset_scale": {"DEP-006", "2"}}
				for _, k := range slices.Sorted(maps.Keys(want)) {
					w := want[k]
					if got := jsonTextPlain(mine[k]); got != w.v {
						t.Errorf(w.rule, "deposit %s = %s, want %s", k, got, w.v)
					}
				}
				if p, _ := mine["provider_reference"].(string); p != providerTx {
					t.Errorf("DEP-005", "deposit provider_reference is %v, want the provider transaction id %s", mine["provider_reference"], providerTx)
				}
			},
		},
		{
			ID:     "deposits/held-listed-not-credited",
			Title:  "A deposit held for review is listed but credits nothing: the Available balance (the only spendable bucket) is unchanged",
			Rules:  []string{"DEP-001", "BAL-001", "BAL-004", "FIAT-022", "CUST-022"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.tenant"},
			Run: func(t *check.T) {
				cust := fresh.Activated(t, "FIAT-022")
				eur := completedAccount(t, cust, "EUR")["id"].(string)
				deposit(t, eur, 500, 0, "Settled Payer", "TS-A", false)
				id := deposit(t, eur, 70000, 0, "Held Payer", "TS-H", true)
				found := false
				for _, r := range depositRows(t, cust) {
					found = found || r["id"] == id
				}
				if !found {
					t.Errorf("DEP-001", "the held deposit %s is not in the deposits list", id)
				}
				if got := minorText(t, balanceOf(t, cust, "EUR")); got != "500" {
					t.Fatalf("BAL-001", "EUR balance_minor is %s after a 500 deposit and a 70000 deposit held for review, want 500 (only Available)", got)
				}
			},
		},
		{
			ID:          "balances/exact-above-2-pow-53",
			SerialGroup: "fiat balances",
			Title:       "balance_minor is rendered exactly above 2^53 (9007199254740993) and balance_major is the matching number",
			Rules:       []string{"BAL-005", "BAL-002", "BAL-003", "BAL-004", "FIAT-022", "CUST-022"},
			Labels:      []string{check.Mutating, check.NeedsControl},
			Needs:       []string{"keys.tenant"},
			Run: func(t *check.T) {
				cust := fresh.Activated(t, "FIAT-022")
				ctl(t, "/fiat/funds/"+cust, map[string]any{"currency": "USD", "available_minor": "9007199254740993"})
				row := balanceOf(t, cust, "USD")
				if got := minorText(t, row); got != "9007199254740993" {
					t.Fatalf("BAL-005", "balance_minor reads %s, want exactly 9007199254740993", got)
				}
				major, ok := row["balance_major"].(json.Number)
				if !ok {
					t.Fatalf("BAL-002", "balance_major is %v (%T), want a JSON number", row["balance_major"], row["balance_major"])
				}
				if s := major.String(); s != "90071992547409.93" && s != "9.007199254740993e13" {
					t.Errorf("BAL-003", "balance_major %s, want 90071992547409.93", s)
				}
			},
		},
		{
			ID:          "balances/read-seeded",
			SerialGroup: "fiat balances",
			Title:       "GET banking/balance answers data.balances[] with currency, balance_minor (integer) and balance_major (number)",
			Rules:       []string{"BAL-002", "BAL-004", "BAL-003"},
			Needs:       []string{"keys.tenant", "customers.active_personal"},
			Run: func(t *check.T) {
				d := shape.EnvelopeAnswer(t, get(t, "tenant", balancePath(t.Customer("active_personal"))), shape.Want{Rule: "BAL-004", Status: http.StatusOK})
				rows := shape.Array(t, "BAL-004", d, "balances")
				if len(rows) == 0 {
					t.Skipf("customers.active_personal reports no balance row")
				}
				for _, x := range rows {
					m, _ := x.(map[string]any)
					shape.String(t, "BAL-002", m, "currency")
					minor, okMinor := m["balance_minor"].(json.Number)
					major, okMajor := m["balance_major"].(json.Number)
					if _, err := minor.Int64(); !okMinor || err != nil {
						t.Fatalf("BAL-002", "balance_minor is %v (%T), want a JSON integer", m["balance_minor"], m["balance_minor"])
					}
					if !okMajor {
						t.Fatalf("BAL-002", "balance_major is %v (%T), want a JSON number", m["balance_major"], m["balance_major"])
					}
					mi, _ := minor.Int64()
					if f, _ := major.Float64(); f*100 < float64(mi)-0.5 || f*100 > float64(mi)+0.5 {
						t.Errorf("BAL-003", "%v: balance_major %s is not balance_minor %s / 100", m["currency"], major, minor)
					}
				}
			},
		},
	}
}

// jsonTextPlain is a scalar's text: strings unquoted, numbers as written.
func jsonTextPlain(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return jsonText(v)
}
