package check

import (
	"strings"
	"testing"

	"github.com/touchstone-harness/touchstone/internal/control"
)

// TestEveryMeasuredControlCallHasAPurpose: each control call a check was
// measured making (spend.json) is named by a purpose, so that a check
// skipped on a target without the control API says what it needed it for
// (not "sandbox control calls (...)").
func TestEveryMeasuredControlCallHasAPurpose(t *testing.T) {
	for id, s := range Spends() {
		for _, call := range s.Control {
			method, template, _ := strings.Cut(call, " ")
			if w := control.Purpose(method, template); strings.HasPrefix(w, "sandbox control calls") {
				t.Errorf("%s: control call %s has no purpose in control.purposes", id, call)
			}
		}
	}
}
