package payoutbatches

import (
	"math/rand/v2"
	"strings"

	"github.com/touchstone-harness/touchstone/internal/check"
)

// Generated references (document 1, Endpoints / Payout batches, Reference
// rules): a fixed-seed generator draws references around each rail's
// limits from an alphabet of letters, digits, the five USD marks, other
// ASCII punctuation and two-byte and three-byte characters, and the
// harness's own rules (internal/rails) predict every item's fate.

// genAlphabet weights the characters that decide the rules.
var genAlphabet = []string{"a", "b", "Z", "Q", "x", "7", "0", " ", "-", ".", "&", "/", "_", "#", "é", "€", "\t"}

func genReferences(seed uint64, n, around int) []refCase {
	rng := rand.New(rand.NewPCG(seed, 0x9b))
	out := make([]refCase, 0, n)
	for i := 0; i < n; i++ {
		length := max(0, around-4+rng.IntN(9))
		var b strings.Builder
		// Half the references are letters only, so that passing cases are
		// as common as failing ones.
		lettersOnly := rng.IntN(2) == 0
		for j := 0; j < length; j++ {
			if lettersOnly {
				b.WriteString(genAlphabet[rng.IntN(5)])
			} else {
				b.WriteString(genAlphabet[rng.IntN(len(genAlphabet))])
			}
		}
		out = append(out, refCase{sp(b.String()), "generated"})
	}
	return out
}

// generatedChecks are the checks of generated.go.
func generatedChecks() []check.Check {
	var cs []check.Check
	for _, g := range []struct {
		currency, rail, ben string
		around              int
		rules               []string
	}{
		{"GBP", "FPS", "gbp", 18, []string{"PB-077", "PB-084"}},
		{"GBP", "CHAPS", "gbp", 35, []string{"PB-078", "PB-084"}},
		{"EUR", "SCT", "eur", 140, []string{"PB-079", "PB-084"}},
		{"USD", "ACH", "usd", 17, []string{"PB-080", "PB-081", "PB-082", "PB-084"}},
		{"GBP", "BACS", "gbp", 256, []string{"PB-083", "PB-086"}},
	} {
		g := g
		cs = append(cs, check.Check{
			ID:     "payoutbatches/references-generated-" + strings.ToLower(g.rail),
			Title:  "Sixty generated references around the " + g.rail + " limits meet the fate the harness's own reference rules predict",
			Rules:  referenceRules(g.rules),
			Labels: []string{check.Mutating},
			Needs:  append(append([]string{}, needs...), "beneficiaries."+g.ben),
			Run: func(t *check.T) {
				runReferences(t, g.currency, g.rail, t.Beneficiary(g.ben), genReferences(uint64(len(g.rail)*1000+g.around), 60, g.around))
			},
		})
	}
	return cs
}
