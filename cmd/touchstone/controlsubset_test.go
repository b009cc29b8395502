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
// skipped naming them, before it sends anything (labelled needs-control),
// or runs its form for a target without them (a check that runs on any
// target), or is skipped at the call; one that makes the refused call
// gives no verdict naming it, never a failure under its rule.
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
	// A check that runs on any target runs its form for a target without
	// the calls it lacks (T.ServesControl): its other rules are judged.
	res := check.Run(ctx, target, check.Get("payoutbatches/all-skipped-rejected"))
	if res.Status != check.Passed || strings.Join(res.NotJudged, ",") != "PB-021" {
		t.Errorf("payoutbatches/all-skipped-rejected: %s, not judged %v", res.Status, res.NotJudged)
	}
	// A check that makes a call not served anyway (through T.Control, or
	// on the target's own client reported through NoVerdict) is skipped
	// naming it, never failed under its rule; the call is not sent.
	for name, call := range map[string]func(t *check.T) error{
		"through T.Control": func(t *check.T) error {
			return t.Control().Call(t.Context(), "POST", "/webhooks/emit", map[string]any{}, nil)
		},
		"on the target's client": func(t *check.T) error {
			err := t.Target().Control.Call(t.Context(), "POST", "/webhooks/emit", map[string]any{}, nil)
			if err != nil {
				t.NoVerdict(err)
			}
			return nil
		},
	} {
		res := check.Run(ctx, target, &check.Check{ID: "control/not-served", Title: name, Rules: []string{"EVT-001"}, Run: func(t *check.T) {
			if err := call(t); err != nil {
				t.Fatalf("EVT-001", "the event was not emitted: %v", err)
			}
		}})
		if res.Status != check.Skipped || res.SkipReason != check.NotServedPrefix+"webhookEmit" || strings.Join(res.ControlMissing, ",") != "webhookEmit" || len(res.Failures) > 0 {
			t.Errorf("a call not served, %s: %s %q %v", name, res.Status, res.SkipReason, res.Failures)
		}
	}
	// A needs-control check skipped for calls not served sends nothing.
	res = check.Run(ctx, target, check.Get("payoutbatches/lifecycle-completed"))
	if res.Status != check.Skipped || !strings.HasPrefix(res.SkipReason, check.NotServedPrefix+"payoutBatchApprove, payoutBatchExecute, payoutBatchSubmit") {
		t.Errorf("payoutbatches/lifecycle-completed: %s %q", res.Status, res.SkipReason)
	}
}
