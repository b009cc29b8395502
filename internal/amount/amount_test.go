package amount

import (
	"math/big"
	"os"
	"strings"
	"testing"
)

func TestExamples(t *testing.T) {
	for _, c := range []struct {
		minor string
		scale int
		major string
	}{
		{"0", 2, "0.00"}, {"5", 2, "0.05"}, {"-1234", 2, "-12.34"}, {"9007199254740993", 2, "90071992547409.93"},
		{"1", 18, "0.000000000000000001"}, {"123456789012345678901234567890", 18, "123456789012.345678901234567890"}, {"7", 0, "7"},
	} {
		n, _ := new(big.Int).SetString(c.minor, 10)
		if got := Major(n, c.scale); got != c.major {
			t.Errorf("Major(%s, %d) = %s, want %s", c.minor, c.scale, got, c.major)
		}
		back, err := Minor(c.major, c.scale)
		if err != nil || back.Cmp(n) != 0 {
			t.Errorf("Minor(%s, %d) = %v %v, want %s", c.major, c.scale, back, err, c.minor)
		}
	}
	for _, bad := range []string{"", "-", "1.234", "1..2", "1e3", "0x10", " 1"} {
		if _, err := Minor(bad, 2); err == nil {
			t.Errorf("Minor(%q, 2) accepted", bad)
		}
	}
	for _, c := range []struct {
		text  string
		scale int
		want  string
	}{
		{"0.0000001", 6, "1"}, {"-0.0000001", 6, "-1"}, {"1.5", 0, "2"}, {"-1.5", 0, "-2"}, {"2", 8, "200000000"}, {"1e-9", 8, "1"}, {"0", 8, "0"},
	} {
		got, err := AwayFromZero(c.text, c.scale)
		if err != nil || got.String() != c.want {
			t.Errorf("AwayFromZero(%s, %d) = %v %v, want %s", c.text, c.scale, got, err, c.want)
		}
	}
}

// TestNoFloat: no float type or conversion appears in the package's code.
func TestNoFloat(t *testing.T) {
	src, err := os.ReadFile("amount.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"float32", "float64", "ParseFloat", "big.Float", "SetFloat"} {
		if strings.Contains(string(src), w) {
			t.Errorf("amount.go mentions %s: no float may touch an amount", w)
		}
	}
}
