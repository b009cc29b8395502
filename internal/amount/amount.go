// Package amount is the harness's money arithmetic: integer minor (or
// atomic) units and their decimal-string major form at a given scale, and
// the rounding of a request amount to an asset's scale. Every value is a
// math/big integer or rational built from decimal text: no float ever
// touches an amount, so values above 2^53 survive exactly both ways
// (document 1: fiat amounts are integer minor units; crypto balances are
// strings in major units with exactly the asset's number of decimals plus
// atomic counterparts; a crypto withdrawal amount is a JSON number in
// major units rounded away from zero at the asset's scale).
package amount

import (
	"fmt"
	"math/big"
	"strings"
)

// pow10 is 10^scale.
func pow10(scale int) *big.Int {
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil)
}

// Major renders minor units as a decimal string with exactly scale
// fractional digits ("-12.34" for -1234 at scale 2; no point at scale 0).
func Major(minor *big.Int, scale int) string {
	neg := minor.Sign() < 0
	digits := new(big.Int).Abs(minor).String()
	if scale > 0 {
		if len(digits) <= scale {
			digits = strings.Repeat("0", scale-len(digits)+1) + digits
		}
		digits = digits[:len(digits)-scale] + "." + digits[len(digits)-scale:]
	}
	if neg {
		return "-" + digits
	}
	return digits
}

// Minor parses a major-unit decimal string ("12.34", "-0.5", "7") into
// minor units at scale. More fractional digits than scale, or anything
// but an optional sign, digits and one point, is an error: the conversion
// is exact or refused.
func Minor(major string, scale int) (*big.Int, error) {
	s := major
	neg := strings.HasPrefix(s, "-")
	if neg || strings.HasPrefix(s, "+") {
		s = s[1:]
	}
	whole, frac, _ := strings.Cut(s, ".")
	if whole == "" && frac == "" || !digitsOnly(whole) || !digitsOnly(frac) || strings.Contains(frac, ".") {
		return nil, fmt.Errorf("amount %q is not a decimal", major)
	}
	if len(frac) > scale {
		return nil, fmt.Errorf("amount %q has more than %d decimals", major, scale)
	}
	n, ok := new(big.Int).SetString("0"+whole+frac+strings.Repeat("0", scale-len(frac)), 10)
	if !ok {
		return nil, fmt.Errorf("amount %q is not a decimal", major)
	}
	if neg {
		n.Neg(n)
	}
	return n, nil
}

func digitsOnly(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Decimal parses a JSON number's text ("1.5", "-2e-7", "12") exactly.
func Decimal(text string) (*big.Rat, error) {
	r, ok := new(big.Rat).SetString(text)
	if !ok || strings.ContainsAny(text, "/") {
		return nil, fmt.Errorf("amount %q is not a decimal number", text)
	}
	return r, nil
}

// AwayFromZero converts a major-unit decimal (a JSON number's text) to
// atomic units at scale, rounding any remainder away from zero: 0.0000001
// at scale 6 is 1 atomic unit, -0.0000001 is -1.
func AwayFromZero(text string, scale int) (*big.Int, error) {
	r, err := Decimal(text)
	if err != nil {
		return nil, err
	}
	r.Mul(r, new(big.Rat).SetInt(pow10(scale)))
	q, m := new(big.Int).QuoRem(r.Num(), r.Denom(), new(big.Int))
	if m.Sign() != 0 {
		if r.Sign() < 0 {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	return q, nil
}

// Sum adds decimal integer strings (JSON numbers' text) exactly.
func Sum(values ...string) (*big.Int, error) {
	total := new(big.Int)
	for _, v := range values {
		n, ok := new(big.Int).SetString(v, 10)
		if !ok {
			return nil, fmt.Errorf("amount %q is not an integer", v)
		}
		total.Add(total, n)
	}
	return total, nil
}
