package reports

import (
	"strings"
	"testing"

	"github.com/touchstone-harness/touchstone/internal/check"
)

// TestUnlockNamesTheCallsPerSkippedRule: a rule skipped for want of
// control calls names the fewest calls one of its checks lacked, and the
// certificate's statement names them beside the rule.
func TestUnlockNamesTheCallsPerSkippedRule(t *testing.T) {
	got := unlockCalls([]*check.Result{
		{ID: "a/x", Status: check.Skipped, ControlMissing: []string{"payoutBatchSubmit", "payoutBatchApprove"}},
		{ID: "a/y", Status: check.Skipped, ControlMissing: []string{"webhookEmit"}},
		{ID: "a/z", Status: check.Passed},
	}, nil)
	if strings.Join(got, ",") != "webhookEmit" {
		t.Errorf("unlock: %v", got)
	}
	v := Verdict{NotVerified: []NotVerifiedRule{
		{ID: "PB-014", Why: check.NotServedPrefix + "payoutBatchApprove, payoutBatchSubmit", Unlock: []string{"payoutBatchApprove", "payoutBatchSubmit"}},
		{ID: "EVT-001", Why: "needs the sandbox control API: for emitting events; target has no control_url", Unlock: []string{"webhookEmit"}},
	}}
	s := v.NotVerifiedStatement()
	for _, want := range []string{"PB-014 [serve payoutBatchApprove, payoutBatchSubmit] (they need control calls this target does not serve)", "EVT-001 [serve webhookEmit] (they need the sandbox control API"} {
		if !strings.Contains(s, want) {
			t.Errorf("statement lacks %q:\n%s", want, s)
		}
	}
}
