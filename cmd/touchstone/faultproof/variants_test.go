package faultproof_test

import (
	"context"
	"os"
	"regexp"
	"testing"

	"github.com/touchstone-harness/touchstone/cmd/touchstone/faultproof"
)

// TestVariants proves the wrong-server variants alone (TOUCHSTONE_VARIANT
// selects some by name, a regular expression): each must make a check
// fail under its rule. The whole proof runs them in TestEveryFaultIsCaught.
func TestVariants(t *testing.T) {
	sel := os.Getenv("TOUCHSTONE_VARIANT")
	if sel == "" {
		t.Skip("TOUCHSTONE_VARIANT names the variants to prove alone (TestEveryFaultIsCaught proves them all)")
	}
	re := regexp.MustCompile(sel)
	for _, v := range faultproof.Variants() {
		if !re.MatchString(v.Name) {
			continue
		}
		t.Run(v.Name, func(t *testing.T) {
			o := faultproof.ProveVariant(context.Background(), v)
			if !o.Caught {
				t.Errorf("variant %s (%s) breaks %s: not caught: %s (checks %v, failed under %v, undeclared %v)", v.Name, v.Description, v.Rule, o.Note, o.Checks, o.FailedUnder, o.Undeclared)
			}
			for _, s := range o.Stray {
				t.Errorf("variant %s also breaks a check of another area: %s", v.Name, s)
			}
			t.Logf("%s: caught by %v; failed under %v; undeclared %v", v.Name, o.CaughtBy, o.FailedUnder, o.Undeclared)
		})
	}
}
