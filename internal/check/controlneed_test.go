package check

import (
	"strings"
	"testing"

	"github.com/touchstone-harness/touchstone/internal/control"
)

// TestEveryContractCallHasAPurpose: each call of the control contract
// that sets a world fact is named by a purpose, so that a check skipped on
// a target without it says what it needed it for (not "sandbox control
// calls (...)").
func TestEveryContractCallHasAPurpose(t *testing.T) {
	for _, o := range control.Operations() {
		if w := control.Purpose(o.Method, o.Path); strings.HasPrefix(w, "sandbox control calls") {
			t.Errorf("control call %s (%s %s) has no purpose in control.purposes", o.ID, o.Method, o.Path)
		}
	}
}

// TestNeededCallsLeaveTheClockToAVirtualClock: on a real clock the clock
// calls are not needed of the control service.
func TestNeededCallsLeaveTheClockToAVirtualClock(t *testing.T) {
	SetControlCalls(map[string][]string{"x/y": {"advanceClock", "readClock", "verificationDecision"}})
	defer SetControlCalls(nil)
	c := &Check{ID: "x/y"}
	if got := strings.Join(c.NeededCalls(false), ","); got != "verificationDecision" {
		t.Errorf("real clock: %s", got)
	}
	if got := strings.Join(c.NeededCalls(true), ","); got != "advanceClock,readClock,verificationDecision" {
		t.Errorf("virtual clock: %s", got)
	}
}
