package payoutbatches

import (
	"slices"
	"strings"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/rails"
)

// The reference table, row by row (document 1, Endpoints / Payout batches,
// Reference rules), each rail's references on both sides of each limit,
// predicted by internal/rails and matched on sequence.

// refCase is one reference sent; nil sends no reference member.
type refCase struct {
	ref  *string
	what string
}

func rep(s string, n int) *string { return sp(strings.Repeat(s, n)) }

// commonCases apply to every rail: default, blank, whitespace-only, the
// 256/257 boundary after trimming.
func commonCases() []refCase {
	return []refCase{
		{nil, "omitted"},
		{sp(""), "empty"},
		{sp("   "), "whitespace only"},
		{sp("\t \t"), "tabs and spaces"},
		{rep("x", 257), "257 characters"},
		{sp("  " + strings.Repeat("x", 257) + "  "), "257 characters inside spaces"},
		{sp("  " + strings.Repeat("x", 256) + "  "), "256 characters after trimming"},
		{rep("é", 257), "257 two-byte characters"},
	}
}

// byteRailCases are FPS, CHAPS and SCT's: ASCII bytes up to limit.
func byteRailCases(limit int) []refCase {
	return []refCase{
		{rep("a", limit), "limit ASCII bytes"},
		{rep("a", limit+1), "limit+1 ASCII bytes"},
		{sp(strings.Repeat("a", limit-1) + " "), "limit bytes ending in a space"},
		{sp("é" + strings.Repeat("a", limit-2)), "limit-1 characters, limit bytes, not ASCII"},
		{rep("é", limit/2), "limit bytes of two-byte characters"},
		{sp("Rent Nov-2026 #4"), "digits and marks"},
	}
}

// usdCases cover the USD rails' row: 17 counted characters, each uncounted
// mark, digits (PB-082), six-same letters, fewer than six letters.
func usdCases() []refCase {
	out := []refCase{
		{sp("Abcdefghijklmnopq"), "17 letters"},
		{sp("Abcdefghijklmnopqr"), "18 letters"},
		{sp("Ab-cd.ef&gh/ij kl-mn.op&q"), "17 letters and 8 marks"},
		{sp("Abcdef"), "6 letters"},
		{sp("Abcde"), "5 letters"},
		{sp("A.b.c.d.e"), "5 letters and 4 marks"},
		{sp("AAAAAA"), "six same letters"},
		{sp("AAAAAAAAAAAA"), "twelve same letters"},
		{sp("Invoice 123456"), "letters and digits"},
		{sp("123456"), "six digits"},
		{sp("Invoice_Alpha"), "underscore"},
		{sp("Café Invoice"), "non-ASCII letter"},
		{sp("Invoice #Alpha"), "hash"},
	}
	for _, m := range []string{" ", "-", ".", "&", "/"} {
		out = append(out, refCase{sp("Abcdefgh" + m + "ijklmnopq"), "17 letters and " + strconvQ(m)})
		out = append(out, refCase{sp(strings.Repeat(m, 20) + "Abcdefghijklmnopq"), "17 letters after 20 of " + strconvQ(m)})
	}
	return out
}

func strconvQ(s string) string { return "'" + s + "'" }

// ruleFor names the rule a misjudged reference breaks.
func ruleFor(rail string, c refCase, f rails.Fate) string {
	switch {
	case c.ref == nil:
		return "PB-076"
	case rail == "BACS" && (c.what == "256 two-byte characters" || c.what == "256 characters after trimming"):
		// Within 256 only as code points after Unicode trimming: the
		// reading PB-106 takes (a server counting bytes, or not trimming,
		// skips them).
		return "PB-106"
	case f.Why == "over 256":
		return "PB-086"
	case f.Why == "blank":
		return "PB-084"
	case rail == "BACS":
		if strings.TrimSpace(*c.ref) == "" {
			return "PB-085"
		}
		return "PB-083"
	}
	switch rail {
	case "FPS":
		return "PB-077"
	case "CHAPS":
		return "PB-078"
	case "SCT":
		return "PB-079"
	}
	switch f.Why {
	case "character not allowed":
		for _, r := range *c.ref {
			if r >= '0' && r <= '9' {
				return "PB-082"
			}
		}
		return "PB-081"
	case "under 6 alphanumerics", "all the same":
		return "PB-081"
	}
	// Passing references and the 17-counted boundary: the count rule.
	return "PB-080"
}

// runReferences sends every case on one rail in one batch (plus a valid
// anchor so the batch is Draft) and compares each item with the
// prediction.
func runReferences(t *check.T, currency, rail, ben string, cases []refCase) {
	items := []any{}
	for _, c := range cases {
		var ref any
		if c.ref != nil {
			ref = *c.ref
		}
		items = append(items, fresh.BatchItem(ben, 100, ref))
	}
	b := fresh.Batch(t, "PB-048", map[string]any{"currency": currency, "rail": rail, "items": items})
	got := batchItems(t, "PB-008", b)
	// The 256-character readings on BACS (PB-106) are judged only where a
	// plain 40-letter reference is taken: a server refusing that breaks
	// BACS's own rule (PB-083), whatever it does at 256.
	plainTaken := false
	for i, c := range cases {
		if c.what == "40 letters" && got[i+1] != nil && got[i+1]["status"] == "Pending" {
			plainTaken = true
		}
	}
	for i, c := range cases {
		seq := i + 1
		it := got[seq]
		if it == nil {
			t.Fatalf("PB-008", "no item with sequence %d", seq)
		}
		f := rails.Reference(rail, c.ref)
		rule := ruleFor(rail, c, f)
		if rule == "PB-106" && !plainTaken {
			rule = "PB-083"
		}
		wantStatus := "Pending"
		if f.Skipped {
			wantStatus = "Skipped"
		}
		if it["status"] != wantStatus {
			t.Errorf(rule, "%s item %d (%s): status %v, want %s (%s; failure_reason %v)", rail, seq, c.what, it["status"], wantStatus, f.Why, it["failure_reason"])
			continue
		}
		if f.Skipped && it["failure_code"] != "validation" {
			t.Errorf("PB-031", "%s item %d (%s): failure_code %v, want validation", rail, seq, c.what, it["failure_code"])
		}
		switch {
		case f.Stored == nil && it["reference"] != nil:
			t.Errorf(rule, "%s item %d (%s): reference %v, want null (%s)", rail, seq, c.what, clip(it["reference"]), f.Why)
		case f.Stored != nil && it["reference"] != *f.Stored:
			r := rule
			if f.Skipped {
				r = "PB-088"
			}
			t.Errorf(r, "%s item %d (%s): reference %v, want %q kept", rail, seq, c.what, clip(it["reference"]), clip(*f.Stored))
		}
	}
}

// referencesChecks are the checks of references.go.
func referencesChecks() []check.Check {
	var cs []check.Check
	type railCase struct {
		id, title, currency, rail, ben string
		rules                          []string
		cases                          func() []refCase
	}
	for _, rc := range []railCase{
		{"fps", "FPS", "GBP", "FPS", "gbp", []string{"PB-077", "PB-084", "PB-086", "PB-076", "PB-088"}, func() []refCase { return byteRailCases(18) }},
		{"chaps", "CHAPS", "GBP", "CHAPS", "gbp", []string{"PB-078", "PB-084", "PB-086", "PB-076", "PB-088"}, func() []refCase { return byteRailCases(35) }},
		{"sct", "SCT", "EUR", "SCT", "eur", []string{"PB-079", "PB-084", "PB-086", "PB-076", "PB-088"}, func() []refCase { return byteRailCases(140) }},
		{"bacs", "BACS", "GBP", "BACS", "gbp", []string{"PB-083", "PB-085", "PB-086", "PB-076", "PB-106"}, func() []refCase {
			return []refCase{{rep("é", 256), "256 two-byte characters"}, {sp("Ünïcödé & #123"), "anything"}, {rep("z", 40), "40 letters"}}
		}},
		{"ach", "ACH", "USD", "ACH", "usd", []string{"PB-080", "PB-081", "PB-082", "PB-084", "PB-086", "PB-076", "PB-088"}, usdCases},
		{"ach-same-day", "ACH_SAME_DAY", "USD", "ACH_SAME_DAY", "usd", []string{"PB-080", "PB-081", "PB-082", "PB-084", "PB-086"}, usdCases},
		{"domestic-wire", "DOMESTIC_WIRE", "USD", "DOMESTIC_WIRE", "usd", []string{"PB-080", "PB-081", "PB-082", "PB-084", "PB-086"}, usdCases},
		{"international-wire", "INTERNATIONAL_WIRE", "USD", "INTERNATIONAL_WIRE", "usd", []string{"PB-080", "PB-081", "PB-082", "PB-084", "PB-086"}, usdCases},
	} {
		rc := rc
		cs = append(cs, check.Check{
			ID:     "payoutbatches/references-" + rc.id,
			Title:  "Item references on " + rc.title + ": both sides of each limit, blank, whitespace-only, 256 vs 257 after trimming, omitted gives 'Batch payout'",
			Rules:  referenceRules(rc.rules),
			Labels: []string{check.Mutating},
			Needs:  append(append([]string{}, needs...), "beneficiaries."+rc.ben),
			Run: func(t *check.T) {
				runReferences(t, rc.currency, rc.rail, t.Beneficiary(rc.ben), append(rc.cases(), commonCases()...))
			},
		})
	}
	return cs
}

// referenceRules are a reference check's rules: its rail's, and those
// runReferences creates, reads and judges every batch under (PB-048:
// items failing validation are Skipped while the others proceed; PB-008:
// the items; PB-076 and PB-088: the common cases, an omitted reference and
// a reference kept on a Skipped item; PB-031: a Skipped item's
// failure_code validation).
func referenceRules(rules []string) []string {
	out := append([]string(nil), rules...)
	for _, r := range []string{"PB-048", "PB-008", "PB-076", "PB-088", "PB-031"} {
		if !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}
