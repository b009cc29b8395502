package rails

import (
	"strings"
	"testing"
)

func sp(s string) *string { return &s }

func TestResolve(t *testing.T) {
	cases := []struct {
		cur, rail, want string
		ok              bool
	}{
		{"GBP", "", "FPS", true}, {"GBP", "fps", "FPS", true}, {"GBP", "faster payments", "FPS", true},
		{"GBP", "Faster-Payments", "FPS", true}, {"GBP", "CHAPS", "CHAPS", true}, {"GBP", "bacs", "BACS", true},
		{"GBP", "SCT", "", false}, {"GBP", "BOOK_TRANSFER", "", false},
		{"EUR", "", "SCT", true}, {"EUR", "sepa", "SCT", true}, {"EUR", "sepa instant", "SCT", true},
		{"EUR", "SEPA-CREDIT-TRANSFER", "SCT", true}, {"EUR", "sct_inst", "SCT", true}, {"EUR", "CHAPS", "", false},
		{"USD", "", "ACH", true}, {"USD", "ach same-day", "ACH_SAME_DAY", true}, {"USD", "wire", "DOMESTIC_WIRE", true},
		{"USD", "FedWire", "DOMESTIC_WIRE", true}, {"USD", "swift", "INTERNATIONAL_WIRE", true},
		{"USD", "international wire", "INTERNATIONAL_WIRE", true}, {"USD", "FPS", "", false},
		{"AUD", "", "", false},
	}
	for _, c := range cases {
		got, ok := Resolve(c.cur, c.rail)
		if got != c.want || ok != c.ok {
			t.Errorf("Resolve(%q,%q) = %q,%v; want %q,%v", c.cur, c.rail, got, ok, c.want, c.ok)
		}
	}
	for _, cur := range Currencies() {
		for alias, canon := range Aliases(cur) {
			for _, s := range Spellings(alias) {
				if got, ok := Resolve(cur, s); !ok || got != canon {
					t.Errorf("%s %q resolved %q,%v", cur, s, got, ok)
				}
			}
		}
	}
	if Supported("AUD") || !Supported("USD") {
		t.Error("currency table")
	}
}

func TestReference(t *testing.T) {
	cases := []struct {
		rail    string
		ref     *string
		skipped bool
		stored  *string
	}{
		{"FPS", nil, false, sp("Batch payout")},
		{"BACS", nil, false, sp("Batch payout")},
		{"FPS", sp(strings.Repeat("a", 18)), false, sp(strings.Repeat("a", 18))},
		{"FPS", sp(strings.Repeat("a", 19)), true, sp(strings.Repeat("a", 19))},
		{"FPS", sp("é" + strings.Repeat("a", 8)), true, sp("é" + strings.Repeat("a", 8))}, // 9 characters, not ASCII
		{"CHAPS", sp(strings.Repeat("b", 35)), false, sp(strings.Repeat("b", 35))},
		{"CHAPS", sp(strings.Repeat("b", 36)), true, sp(strings.Repeat("b", 36))},
		{"SCT", sp(strings.Repeat("c", 140)), false, sp(strings.Repeat("c", 140))},
		{"SCT", sp(strings.Repeat("c", 141)), true, sp(strings.Repeat("c", 141))},
		{"FPS", sp(""), true, nil}, {"FPS", sp("   "), true, nil}, {"SCT", sp(" "), true, nil}, {"ACH", sp(""), true, nil},
		{"BACS", sp(""), false, sp("")},
		{"BACS", sp(strings.Repeat("é", 256)), false, sp(strings.Repeat("é", 256))},
		{"BACS", sp(strings.Repeat("x", 257)), true, nil},
		{"BACS", sp("  " + strings.Repeat("x", 256) + "  "), false, sp("  " + strings.Repeat("x", 256) + "  ")},
		{"FPS", sp(strings.Repeat("x", 257)), true, nil},
		{"ACH", sp("Invoice Alpha"), false, sp("Invoice Alpha")},
		{"ACH", sp("Abcdefghijklmnopq"), false, sp("Abcdefghijklmnopq")},                 // 17 counted
		{"ACH", sp("Abcdefghijklmnopqr"), true, sp("Abcdefghijklmnopqr")},                // 18 counted
		{"ACH", sp("Ab-cd.ef&gh/ij kl-mn.op&q"), false, sp("Ab-cd.ef&gh/ij kl-mn.op&q")}, // 17 counted, 8 uncounted
		{"DOMESTIC_WIRE", sp("Abcde"), true, sp("Abcde")},
		{"DOMESTIC_WIRE", sp("A.b.c.d.e"), true, sp("A.b.c.d.e")},
		{"INTERNATIONAL_WIRE", sp("Abcdef"), false, sp("Abcdef")},
		{"ACH_SAME_DAY", sp("AAAAAA"), true, sp("AAAAAA")},
		{"ACH_SAME_DAY", sp("Invoice 123456"), true, sp("Invoice 123456")}, // PB-082: digits break the rule
		{"ACH", sp("Invoice_Alpha"), true, sp("Invoice_Alpha")},
		{"ACH", sp("Café Invoice"), true, sp("Café Invoice")},
	}
	for _, c := range cases {
		f := Reference(c.rail, c.ref)
		if f.Skipped != c.skipped || !same(f.Stored, c.stored) {
			t.Errorf("Reference(%s, %v) = %+v; want skipped=%v stored=%v", c.rail, deref(c.ref), f, c.skipped, deref(c.stored))
		}
	}
}

func same(a, b *string) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

func deref(p *string) any {
	if p == nil {
		return nil
	}
	return *p
}
