package property

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"pgregory.net/rapid"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/rails"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// Payout references (document 1, Payout batches / Reference rules): for
// every canonical rail, references generated on both sides of each limit
// (18/35/140 ASCII bytes, 6 and 17 counted USD letters with uncounted
// marks anywhere, a digit, one repeated letter, a two-byte character,
// blank, 256 vs 257 after trimming). Pure half: the construction's own
// verdict equals the harness's checker (internal/rails). Over HTTP:
// one batch per case on the rail, every item's status and stored reference
// as the checker predicts.

type genRef struct {
	ref  string
	skip bool   // the construction's verdict
	rule string // the rule row it probes
	what string
}

var railCurrency = map[string]string{"FPS": "GBP", "CHAPS": "GBP", "BACS": "GBP", "SCT": "EUR",
	"ACH": "USD", "ACH_SAME_DAY": "USD", "DOMESTIC_WIRE": "USD", "INTERNATIONAL_WIRE": "USD"}

var allRails = []string{"FPS", "CHAPS", "SCT", "BACS", "ACH", "ACH_SAME_DAY", "DOMESTIC_WIRE", "INTERNATIONAL_WIRE"}

const letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// lettersN draws n letters, not all the same when n > 1.
func lettersN(rt *rapid.T, n int) string {
	b := []byte(rapid.StringMatching(fmt.Sprintf(`[A-Za-z]{%d}`, n)).Draw(rt, "letters"))
	if n > 1 && strings.Count(string(b), string(b[0])) == n {
		b[n-1] = letters[(strings.IndexByte(letters, b[0])+1)%len(letters)]
	}
	return string(b)
}

// sprinkle inserts k uncounted marks at drawn positions.
func sprinkle(rt *rapid.T, s string, k int) string {
	for range k {
		at := rapid.IntRange(1, max(1, len(s)-1)).Draw(rt, "mark at")
		m := rapid.SampledFrom([]string{" ", "-", ".", "&", "/"}).Draw(rt, "mark")
		s = s[:at] + m + s[at:]
	}
	return s
}

func byteLimit(rail string) int { return map[string]int{"FPS": 18, "CHAPS": 35, "SCT": 140}[rail] }

func railRule(rail string) string {
	switch rail {
	case "FPS":
		return "PB-077"
	case "CHAPS":
		return "PB-078"
	case "SCT":
		return "PB-079"
	case "BACS":
		return "PB-083"
	}
	return "PB-080"
}

// refGen draws one reference for rail with the verdict its construction implies.
func refGen(rail string) *rapid.Generator[genRef] {
	return rapid.Custom(func(rt *rapid.T) genRef {
		switch rapid.IntRange(0, 9).Draw(rt, "kind") {
		case 0:
			return genRef{strings.Repeat(" ", rapid.IntRange(0, 3).Draw(rt, "blanks")), rail != "BACS", "PB-084", "blank"}
		case 1:
			n := rapid.SampledFrom([]int{256, 257}).Draw(rt, "trimmed")
			pad := strings.Repeat(" ", rapid.IntRange(0, 2).Draw(rt, "pad"))
			s := pad + lettersN(rt, n) + pad
			if n == 257 {
				return genRef{s, true, "PB-086", "257 after trimming"}
			}
			return genRef{s, rail != "BACS", railRule(rail), "256 after trimming"}
		}
		switch rail {
		case "BACS":
			return genRef{rapid.StringMatching(`[ -~é€]{1,60}`).Draw(rt, "anything"), false, "PB-083", "anything up to 256"}
		case "FPS", "CHAPS", "SCT":
			l := byteLimit(rail)
			n := rapid.OneOf(rapid.SampledFrom([]int{l - 1, l, l + 1}), rapid.IntRange(1, l+4)).Draw(rt, "bytes")
			s := []byte(rapid.StringMatching(fmt.Sprintf(`[A-Za-z0-9#:;,+?()' -]{%d}`, n)).Draw(rt, "ascii"))
			s[0] = 'R' // never blank
			if rapid.IntRange(0, 3).Draw(rt, "non-ascii") == 0 {
				at := rapid.IntRange(0, n-1).Draw(rt, "at")
				out := string(s[:at]) + "é" + string(s[at+1:]) // one more byte, not ASCII
				return genRef{out, true, railRule(rail), fmt.Sprintf("%d bytes with a two-byte character", len(out))}
			}
			return genRef{string(s), n > l, railRule(rail), fmt.Sprintf("%d ASCII bytes (limit %d)", n, l)}
		}
		// USD rails.
		k := rapid.OneOf(rapid.SampledFrom([]int{5, 6, 17, 18}), rapid.IntRange(1, 20)).Draw(rt, "counted")
		marks := rapid.IntRange(0, 6).Draw(rt, "marks")
		switch rapid.IntRange(0, 5).Draw(rt, "usd kind") {
		case 0:
			k = max(k, 6)
			s := sprinkle(rt, strings.Repeat(rapid.SampledFrom([]string{"A", "z", "Q"}).Draw(rt, "same"), k), marks)
			return genRef{s, true, "PB-081", fmt.Sprintf("%d same letters", k)}
		case 1:
			s := []byte(lettersN(rt, max(k, 2)))
			s[rapid.IntRange(0, len(s)-1).Draw(rt, "digit at")] = byte('0' + rapid.IntRange(0, 9).Draw(rt, "digit"))
			return genRef{sprinkle(rt, string(s), marks), true, "PB-082", "letters with a digit"}
		case 2:
			s := []byte(lettersN(rt, max(k, 2)))
			s[rapid.IntRange(0, len(s)-1).Draw(rt, "bad at")] = rapid.SampledFrom([]byte("_#,:;'+")).Draw(rt, "bad")
			return genRef{sprinkle(rt, string(s), marks), true, "PB-081", "a character outside letters and marks"}
		}
		s := sprinkle(rt, lettersN(rt, k), marks)
		rule := "PB-080"
		if k < 6 {
			rule = "PB-081"
		}
		return genRef{s, k < 6 || k > 17, rule, fmt.Sprintf("%d counted letters and %d marks", k, marks)}
	})
}

// referencesChecks are the checks of references.go.
func referencesChecks() []check.Check {
	rules := []string{"PB-077", "PB-078", "PB-079", "PB-080", "PB-081", "PB-082", "PB-083", "PB-084", "PB-086", "PB-088"}
	return []check.Check{
		{
			ID:     "property/payout-references",
			Title:  "references generated on both sides of every rail's limits are judged by the harness's checker as their construction says, and a target skips and stores each exactly as the checker predicts",
			Rules:  rules,
			Labels: []string{check.Mutating, Label}, Needs: []string{"keys.tenant", "customers.active_personal", "beneficiaries.gbp", "beneficiaries.eur", "beneficiaries.usd"},
			Run: func(t *check.T) {
				c := t.Client("tenant")
				counted(c)
				bens := map[string]string{"GBP": t.Beneficiary("gbp"), "EUR": t.Beneficiary("eur"), "USD": t.Beneficiary("usd")}
				cust := t.Customer("active_personal")
				run(t, "property/payout-references", rules, func(rt *rapid.T) {
					var log steps
					rail := rapid.SampledFrom(allRails).Draw(rt, "rail")
					refs := rapid.SliceOfN(refGen(rail), 1, 8).Draw(rt, "refs")
					var items []any
					for _, g := range refs {
						f := rails.Reference(rail, &g.ref)
						if f.Skipped != g.skip {
							rt.Fatalf("%s: the harness's checker says skipped=%v (%s) for %s reference %q (%s), its construction says %v", g.rule, f.Skipped, f.Why, rail, g.ref, g.what, g.skip)
						}
						items = append(items, map[string]any{"beneficiary_id": bens[railCurrency[rail]], "amount": 100, "reference": g.ref})
					}
					r := t.Do(c, client.Request{Method: http.MethodPost, Path: fresh.BatchesPath(cust), IdempotencyKey: t.NewKey(),
						JSON: map[string]any{"currency": railCurrency[rail], "rail": rail, "items": items}})
					log.add(fmt.Sprintf("POST a %s batch on %s with %d references", railCurrency[rail], rail, len(refs)), r)
					var env struct {
						Data struct {
							Batch struct {
								Items []struct {
									Sequence  int     `json:"sequence"`
									Status    string  `json:"status"`
									Reference *string `json:"reference"`
								} `json:"items"`
							} `json:"payout_batch"`
						} `json:"data"`
					}
					if r.Status != http.StatusOK || json.Unmarshal(r.Body, &env) != nil || len(env.Data.Batch.Items) != len(refs) {
						log.fail(rt, "PB-088: the batch answered %d %s, want 200 with %d items", r.Status, shape.Clip(r.Body), len(refs))
					}
					for _, it := range env.Data.Batch.Items {
						if it.Sequence < 1 || it.Sequence > len(refs) {
							log.fail(rt, "PB-088: item sequence %d out of 1..%d", it.Sequence, len(refs))
						}
						g := refs[it.Sequence-1]
						f := rails.Reference(rail, &g.ref)
						want := "Pending"
						if f.Skipped {
							want = "Skipped"
						}
						if it.Status != want {
							log.fail(rt, "%s: %s item %d, reference %q (%s): status %s, want %s (%s)", g.rule, rail, it.Sequence, shape.Clip([]byte(g.ref)), g.what, it.Status, want, f.Why)
						}
						switch {
						case f.Stored == nil && it.Reference != nil:
							log.fail(rt, "%s: %s item %d (%s): reference %q, want null", g.rule, rail, it.Sequence, g.what, shape.Clip([]byte(*it.Reference)))
						case f.Stored != nil && (it.Reference == nil || *it.Reference != *f.Stored):
							rule := g.rule
							if f.Skipped {
								rule = "PB-088"
							}
							log.fail(rt, "%s: %s item %d (%s): reference %v, want %q kept", rule, rail, it.Sequence, g.what, it.Reference, shape.Clip([]byte(*f.Stored)))
						}
					}
				})
			},
		},
	}
}
