package payoutbatches

import (
	"maps"
	"slices"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/rails"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// Rails per currency (document 1, Endpoints / Payout batches, the rails
// table): canonical names, aliases in every tolerated spelling, defaults.

func railsChecks() []check.Check {
	return []check.Check{
		{
			ID:     "payoutbatches/rail-aliases",
			Title:  "Every canonical rail and alias of GBP, EUR and USD, in upper, lower, hyphenated, spaced and mixed case, is accepted and stored canonical",
			Rules:  []string{"PB-060", "PB-061", "PB-003", "PB-062", "PB-063", "PB-065", "PB-066", "PB-068", "PB-069", "PB-070"},
			Labels: []string{check.Mutating},
			Needs:  append(needs, "beneficiaries.eur", "beneficiaries.usd"),
			Run: func(t *check.T) {
				ben := map[string]string{"GBP": t.Beneficiary("gbp"), "EUR": t.Beneficiary("eur"), "USD": t.Beneficiary("usd")}
				rule := map[string]string{"FPS": "PB-063", "SCT": "PB-066", "DOMESTIC_WIRE": "PB-069", "INTERNATIONAL_WIRE": "PB-070"}
				// The sentence naming each currency's canonical rails.
				canonical := map[string]string{"GBP": "PB-062", "EUR": "PB-065", "USD": "PB-068"}
				for _, cur := range rails.Currencies() {
					names := map[string]string{}
					for _, c := range rails.Canonical(cur) {
						names[c] = c
					}
					for a, c := range rails.Aliases(cur) {
						names[a] = c
					}
					for _, name := range slices.Sorted(maps.Keys(names)) {
						canon := names[name]
						for _, spelling := range rails.Spellings(name) {
							b := fresh.Batch(t, "PB-060", map[string]any{"currency": cur, "rail": spelling, "items": []any{fresh.BatchItem(ben[cur], 100, "Invoice Alpha")}})
							if got := shape.String(t, "PB-003", b, "rail"); got != canon {
								t.Errorf("PB-060", "%s rail %q stored as %q, want %s", cur, spelling, got, canon)
								t.Errorf("PB-003", "%s rail %q returned as %q, not in its canonical form %s", cur, spelling, got, canon)
								if name == canon && canonical[cur] != "" {
									t.Errorf(canonical[cur], "%s canonical rail %q (sent as %q) returned as %q", cur, canon, spelling, got)
								}
								if r := rule[canon]; name != canon && r != "" {
									t.Errorf(r, "%s alias %q stored as %q, want %s", cur, spelling, got, canon)
								}
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
