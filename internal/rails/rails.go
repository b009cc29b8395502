// Package rails is the harness's own reading of the payout-batch rail and
// reference rules (document 1, Endpoints / Payout batches): the rails of
// each currency with their aliases and defaults, and the reference table
// row by row. Checks use it to predict every item's fate for any batch. It
// never imports the sandbox: each rule is written twice, served there and
// predicted here.
package rails

import (
	"sort"
	"strings"
	"unicode/utf8"
)

// DefaultReference is what an omitted or null item reference is stored as
// (PB-076).
const DefaultReference = "Batch payout"

// MaxReference is the length over which a reference (after trimming) is
// refused on every rail (PB-086).
const MaxReference = 256

// table is the rails table: canonical rails, aliases to canonical, default.
type table struct {
	canonical []string
	aliases   map[string]string
	def       string
}

var tables = map[string]table{
	"GBP": {canonical: []string{"FPS", "CHAPS", "BACS"}, aliases: map[string]string{"FASTER_PAYMENTS": "FPS"}, def: "FPS"},
	"EUR": {canonical: []string{"SCT"}, aliases: map[string]string{"SEPA": "SCT", "SEPA_INSTANT": "SCT", "SEPA_CREDIT_TRANSFER": "SCT", "SCT_INST": "SCT"}, def: "SCT"},
	"USD": {canonical: []string{"ACH", "ACH_SAME_DAY", "DOMESTIC_WIRE", "INTERNATIONAL_WIRE"}, aliases: map[string]string{"WIRE": "DOMESTIC_WIRE", "FEDWIRE": "DOMESTIC_WIRE", "SWIFT": "INTERNATIONAL_WIRE"}, def: "ACH"},
}

// Currencies are the batch currencies (PB-039).
func Currencies() []string { return []string{"GBP", "EUR", "USD"} }

// Supported tells whether a batch currency is accepted (PB-093: AUD and
// every other currency is unsupported_currency).
func Supported(currency string) bool { _, ok := tables[currency]; return ok }

// Canonical returns the canonical rails of a currency.
func Canonical(currency string) []string {
	return append([]string(nil), tables[currency].canonical...)
}

// Default returns the currency's default rail (PB-064, PB-067, PB-071).
func Default(currency string) string { return tables[currency].def }

// Aliases returns a currency's aliases (upper-case, underscored) mapped to
// their canonical rails.
func Aliases(currency string) map[string]string {
	out := map[string]string{}
	for k, v := range tables[currency].aliases {
		out[k] = v
	}
	return out
}

// Normalize is PB-061's reading of "case, hyphens and spaces tolerated":
// upper-cased, hyphens and spaces turned into underscores.
func Normalize(rail string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || r == ' ' {
			return '_'
		}
		return r
	}, strings.ToUpper(rail))
}

// Resolve maps a requested rail to the stored canonical rail. An empty
// rail (omitted) is the currency's default. ok is false for a rail the
// currency does not offer (unsupported_rail, PB-072/PB-073).
func Resolve(currency, rail string) (canonical string, ok bool) {
	t, known := tables[currency]
	if !known {
		return "", false
	}
	if rail == "" {
		return t.def, true
	}
	n := Normalize(rail)
	for _, c := range t.canonical {
		if n == c {
			return c, true
		}
	}
	if c, isAlias := t.aliases[n]; isAlias {
		return c, true
	}
	return "", false
}

// Spellings returns the tolerated spellings of a rail name: as given,
// lower-case, with hyphens, with spaces, and mixed case.
func Spellings(name string) []string {
	set := map[string]bool{}
	lower := strings.ToLower(name)
	for _, s := range []string{
		name, lower,
		strings.ReplaceAll(name, "_", "-"),
		strings.ReplaceAll(lower, "_", " "),
		mixed(strings.ReplaceAll(lower, "_", "-")),
	} {
		set[s] = true
	}
	out := make([]string, 0, len(set))
	for s := range set {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

func mixed(s string) string {
	b := []byte(s)
	for i := range b {
		if i%2 == 0 && b[i] >= 'a' && b[i] <= 'z' {
			b[i] -= 'a' - 'A'
		}
	}
	return string(b)
}

// Fate is the predicted intake outcome of one item's reference.
type Fate struct {
	// Skipped is true when the reference makes the item Skipped.
	Skipped bool
	// Stored is the reference the item shows; nil is JSON null.
	Stored *string
	// Why names the rule row that decided.
	Why string
}

// Reference predicts the fate of a reference on a canonical rail. ref nil
// is an omitted or null reference.
func Reference(rail string, ref *string) Fate {
	if ref == nil {
		d := DefaultReference
		return Fate{Stored: &d, Why: "default"}
	}
	trimmed := strings.TrimSpace(*ref)
	if utf8.RuneCountInString(trimmed) > MaxReference {
		return Fate{Skipped: true, Why: "over 256"}
	}
	kept := *ref
	switch rail {
	case "BACS":
		return Fate{Stored: &kept, Why: "unchecked"}
	case "FPS", "CHAPS", "SCT":
		if trimmed == "" {
			return Fate{Skipped: true, Why: "blank"}
		}
		limit := map[string]int{"FPS": 18, "CHAPS": 35, "SCT": 140}[rail]
		if !ascii(*ref) {
			return Fate{Skipped: true, Stored: &kept, Why: "not ASCII"}
		}
		if len(*ref) > limit {
			return Fate{Skipped: true, Stored: &kept, Why: "over byte limit"}
		}
		return Fate{Stored: &kept, Why: "ok"}
	case "ACH", "ACH_SAME_DAY", "DOMESTIC_WIRE", "INTERNATIONAL_WIRE":
		if trimmed == "" {
			return Fate{Skipped: true, Why: "blank"}
		}
		if why := usdBreak(*ref); why != "" {
			return Fate{Skipped: true, Stored: &kept, Why: why}
		}
		return Fate{Stored: &kept, Why: "ok"}
	}
	return Fate{Stored: &kept, Why: "unknown rail"}
}

func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// uncounted are the five marks the USD rails allow and do not count.
const uncounted = " -.&/"

// usdBreak returns why a reference breaks the USD rule, or "". Digits break
// it (PB-082: the character rule lists letters only).
func usdBreak(ref string) string {
	counted := 0
	letters := map[rune]bool{}
	for _, r := range ref {
		switch {
		case strings.ContainsRune(uncounted, r):
		case (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z'):
			counted++
			letters[r] = true
		default:
			return "character not allowed"
		}
	}
	if counted > 17 {
		return "over 17 counted"
	}
	if counted < 6 {
		return "under 6 alphanumerics"
	}
	if len(letters) == 1 {
		return "all the same"
	}
	return ""
}
