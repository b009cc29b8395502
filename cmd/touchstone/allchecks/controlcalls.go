package allchecks

import (
	_ "embed"
	"encoding/json"
	"fmt"

	"github.com/touchstone-harness/touchstone/internal/check"
)

// controlCallsJSON holds, for each check that makes control calls, the
// operation ids of the control contract (internal/control/contract.json)
// it was measured making against the embedded sandbox on a virtual clock.
// Generated: go test ./cmd/touchstone -run TestControlCalls -update-control-calls.
//
//go:embed control_calls.json
var controlCallsJSON []byte

func init() {
	var m map[string][]string
	if err := json.Unmarshal(controlCallsJSON, &m); err != nil {
		panic(fmt.Sprintf("allchecks: control_calls.json: %v", err))
	}
	check.SetControlCalls(m)
}

// ControlCallsFile is the generated file's path from the repository root.
const ControlCallsFile = "cmd/touchstone/allchecks/control_calls.json"
