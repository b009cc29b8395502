package exchange

import (
	"encoding/json"
	"net/http"
	"slices"

	"github.com/google/uuid"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// Conversion requests: body rules, refusals, reach, the list and
// settlement (document 1, Resources and States / Conversion request;
// document 2, Operation codes / Exchange, Policy-gate codes).

// exchange409 are the exchange refusals the public API cannot provoke, with
// the rule of each.
var exchange409 = []struct{ code, rule string }{
	{"exchange_account_missing", "ERR-059"}, {"exchange_wallet_missing", "ERR-060"},
	{"exchange_funding_account_ambiguous", "ERR-061"}, {"exchange_ledger_prerequisites_missing", "ERR-062"},
	{"exchange_workflow_unavailable", "ERR-063"}, {"crypto_balance_unverifiable", "ERR-064"},
	{"crypto_network_unavailable", "ERR-065"}, {"insufficient_network_funds", "ERR-066"},
	{"exchange_order_failed", "ERR-067"},
}

// conversionsChecks are the checks of conversions.go.
func conversionsChecks() []check.Check {
	return slices.Concat(
		conversionRequestChecks(),
		conversionAmountChecks(),
		conversionBalanceChecks(),
		conversionGateChecks(),
	)
}

// conversionRequestChecks create, read and list conversions, and keep another
// customer's out of reach.
func conversionRequestChecks() []check.Check {
	return []check.Check{
		{
			ID:     "exchange/conversion-created",
			Title:  "POST conversion-requests with from_currency, to_currency and amount_minor answers data.conversion_request with id and status, readable by id",
			Rules:  []string{"CONV-004", "CONV-013", "CONV-014"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant", "customers.exchange"},
			Run: func(t *check.T) {
				cust := t.Customer("exchange")
				cr := created(t, "CONV-014", convert(t, cust, body("GBP", "EUR", 1000)))
				id := cr["id"].(string)
				d := shape.EnvelopeAnswer(t, read(t, cust, id), shape.Want{Rule: "CONV-013", Status: http.StatusOK})
				if got := shape.String(t, "CONV-013", d, "conversion_request.id"); got != id {
					t.Fatalf("CONV-013", "GET by id answered conversion_request.id %s, want %s", got, id)
				}
				shape.String(t, "CONV-004", d, "conversion_request.status")
			},
		},
		{
			ID:     "exchange/not-mine-404",
			Title:  "Another customer's conversion read through this customer is a 404 byte-identical to a nonexistent conversion",
			Rules:  []string{"CONV-013", "BIND-020", "CONV-004", "CONV-014"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant", "customers.exchange", "customers.active_business"},
			Run: func(t *check.T) {
				id := setup(t, "CONV-014", t.Customer("exchange"), body("GBP", "EUR", 1000))["id"].(string)
				other := t.Customer("active_business")
				mine := read(t, other, id)
				shape.FlatAnswer(t, mine, shape.Want{Rule: "CONV-013", Status: http.StatusNotFound})
				none := read(t, other, uuid.NewString())
				shape.FlatAnswer(t, none, shape.Want{Rule: "CONV-013", Status: http.StatusNotFound})
				shape.SameResponse(t, "BIND-020", mine, none, "another customer's conversion and a nonexistent one")
			},
		},
		{
			ID:     "exchange/list-paged",
			Title:  "GET conversion-requests pages with limit and page (data.pagination); a new conversion is on the first page",
			Rules:  []string{"CONV-012", "PAGE-023", "PAGE-025", "CONV-004", "CONV-014"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant", "customers.exchange"},
			Run: func(t *check.T) {
				cust := t.Customer("exchange")
				setup(t, "CONV-014", cust, body("GBP", "EUR", 1001))
				id := setup(t, "CONV-014", cust, body("GBP", "EUR", 1002))["id"].(string)
				list := func(q string) *client.Response {
					return t.Do(t.Client("tenant"), client.Request{Method: http.MethodGet, Path: conversions(cust) + q})
				}
				d := shape.EnvelopeAnswer(t, list("?limit=1&page=1"), shape.Want{Rule: "CONV-012", Status: http.StatusOK})
				pg := shape.Pagination(t, "PAGE-023", d)
				items := shape.Items(t, "PAGE-025", d, shape.ListKey(t, "PAGE-025", d, ""), false)
				if pg.PerPage != 1 || len(items) != 1 || pg.Total < 2 || pg.LastPage < 2 || pg.CurrentPage != 1 {
					t.Fatalf("CONV-012", "limit=1: per_page %d, %d rows, total %d, last_page %d, current_page %d; want 1, 1, ≥ 2, ≥ 2, 1", pg.PerPage, len(items), pg.Total, pg.LastPage, pg.CurrentPage)
				}
				d2 := shape.EnvelopeAnswer(t, list("?limit=1&page=2"), shape.Want{Rule: "CONV-012", Status: http.StatusOK})
				items2 := shape.Items(t, "PAGE-025", d2, shape.ListKey(t, "PAGE-025", d2, ""), false)
				if len(items2) != 1 || items2[0].ID == items[0].ID {
					t.Fatalf("CONV-012", "page 2 of limit 1 holds %d rows (%v); want one row other than page 1's", len(items2), items2)
				}
				if _, found := (shape.Seek{Client: t.Client("tenant"), Path: conversions(cust)}).Find(t, "CONV-012", id); !found {
					t.Fatalf("CONV-012", "the new conversion %s is not at the front of the list (newest first)", id)
				}
			},
		},
	}
}

// conversionAmountChecks are the refusals of a conversion's pair and amount.
func conversionAmountChecks() []check.Check {
	return []check.Check{
		{
			ID:     "exchange/amount-positive-integer",
			Title:  "amount_minor 0 or negative is 422 invalid_amount; a fraction or a quoted string is refused (422 invalid_amount or the 400 binding problem)",
			Rules:  []string{"CONV-003", "ERR-055"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant", "customers.exchange"},
			Run: func(t *check.T) {
				cust := t.Customer("exchange")
				for _, amt := range []any{0, -500} {
					r := convert(t, cust, body("GBP", "EUR", amt))
					refused(t, r, "ERR-055", http.StatusUnprocessableEntity, "invalid_amount", "ERR-055", "a conversion of amount_minor %v was taken", amt)
				}
				for _, amt := range []any{json.Number("1000.5"), "1000"} {
					r := convert(t, cust, body("GBP", "EUR", amt))
					if r.Status/100 == 2 {
						t.FatalAt(r, "CONV-003", "a conversion of amount_minor %#v was taken; it must be an integer", amt)
					}
					if r.Status == http.StatusBadRequest {
						shape.ProblemAnswer(t, r, shape.Want{Rule: "CONV-003", Status: http.StatusBadRequest})
					} else {
						shape.EnvelopeAnswer(t, r, shape.Want{Rule: "ERR-055", Status: http.StatusUnprocessableEntity, Code: "invalid_amount"})
					}
				}
			},
		},
		{
			ID:     "exchange/conversion-invalid-pair",
			Title:  "A conversion between the same asset or to an unknown asset is 422 invalid_pair",
			Rules:  []string{"CONV-017", "ERR-054"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant", "customers.exchange"},
			Run: func(t *check.T) {
				cust := t.Customer("exchange")
				for _, p := range [][2]string{{"GBP", "GBP"}, {"GBP", "XYZ"}} {
					r := convert(t, cust, body(p[0], p[1], 1000))
					refused(t, r, "ERR-054", http.StatusUnprocessableEntity, "invalid_pair", "CONV-017", "a conversion %s to %s was taken", p[0], p[1])
				}
			},
		},
		{
			ID:     "exchange/below-minimum-trade-size",
			Title:  "A conversion of one atomic unit of the source is 422 below_minimum_trade_size",
			Rules:  []string{"CONV-018", "ERR-056"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant", "customers.exchange"},
			Run: func(t *check.T) {
				r := convert(t, t.Customer("exchange"), body("GBP", "EUR", 1))
				refused(t, r, "ERR-056", http.StatusUnprocessableEntity, "below_minimum_trade_size", "ERR-056", "a conversion of 1 minor unit was taken (CONV-018: below any minimum)")
			},
		},
	}
}

// conversionBalanceChecks are the balance a conversion spends: only Available
// is exchangeable, proceeds only once settled.
func conversionBalanceChecks() []check.Check {
	return []check.Check{
		{
			ID:     "exchange/insufficient-onchain-balance",
			Title:  "A crypto conversion beyond the Available balance is 422 insufficient_onchain_balance",
			Rules:  []string{"ERR-057", "BAL-001"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant", "customers.exchange"},
			Run: func(t *check.T) {
				r := convert(t, t.Customer("exchange"), body("BTC", "GBP", json.Number("1000000000000000000000000000000")))
				refused(t, r, "ERR-057", http.StatusUnprocessableEntity, "insufficient_onchain_balance", "BAL-001", "a conversion of 10^22 BTC, beyond any Available balance, was taken")
			},
		},
		{
			ID:     "exchange/only-available-exchangeable",
			Title:  "The source is reserved out of Available: with 1,000,000 sat Available, 600,000 converts and a second 600,000 is 422 insufficient_onchain_balance",
			Rules:  []string{"BAL-001", "ERR-057", "CUST-022", "CONV-004", "CONV-014"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.tenant"},
			Run: func(t *check.T) {
				cust := activeCustomer(t)
				control(t, "/crypto-funds/"+cust, map[string]any{"asset": "BTC", "available_atomic": "1000000"})
				setup(t, "CONV-014", cust, body("BTC", "GBP", 600000))
				r := convert(t, cust, body("BTC", "GBP", 600000))
				refused(t, r, "ERR-057", http.StatusUnprocessableEntity, "insufficient_onchain_balance", "BAL-001", "600,000 sat converted again while only 400,000 remain Available (600,000 reserved)")
			},
		},
		{
			ID:     "exchange/proceeds-spendable-once-settled",
			Title:  "The proceeds of a conversion are spendable only once it is Settled: converting them before is 422 insufficient_onchain_balance, after settlement it is taken",
			Rules:  []string{"CONV-006", "CUST-022", "CONV-004", "CONV-014", "CONV-013", "ERR-057"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.tenant"},
			Run: func(t *check.T) {
				cust := activeCustomer(t)
				control(t, "/withdrawals/funds/"+cust, map[string]any{"currency": "EUR", "available_minor": 10000})
				// 100.00 EUR buys far more than the 20,000 sat converted back.
				id := setup(t, "CONV-014", cust, body("EUR", "BTC", 10000))["id"].(string)
				r := convert(t, cust, body("BTC", "GBP", 20000))
				refused(t, r, "ERR-057", http.StatusUnprocessableEntity, "insufficient_onchain_balance", "CONV-006", "the BTC proceeds of a conversion not yet Settled were converted")
				control(t, "/exchange/conversions/"+id+"/settle", nil)
				d := shape.EnvelopeAnswer(t, read(t, cust, id), shape.Want{Rule: "CONV-013", Status: http.StatusOK})
				if st := shape.String(t, "CONV-006", d, "conversion_request.status"); st != "Settled" {
					t.Fatalf("CONV-006", "a settled conversion reads status %q, want Settled", st)
				}
				created(t, "CONV-006", convert(t, cust, body("BTC", "GBP", 20000)))
			},
		},
	}
}

// conversionGateChecks are the refusals that come from the platform and the
// customer: the 409 refusals, the pause, KYC and compliance.
func conversionGateChecks() []check.Check {
	return []check.Check{
		{
			ID:     "exchange/refusals-409",
			Title:  "The exchange 409 refusals the API cannot provoke (account, wallet, funding account, ledger, workflow, crypto balance, network, network funds, order failed) are 409 envelopes with their code",
			Rules:  []string{"ERR-059", "ERR-060", "ERR-061", "ERR-062", "ERR-063", "ERR-064", "ERR-065", "ERR-066", "ERR-067", "CUST-022"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.tenant"},
			Run: func(t *check.T) {
				cust := activeCustomer(t)
				control(t, "/withdrawals/funds/"+cust, map[string]any{"currency": "GBP", "available_minor": 100000})
				defer control(t, "/exchange/refusal/"+cust, map[string]any{"code": ""})
				for _, c := range exchange409 {
					control(t, "/exchange/refusal/"+cust, map[string]any{"code": c.code})
					shape.EnvelopeAnswer(t, convert(t, cust, body("GBP", "EUR", 1000)), shape.Want{Rule: c.rule, Status: http.StatusConflict, Code: c.code})
				}
			},
		},
		{
			ID:     "exchange/platform-pause",
			Alone:  check.WithControl,
			Title:  "During the platform-wide money-movement pause a conversion is 409 exchange_order_failed with free-text detail",
			Rules:  []string{"ERR-040", "ERR-067"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.tenant", "customers.exchange"},
			Run: func(t *check.T) {
				control(t, "/money-policy/pause", map[string]any{"paused": true})
				defer control(t, "/money-policy/pause", map[string]any{"paused": false})
				r := convert(t, t.Customer("exchange"), body("GBP", "EUR", 1000))
				d := refused(t, r, "ERR-040", http.StatusConflict, "exchange_order_failed", "ERR-040", "a conversion was taken during the platform-wide pause")
				if s, _ := d["detail"].(string); s == "" {
					t.FatalAt(r, "ERR-040", "the pause refusal's detail is %v, want free text", d["detail"])
				}
			},
		},
		{
			ID:     "exchange/kyc-precondition",
			Title:  "A conversion for a customer that is not Active is 409 kyc_or_kyb_not_approved",
			Rules:  []string{"ERR-042"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant", "customers.draft"},
			Run: func(t *check.T) {
				r := convert(t, t.Customer("draft"), body("GBP", "EUR", 1000))
				shape.EnvelopeAnswer(t, r, shape.Want{Rule: "ERR-042", Status: http.StatusConflict, Code: "kyc_or_kyb_not_approved"})
			},
		},
		{
			ID:     "exchange/compliance-gate",
			Title:  "A conversion for a customer blocked by compliance is the flat 403 compliance_subject_blocked",
			Rules:  []string{"ERR-028", "CUST-022"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.tenant"},
			Run: func(t *check.T) {
				cust := activeCustomer(t)
				control(t, "/money-policy/compliance/"+cust, map[string]any{"state": "blocked"})
				shape.FlatAnswer(t, convert(t, cust, body("GBP", "EUR", 1000)), shape.Want{Rule: "ERR-028", Status: http.StatusForbidden, Code: "compliance_subject_blocked"})
			},
		},
	}
}
