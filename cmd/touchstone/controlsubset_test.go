package main

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/touchstone-harness/touchstone/cmd/controladapter/adapter"
	"github.com/touchstone-harness/touchstone/fixtures/sandbox"
	"github.com/touchstone-harness/touchstone/internal/check"
)

// TestControlSubset: the embedded sandbox (virtual clock) behind the
// worked-example adapter serving a subset of the control contract (the
// clock, the identity provider's and beneficiary decisions, fiat outcomes
// and funds), one of whose listed calls the build refuses. A check whose
// calls are all served runs and passes; one needing calls not served is
// skipped naming them, before it sends anything (labelled needs-control)
// or at the call (a check that runs on any target); one that makes the
// refused call gives no verdict naming it, never a failure under its rule.
func TestControlSubset(t *testing.T) {
	ctx := context.Background()
	run, err := sandbox.StartVirtual(1, "")
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	ops, err := adapter.Select([]string{"clock", "identity-provider", "beneficiaries", "fiat-outcomes", "funds"})
	if err != nil {
		t.Fatal(err)
	}
	a, err := adapter.Rehearsal(run.Profile.ControlURL, ops)
	if err != nil {
		t.Fatal(err)
	}
	a.Refuse["withdrawalOutcome"] = true
	front := httptest.NewServer(a)
	defer front.Close()
	p := *run.Profile
	p.ControlURL = front.URL
	target, err := check.NewTarget(ctx, &p, true)
	if err != nil {
		t.Fatal(err)
	}
	if !target.VirtualClock() || target.Control.ServedFrom != "capabilities" || target.Control.Serves("payoutBatchSubmit") {
		t.Fatalf("the target's control service: virtual %v, learnt from %q, serves payoutBatchSubmit %v", target.VirtualClock(), target.Control.ServedFrom, target.Control.Serves("payoutBatchSubmit"))
	}
	for _, c := range []struct {
		id      string
		status  check.Status
		says    string   // in the skip reason or the error
		missing []string // Result.ControlMissing
	}{
		{"beneficiaries/staff-decision-and-registration", check.Passed, "", nil},
		{"customers/lifecycle-refreshing-reads-activate", check.Passed, "", nil},
		{"withdrawals/parent-controls", check.Skipped, check.NotServedPrefix + "customerStatus, parentCompliance", []string{"customerStatus", "parentCompliance"}},
		{"payoutbatches/all-skipped-rejected", check.Skipped, check.NotServedPrefix + "payoutBatchSubmit", []string{"payoutBatchSubmit"}},
		{"withdrawals/failed-and-review-outcomes", check.Error, "refused a call it lists as served (its failure, not the API's): control call withdrawalOutcome", nil},
	} {
		chk := check.Get(c.id)
		if chk == nil {
			t.Errorf("%s: no such check", c.id)
			continue
		}
		res := check.Run(ctx, target, chk)
		text := res.SkipReason + res.Error
		if res.Status != c.status || !strings.Contains(text, c.says) || strings.Join(res.ControlMissing, ",") != strings.Join(c.missing, ",") || len(res.Failures) > 0 {
			t.Errorf("%s: %s %q missing %v failures %d; want %s %q missing %v", c.id, res.Status, text, res.ControlMissing, len(res.Failures), c.status, c.says, c.missing)
		}
	}
	// A needs-control check skipped for calls not served sends nothing.
	res := check.Run(ctx, target, check.Get("payoutbatches/lifecycle-completed"))
	if res.Status != check.Skipped || !strings.HasPrefix(res.SkipReason, check.NotServedPrefix+"payoutBatchApprove, payoutBatchExecute, payoutBatchSubmit") {
		t.Errorf("payoutbatches/lifecycle-completed: %s %q", res.Status, res.SkipReason)
	}
}
