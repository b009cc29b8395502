package faultproof_test

import (
	"context"
	"testing"

	"github.com/touchstone-harness/touchstone/fixtures/sandbox"
	"github.com/touchstone-harness/touchstone/internal/catalogue"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/faultproof"
	_ "github.com/touchstone-harness/touchstone/suites" // registers every check
)

// TestFaithfulSandboxPasses: no check fails against the faithful sandbox.
func TestFaithfulSandboxPasses(t *testing.T) {
	results, err := faultproof.Baseline(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		if r.Status == check.Failed || r.Status == check.Error {
			t.Errorf("%s against the faithful sandbox: %s", r.ID, r.Summary())
		}
	}
}

// TestEveryFaultIsCaught: for every fault mode, the checks that name its
// rule fail against the faulted sandbox, naming that rule.
func TestEveryFaultIsCaught(t *testing.T) {
	cat := catalogue.MustLoad()
	for _, f := range sandbox.Faults() {
		t.Run(f.Name, func(t *testing.T) {
			if f.Rule != "" && cat.Rule(f.Rule) == nil {
				t.Fatalf("fault %s names unknown rule %s", f.Name, f.Rule)
			}
			o := faultproof.Prove(context.Background(), f)
			if !o.Caught {
				t.Errorf("fault %s (%s) breaks %s but no check caught it: %s (checks run: %v)", f.Name, f.Description, f.Rule, o.Note, o.Checks)
			}
		})
	}
}
