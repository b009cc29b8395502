package property

import (
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"strings"

	"pgregory.net/rapid"

	"github.com/touchstone-harness/touchstone/internal/amount"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// Amounts: the harness's money arithmetic (internal/amount) and a target's
// integer minor units. Pure half: for scales 2, 6, 8 and 18, any integer
// (values above 2^53 and negatives included) survives minor -> major
// string -> minor exactly, any canonical major string survives the other
// way, the major form has exactly scale decimals, and a major amount with
// digits past the scale rounds away from zero to the next atomic unit
// (CWD-005's rule, predicted by an independent digit-string oracle). Over
// HTTP: a payout batch of random minor amounts (skipped items included)
// echoes every amount exactly and its total_amount is their exact sum
// (PB-004), read as json.Number, never a float.

var scales = []int{2, 6, 8, 18}

// bigGen draws an integer: small, around 2^53, or up to 40 digits; either sign.
var bigGen = rapid.Custom(func(rt *rapid.T) *big.Int {
	var n *big.Int
	switch rapid.IntRange(0, 2).Draw(rt, "size") {
	case 0:
		n = big.NewInt(rapid.Int64Range(0, 1000).Draw(rt, "small"))
	case 1:
		n = new(big.Int).Lsh(big.NewInt(1), 53)
		n.Add(n, big.NewInt(rapid.Int64Range(-3, 3).Draw(rt, "near 2^53")))
	default:
		n, _ = new(big.Int).SetString(rapid.StringMatching(`[1-9][0-9]{0,39}`).Draw(rt, "digits"), 10)
	}
	if rapid.Bool().Draw(rt, "negative") {
		n.Neg(n)
	}
	return n
})

// roundOracle is the away-from-zero rounding of sign+whole.frac at scale,
// done on digit strings only (independent of amount.AwayFromZero).
func roundOracle(neg bool, whole, frac string, scale int) string {
	kept := frac
	rest := ""
	if len(frac) > scale {
		kept, rest = frac[:scale], frac[scale:]
	}
	kept += strings.Repeat("0", scale-len(kept))
	n, _ := new(big.Int).SetString("0"+whole+kept, 10)
	if strings.Trim(rest, "0") != "" {
		n.Add(n, big.NewInt(1))
	}
	if neg && n.Sign() != 0 {
		n.Neg(n)
	}
	return n.String()
}

func pureAmounts(rt *rapid.T) {
	scale := rapid.SampledFrom(scales).Draw(rt, "scale")
	n := bigGen.Draw(rt, "minor")
	s := amount.Major(n, scale)
	if _, frac, _ := strings.Cut(s, "."); len(frac) != scale {
		rt.Fatalf("CRYP-005: Major(%s, %d) = %s has %d decimals, want exactly %d", n, scale, s, len(frac), scale)
	}
	back, err := amount.Minor(s, scale)
	if err != nil || back.Cmp(n) != 0 {
		rt.Fatalf("CRYP-005: minor %s -> major %q -> minor %v (%v) at scale %d: not exact", n, s, back, err, scale)
	}
	// Canonical strings the other way.
	whole := rapid.StringMatching(`0|[1-9][0-9]{0,30}`).Draw(rt, "whole")
	frac := rapid.StringMatching(fmt.Sprintf(`[0-9]{%d}`, scale)).Draw(rt, "frac")
	neg := rapid.Bool().Draw(rt, "neg") && strings.Trim(whole+frac, "0") != ""
	text := whole + "." + frac
	if neg {
		text = "-" + text
	}
	m, err := amount.Minor(text, scale)
	if err != nil || amount.Major(m, scale) != text {
		rt.Fatalf("CRYP-005: major %q -> minor %v (%v) -> major %q at scale %d: not exact", text, m, err, amount.Major(m, scale), scale)
	}
	// Rounding away from zero at the asset's scale (CWD-005): extra digits.
	extra := rapid.StringMatching(`[0-9]{0,6}`).Draw(rt, "extra")
	in := text + extra
	if !strings.Contains(in, ".") {
		in = text
	}
	got, err := amount.AwayFromZero(in, scale)
	want := roundOracle(neg, whole, frac+extra, scale)
	if err != nil || got.String() != want {
		rt.Fatalf("CWD-005: %s rounded away from zero at scale %d is %v (%v), want %s", in, scale, got, err, want)
	}
}

// amountsChecks are the checks of amounts.go.
func amountsChecks() []check.Check {
	// The pure half checks the harness's own arithmetic (internal/amount), which the
	// crypto checks use to read CRYP-005 and CWD-005 over HTTP; only PB-004 is
	// a target rule this property observes.
	rules := []string{"PB-004"}
	return []check.Check{
		{
			ID:     "property/amounts",
			Title:  "minor <-> major and atomic <-> decimal strings round-trip exactly at scales 2, 6, 8, 18 (above 2^53 included), major amounts round away from zero at the scale, and a batch's random amounts echo exactly with total_amount their exact sum",
			Rules:  rules,
			Labels: []string{check.Mutating, Label}, Needs: []string{"keys.tenant", "customers.active_personal", "beneficiaries.gbp"},
			Run: func(t *check.T) {
				c := t.Client("tenant")
				counted(c)
				ben := t.Beneficiary("gbp")
				cust := t.Customer("active_personal")
				run(t, "property/amounts", rules, func(rt *rapid.T) {
					for range 20 {
						pureAmounts(rt)
					}
					var log steps
					n := rapid.IntRange(1, 6).Draw(rt, "items")
					var items []any
					var sent []string
					for i := range n {
						a := rapid.OneOf(rapid.Int64Range(1, 999), rapid.Int64Range(1, 1_000_000_000_000), rapid.Int64Range(9_007_199_254_740_990, 9_007_199_254_741_000)).Draw(rt, "amount")
						ref := "Rent"
						if rapid.Bool().Draw(rt, "skipped") {
							ref = strings.Repeat("r", 19) // over FPS's 18 bytes: the item is skipped and still counted
						}
						sent = append(sent, fmt.Sprint(a))
						items = append(items, map[string]any{"beneficiary_id": ben, "amount": json.Number(sent[i]), "reference": ref})
					}
					r := t.Do(c, client.Request{Method: http.MethodPost, Path: fresh.BatchesPath(cust), IdempotencyKey: t.NewKey(),
						JSON: map[string]any{"currency": "GBP", "rail": "FPS", "items": items}})
					log.add(fmt.Sprintf("POST a GBP FPS batch of amounts %v", sent), r)
					var env struct {
						Data struct {
							Batch struct {
								Total json.Number `json:"total_amount"`
								Items []struct {
									Sequence int         `json:"sequence"`
									Amount   json.Number `json:"amount"`
								} `json:"items"`
							} `json:"payout_batch"`
						} `json:"data"`
					}
					if !okInto(r, &env) {
						log.fail(rt, "PB-004: the batch answered %d %s, want 200 with data.payout_batch", r.Status, shape.Clip(r.Body))
					}
					want, _ := amount.Sum(sent...)
					if env.Data.Batch.Total.String() != want.String() {
						log.fail(rt, "PB-004: total_amount is %s, want %s, the exact sum of every item's amount (skipped included)", env.Data.Batch.Total, want)
					}
					for _, it := range env.Data.Batch.Items {
						if it.Sequence < 1 || it.Sequence > n || it.Amount.String() != sent[it.Sequence-1] {
							log.fail(rt, "PB-004: item %d's amount is %s, want %s exactly", it.Sequence, it.Amount, sent[max(0, min(n, it.Sequence)-1)])
						}
					}
				})
			},
		},
	}
}
