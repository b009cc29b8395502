package exchange

import (
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// The indicative price and the allowed destinations (document 1, Endpoints
// / Exchange; document 2, Status meaning: the 422 of a GET without body).

func priceChecks() []check.Check {
	return slices.Concat(
		priceQuoteChecks(),
		pricePairChecks(),
		allowedDestinationsChecks(),
	)
}

// priceQuoteChecks are what a price answers: a rate and an expiry, for
// stablecoins too, following the live rate, and when no quote is available.
func priceQuoteChecks() []check.Check {
	return []check.Check{
		{
			ID:     "exchange/price-rate-and-expiry",
			Title:  "GET /transfer/price?pair=SOURCE/TARGET answers an indicative rate and an expiry for fiat-to-fiat, fiat-to-crypto and crypto-to-fiat pairs",
			Rules:  []string{"CONV-001", "CONV-008", "CONV-015"},
			Needs:  []string{"keys.tenant"},
			Labels: []string{},
			Run: func(t *check.T) {
				for _, pair := range []string{"GBP/EUR", "GBP/BTC", "BTC/GBP"} {
					r := price(t, ptr(pair))
					d := shape.EnvelopeAnswer(t, r, shape.Want{Rule: "CONV-008", Status: http.StatusOK})
					if rate, _ := rateOf(d); rate == nil {
						t.FatalAt(r, "CONV-015", "the price of %s carries no positive rate (a member named *rate* or *price*): %v", pair, d)
					}
					exp, ok := expiryOf(d)
					if !ok {
						t.FatalAt(r, "CONV-001", "the price of %s carries no expiry (a member named *expir*): %v", pair, d)
					}
					if _, err := time.Parse(time.RFC3339Nano, exp); err != nil {
						t.ErrorAt(r, "CONV-015", "the expiry %q of %s is not an RFC 3339 timestamp: %v", exp, pair, err)
					}
				}
			},
		},
		{
			ID:    "exchange/price-stablecoins-convertible",
			Title: "USDC and USDT are convertible (the asset table): each is priced against GBP both ways",
			Rules: []string{"CRYP-009", "CRYP-010"},
			Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				rules := map[string]string{"USDC": "CRYP-009", "USDT": "CRYP-010"}
				for _, asset := range []string{"USDC", "USDT"} {
					rule := rules[asset]
					for _, pair := range []string{asset + "/GBP", "GBP/" + asset} {
						r := price(t, ptr(pair))
						if r.Status == http.StatusConflict {
							if d, _ := shape.Object(t, rule, r)["data"].(map[string]any); d != nil && d["code"] == "exchange_quote_unavailable" {
								t.NotJudged("no quote for "+pair+" on this target (409 exchange_quote_unavailable): whether "+asset+" converts is not seen", rule)
								continue
							}
						}
						d := shape.EnvelopeAnswer(t, r, shape.Want{Rule: rule, Status: http.StatusOK})
						if rate, _ := rateOf(d); rate == nil {
							t.FatalAt(r, rule, "the price of %s carries no positive rate: %s is convertible", pair, asset)
						}
					}
				}
			},
		},
		{
			ID:     "exchange/price-follows-live-rate",
			Alone:  check.WithControl,
			Title:  "The indicative price is the live rate: after the rate moves, the price shows the new rate",
			Rules:  []string{"CONV-001", "CONV-008"},
			Labels: []string{check.NeedsControl},
			Needs:  []string{"keys.tenant"},
			Run: func(t *check.T) {
				defer control(t, "/exchange/rate", map[string]any{"pair": "USD/GBP", "rate": ""})
				for _, want := range []string{"0.7531", "0.8125"} {
					control(t, "/exchange/rate", map[string]any{"pair": "USD/GBP", "rate": want})
					r := price(t, ptr("USD/GBP"))
					d := shape.EnvelopeAnswer(t, r, shape.Want{Rule: "CONV-008", Status: http.StatusOK})
					got, name := rateOf(d)
					w, _ := decimal(want)
					if got == nil || got.Cmp(w) != 0 {
						t.FatalAt(r, "CONV-001", "the price's %s is %v after the live rate moved to %s", name, got, want)
					}
				}
			},
		},
		{
			ID:     "exchange/price-quote-unavailable",
			Alone:  check.WithControl,
			Title:  "When no quote is available the price is 409 exchange_quote_unavailable; once one is, 200 again",
			Rules:  []string{"CONV-011", "ERR-058", "CONV-008"},
			Labels: []string{check.NeedsControl},
			Needs:  []string{"keys.tenant"},
			Run: func(t *check.T) {
				control(t, "/exchange/quote", map[string]any{"pair": "EUR/USD", "available": false})
				defer control(t, "/exchange/quote", map[string]any{"pair": "EUR/USD", "available": true})
				r := price(t, ptr("EUR/USD"))
				refused(t, r, "ERR-058", http.StatusConflict, "exchange_quote_unavailable", "CONV-011", "a pair with no quote was priced (%d)", r.Status)
				control(t, "/exchange/quote", map[string]any{"pair": "EUR/USD", "available": true})
				shape.EnvelopeAnswer(t, price(t, ptr("EUR/USD")), shape.Want{Rule: "CONV-008", Status: http.StatusOK})
			},
		},
	}
}

// pricePairChecks are which pairs a price accepts.
func pricePairChecks() []check.Check {
	return []check.Check{
		{
			ID:    "exchange/price-invalid-pair",
			Title: "A missing pair, a pair without a slash, with two slashes, with the same asset twice or with an unknown asset is 422 invalid_pair (envelope, on a GET without body)",
			Rules: []string{"CONV-008", "CONV-009", "CONV-010", "ERR-054", "ERR-007"},
			Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				// A pair naming an unknown asset is invalid (CONV-010), judged
				// first and without stopping.
				for _, pair := range []string{"GBP/XYZ", "/EUR"} {
					// invalid_pair at another status is the code's status
					// sentence (ERR-054, which StatusAnswer reports).
					r := price(t, ptr(pair))
					if shape.StatusAnswer(t, r, shape.Want{Rule: "CONV-010", Status: http.StatusUnprocessableEntity, Code: "invalid_pair", What: fmt.Sprintf("the invalid pair %q", pair), Continue: true}) && shape.BodyCode(r) != "invalid_pair" {
						t.ErrorAt(r, "CONV-010", "the invalid pair %q answered code %q, want invalid_pair", pair, shape.BodyCode(r))
					}
				}
				r := price(t, nil)
				shape.EnvelopeAnswer(t, r, shape.Want{Rule: "ERR-007", Status: http.StatusUnprocessableEntity, Code: "invalid_pair"})
				for _, pair := range []string{"GBPEUR", "GBP/EUR/USD", "GBP/GBP", "GBP/XYZ", "/EUR", "GBP//EUR"} {
					r := price(t, ptr(pair))
					rule := map[string]string{"GBP/GBP": "CONV-008", "GBP/EUR/USD": "CONV-009", "GBP//EUR": "CONV-009", "GBPEUR": "CONV-009"}[pair]
					if rule == "" {
						rule = "CONV-010"
					}
					refused(t, r, "ERR-054", http.StatusUnprocessableEntity, "invalid_pair", rule, "the invalid pair %q was priced (%d)", pair, r.Status)
				}
			},
		},
		{
			ID:    "exchange/price-trx-not-convertible",
			Title: "TRX is not convertible: a price of TRX/GBP is refused with a 4xx envelope",
			Rules: []string{"CRYP-012"},
			Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				r := price(t, ptr("TRX/GBP"))
				if r.Status != http.StatusUnprocessableEntity && r.Status != http.StatusConflict {
					t.FatalAt(r, "CRYP-012", "the price of TRX/GBP answered %d, want a 422 or 409 refusal", r.Status)
				}
				d := shape.EnvelopeAnswer(t, r, shape.Want{Rule: "CRYP-012", Status: r.Status})
				if c, _ := d["code"].(string); c == "" {
					t.FatalAt(r, "CRYP-012", "the TRX refusal carries no data.code")
				}
			},
		},
		{
			ID:    "exchange/price-crypto-to-crypto",
			Title: "A crypto-to-crypto pair (not a listed kind) is either priced with a rate and an expiry or refused as a pair with 422 invalid_pair",
			Rules: []string{"CONV-020"},
			Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				r := price(t, ptr("BTC/ETH"))
				if r.Status == http.StatusOK {
					d := shape.EnvelopeAnswer(t, r, shape.Want{Rule: "CONV-020", Status: http.StatusOK})
					if rate, _ := rateOf(d); rate == nil {
						t.FatalAt(r, "CONV-020", "BTC/ETH was answered 200 without a rate: %v", d)
					}
					if _, ok := expiryOf(d); !ok {
						t.FatalAt(r, "CONV-020", "BTC/ETH was answered 200 without an expiry: %v", d)
					}
					return
				}
				shape.EnvelopeAnswer(t, r, shape.Want{Rule: "CONV-020", Status: http.StatusUnprocessableEntity, Code: "invalid_pair"})
			},
		},
	}
}

// allowedDestinationsChecks is GET /transfer/allowed-destinations.
func allowedDestinationsChecks() []check.Check {
	return []check.Check{
		{
			ID:    "exchange/allowed-destinations",
			Title: "GET /transfer/allowed-destinations answers a success envelope (its body is not shown)",
			Rules: []string{"CONV-007"},
			Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				r := t.Do(t.Client("tenant"), client.Request{Method: http.MethodGet, Path: api.P + "/transfer/allowed-destinations"})
				shape.EnvelopeAnswer(t, r, shape.Want{Rule: "CONV-007", Status: http.StatusOK})
			},
		},
	}
}
