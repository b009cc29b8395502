package payoutbatches

import (
	"fmt"
	"maps"
	"net/http"
	"slices"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/rails"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// Rails per currency (document 1, Endpoints / Payout batches, the rails
// table): canonical names, aliases in every tolerated spelling, defaults.

// railRow is the rule of the rails table's row deciding a rail name
// (upper-case, underscored) of a currency: its canonical rails, or the
// alias's row.
func railRow(currency, name string) string {
	if slices.Contains(rails.Canonical(currency), name) {
		return map[string]string{"GBP": "PB-062", "EUR": "PB-065", "USD": "PB-068"}[currency]
	}
	return map[string]string{"FPS": "PB-063", "SCT": "PB-066", "DOMESTIC_WIRE": "PB-069", "INTERNATIONAL_WIRE": "PB-070"}[rails.Aliases(currency)[name]]
}

func railsChecks() []check.Check {
	return []check.Check{
		{
			ID:     "payoutbatches/rail-aliases",
			Title:  "Every canonical rail and alias of GBP, EUR and USD is accepted and stored canonical, by its exact name (each row of the rails table under its own rule) and in lower, hyphenated, spaced and mixed case (tolerated, PB-060; a canonical name returned canonical, PB-003)",
			Rules:  []string{"PB-060", "PB-003", "PB-062", "PB-063", "PB-065", "PB-066", "PB-068", "PB-069", "PB-070"},
			Labels: []string{check.Mutating},
			Needs:  append(needs, "beneficiaries.eur", "beneficiaries.usd"),
			Run: func(t *check.T) {
				ben := map[string]string{"GBP": t.Beneficiary("gbp"), "EUR": t.Beneficiary("eur"), "USD": t.Beneficiary("usd")}
				for _, cur := range rails.Currencies() {
					names := map[string]string{}
					for _, c := range rails.Canonical(cur) {
						names[c] = c
					}
					for a, c := range rails.Aliases(cur) {
						names[a] = c
					}
					for _, name := range slices.Sorted(maps.Keys(names)) {
						canon, row := names[name], railRow(cur, name)
						// stored posts the rail spelled so: a refusal is
						// judged under refusedRule, a stored rail that is not
						// canon under storedRule.
						stored := func(spelling, refusedRule, storedRule string) bool {
							r := fresh.PostBatch(t, map[string]any{"currency": cur, "rail": spelling, "items": []any{fresh.BatchItem(ben[cur], 100, "Invoice Alpha")}})
							what := fmt.Sprintf("a %s batch on rail %q (stored %s)", cur, spelling, canon)
							if !shape.StatusAnswer(t, r, shape.Want{Rule: refusedRule, Status: http.StatusOK, What: what, Continue: true}) {
								return false
							}
							b, _ := shape.EnvelopeAnswer(t, r, shape.Want{Rule: refusedRule, Status: http.StatusOK})["payout_batch"].(map[string]any)
							if got, _ := b["rail"].(string); got != canon {
								t.ErrorAt(r, storedRule, "%s rail %q stored as %q, want %s", cur, spelling, got, canon)
								return false
							}
							return true
						}
						// The exact name is the row's decision; its other
						// spellings are tried only once the row holds.
						if !stored(name, row, row) {
							continue
						}
						spelledRule := row // an alias in any spelling is its row's
						if name == canon {
							spelledRule = "PB-003" // a canonical rail returned in canonical form
						}
						for _, spelling := range rails.Spellings(name) {
							if spelling != name && !stored(spelling, "PB-060", spelledRule) {
								break
							}
						}
					}
				}
			},
		},
		{
			ID:     "payoutbatches/rail-defaults",
			Title:  "A batch without a rail gets its currency's default: FPS for GBP, SCT for EUR, ACH for USD",
			Rules:  []string{"PB-064", "PB-067", "PB-071"},
			Labels: []string{check.Mutating},
			Needs:  append(needs, "beneficiaries.eur", "beneficiaries.usd"),
			Run: func(t *check.T) {
				// In the table's order (a slice, not a map: the first
				// failure is the same every run).
				for _, c := range []struct{ cur, ben, rule string }{
					{"GBP", t.Beneficiary("gbp"), "PB-064"}, {"EUR", t.Beneficiary("eur"), "PB-067"}, {"USD", t.Beneficiary("usd"), "PB-071"},
				} {
					cur := c.cur
					for _, body := range []map[string]any{
						{"currency": cur, "items": []any{fresh.BatchItem(c.ben, 100, "Invoice Alpha")}},
						{"currency": cur, "rail": nil, "items": []any{fresh.BatchItem(c.ben, 100, "Invoice Alpha")}},
					} {
						b := fresh.Batch(t, c.rule, body)
						if got := shape.String(t, c.rule, b, "rail"); got != rails.Default(cur) {
							t.Errorf(c.rule, "%s batch without a rail stored rail %q, want %s", cur, got, rails.Default(cur))
						}
					}
				}
			},
		},
	}
}
