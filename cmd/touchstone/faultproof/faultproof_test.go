package faultproof_test

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"testing"

	_ "github.com/touchstone-harness/touchstone/cmd/touchstone/allchecks" // registers every check
	"github.com/touchstone-harness/touchstone/cmd/touchstone/faultproof"
	"github.com/touchstone-harness/touchstone/fixtures/sandbox"
	"github.com/touchstone-harness/touchstone/internal/catalogue"
	"github.com/touchstone-harness/touchstone/internal/check"
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
// rule fail against the faulted sandbox, naming that rule. Then every check
// must be able to fail: caught a fault, or fail against a server that
// honours nothing.
func TestEveryFaultIsCaught(t *testing.T) {
	cat := catalogue.MustLoad()
	var mu sync.Mutex
	caughtBy := map[string]bool{}
	proved := 0
	proofs := faultproof.NewProofs()
	// Each fault runs against its own sandbox, in parallel up to
	// -test.parallel (GOMAXPROCS by default); "faults" returns once all
	// of them have, so the proof below sees every outcome.
	t.Run("faults", func(t *testing.T) {
		for i, f := range sandbox.Faults() {
			t.Run(f.Name, func(t *testing.T) {
				if !sampledUnderRace(i) {
					t.Skip("race detector: every 4th fault runs here; the whole proof runs without -race (.ci/run, or TOUCHSTONE_FAULTPROOF_ALL=1)")
				}
				t.Parallel()
				if f.Rule != "" && cat.Rule(f.Rule) == nil {
					t.Fatalf("fault %s names unknown rule %s", f.Name, f.Rule)
				}
				o := faultproof.Prove(context.Background(), f)
				if !o.Caught {
					t.Errorf("fault %s (%s) breaks %s but no check caught it: %s (checks run: %v)", f.Name, f.Description, f.Rule, o.Note, o.Checks)
				}
				for _, s := range o.Stray {
					t.Errorf("fault %s breaks %s but also a check of another area: %s", f.Name, f.Rule, s)
				}
				mu.Lock()
				proofs.AddOutcome(o)
				proved++
				for _, id := range o.CaughtBy {
					caughtBy[id] = true
				}
				mu.Unlock()
			})
		}
	})
	t.Run("every-check-can-fail", func(t *testing.T) {
		if proved != len(sandbox.Faults()) {
			t.Skip("only some faults ran (-run filter, or a sample under the race detector); the proof needs all of them")
		}
		baseline, err := faultproof.Baseline(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		runsHere := map[string]bool{} // checks the faithful sandbox does not skip
		for _, r := range baseline {
			runsHere[r.ID] = r.Status == check.Passed
		}
		results, err := faultproof.AgainstWrongServer(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range results {
			if runsHere[r.ID] && r.Status != check.Failed && !caughtBy[r.ID] {
				t.Errorf("check %s cannot be shown to fail: no fault mode catches it and against a server that honours nothing it ended %s %s", r.ID, r.Status, r.SkipReason+r.Error)
			}
		}
		proofs.AddResults(faultproof.WrongServerSource, results)
		if bad := faultproof.ProxyBaseline(context.Background()); len(bad) > 0 {
			t.Logf("%d checks do not pass through the variants' proxy unchanged and take no part in them: %v", len(bad), bad)
		}
		for _, v := range faultproof.Variants() {
			o := faultproof.ProveVariant(context.Background(), v)
			if !o.Caught {
				t.Errorf("wrong-server variant %s (%s) breaks %s but no check failed under it: %s (checks run: %v)", v.Name, v.Description, v.Rule, o.Note, o.Checks)
			}
			for _, s := range o.Stray {
				t.Errorf("wrong-server variant %s breaks %s but also a check of another area: %s", v.Name, v.Rule, s)
			}
			proofs.AddOutcome(o)
		}
		checkProof(t, proofs)
	})
}

var updateProof = flag.Bool("update-proof", false, "rewrite internal/catalogue/proof.json from this run of the whole fault proof")

// checkProof: every failure was reported under a rule its check declares;
// the ledger claims no rule this run did not show failing (with
// -update-proof it is rewritten); every checked spec rule is proven or
// says why it cannot be.
func checkProof(t *testing.T, proofs *faultproof.Proofs) {
	t.Helper()
	cat := catalogue.MustLoad()
	if path := os.Getenv("TOUCHSTONE_PROOF_DUMP"); path != "" {
		raw, _ := json.MarshalIndent(proofs, "", "  ")
		_ = os.WriteFile(path, raw, 0o644)
	}
	var undeclared []string
	for u, src := range proofs.Undeclared {
		undeclared = append(undeclared, u+" (under "+src+")")
	}
	sort.Strings(undeclared)
	for _, u := range undeclared {
		t.Errorf("check failed under a rule it does not declare: %s", u)
	}
	old := catalogue.MustLoadProof()
	now := proofs.Ledger(cat, old)
	if *updateProof {
		if err := now.Write(filepath.Join("..", "..", "..", "internal", "catalogue", "proof.json")); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote internal/catalogue/proof.json: %d rules proven", len(now.Proven))
		return
	}
	var gone, fresh []string
	for id := range old.Proven {
		if !now.IsProven(id) {
			gone = append(gone, id)
		}
	}
	for id := range now.Proven {
		if !old.IsProven(id) {
			fresh = append(fresh, id)
		}
	}
	sort.Strings(gone)
	sort.Strings(fresh)
	for _, id := range gone {
		t.Errorf("internal/catalogue/proof.json claims %s proven (by %v), but no fault or variant written for it broke it precisely in this run", id, old.Proven[id])
	}
	for id, rules := range old.Asserted {
		for _, r := range rules {
			if !slices.Contains(now.Asserted[id], r) {
				t.Errorf("internal/catalogue/proof.json says %s was seen failing under %s, but not in this run", id, r)
			}
		}
	}
	if len(fresh) > 0 {
		t.Logf("proven now, not yet in internal/catalogue/proof.json (go test ./cmd/touchstone/faultproof -run TestEveryFaultIsCaught -update-proof): %v", fresh)
	}
	_, unproven := cat.SpecStatus(old)
	for _, r := range unproven {
		if old.Unproven[r.ID] == "" {
			t.Errorf("checked spec rule %s is neither proven nor says why no fault can show it (internal/catalogue/proof.json \"unproven\")", r.ID)
		}
	}
}

// sampledUnderRace tells whether the i-th fault is proved in this binary:
// all of them, except under the race detector (where each request costs
// several times more) unless TOUCHSTONE_FAULTPROOF_ALL is set: then every
// 4th, a fixed sample, so the race detector still watches every proof path.
func sampledUnderRace(i int) bool {
	return !raceDetector || os.Getenv("TOUCHSTONE_FAULTPROOF_ALL") != "" || i%4 == 0
}

// TestProveEachKeepsOrder: outcomes come back in the order the faults were
// given, whatever the number of workers.
func TestProveEachKeepsOrder(t *testing.T) {
	var fs []sandbox.Fault
	for _, f := range sandbox.Faults() {
		fs = append(fs, sandbox.Fault{Name: f.Name, Description: f.Description}) // no rule: nothing runs
	}
	for _, workers := range []int{0, 1, 3, 1000} {
		got := faultproof.ProveEach(context.Background(), fs, workers)
		if len(got) != len(fs) {
			t.Fatalf("workers %d: %d outcomes for %d faults", workers, len(got), len(fs))
		}
		for i := range fs {
			if got[i].Fault != fs[i].Name || got[i].Note != "fault names no rule" {
				t.Fatalf("workers %d: outcome %d is %+v, want fault %s", workers, i, got[i], fs[i].Name)
			}
		}
	}
}
