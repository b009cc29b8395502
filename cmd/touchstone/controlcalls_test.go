package main

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/touchstone-harness/touchstone/cmd/touchstone/allchecks"
	"github.com/touchstone-harness/touchstone/cmd/touchstone/launch"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/controlcontract"
)

var updateControlCalls = flag.Bool("update-control-calls", false, "rewrite "+allchecks.ControlCallsFile+" from this measurement")

// TestControlCalls runs every check of the default selection once against
// the embedded sandbox on a virtual clock, one at a time, records the
// control calls each makes as operation ids of the control contract, and
// holds them against the checked-in file the skip decision reads
// (allchecks.ControlCallsFile): a check that makes a call the file does
// not list for it would run against a control service lacking that call
// and stop there. -update-control-calls rewrites the file.
func TestControlCalls(t *testing.T) {
	if raceDetector {
		t.Skip("measured without -race: every request costs several times more under the race detector")
	}
	if testing.Short() {
		t.Skip("runs every check")
	}
	ctx := context.Background()
	l, err := launch.Start(ctx, launch.Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	measured := map[string][]string{}
	var drift []string
	// Calls a check sends on the target's own client, not through
	// T.Control, are heard here (checks run one at a time); the clock's
	// are left out: the runner moves a virtual clock between checks, and
	// a real clock serves none.
	var direct []string
	l.Target.Control.OnCall = func(method, path string) {
		if !controlcontract.IsClockOp(controlcontract.OperationID(method, path)) {
			direct = append(direct, method+" "+path)
		}
	}
	for _, c := range check.All() {
		if c.HasLabel(check.Slow) {
			continue
		}
		direct = nil
		res := check.Run(ctx, l.Target, c)
		res.Control = append(res.Control, direct...)
		if res.Status != check.Passed {
			t.Errorf("%s: %s (the calls are measured on a passing run)", c.ID, res.Status)
		}
		var ops []string
		for _, call := range res.Control {
			method, path, _ := strings.Cut(call, " ")
			o, ok := controlcontract.OperationOf(method, path)
			if !ok {
				t.Errorf("%s: control call %s is not in the control contract (internal/controlcontract/contract.json)", c.ID, call)
				continue
			}
			if !slices.Contains(ops, o.ID) {
				ops = append(ops, o.ID)
			}
		}
		sort.Strings(ops)
		if len(ops) > 0 {
			measured[c.ID] = ops
		}
		if have := c.ControlCalls(); !subset(ops, have) {
			drift = append(drift, c.ID+": makes "+strings.Join(ops, ", ")+"; listed "+strings.Join(have, ", "))
		}
	}
	if *updateControlCalls {
		b, _ := json.MarshalIndent(measured, "", " ")
		if err := os.WriteFile("../../"+allchecks.ControlCallsFile, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if len(drift) > 0 {
		t.Errorf("%d checks make control calls %s does not list for them (go test ./cmd/touchstone -run TestControlCalls -update-control-calls):\n%s", len(drift), allchecks.ControlCallsFile, strings.Join(drift, "\n"))
	}
}

func subset(xs, of []string) bool {
	for _, x := range xs {
		if !slices.Contains(of, x) {
			return false
		}
	}
	return true
}

// TestControlCallsNameContractOperations: every call the file lists is an
// operation of the contract, and every check it names is registered.
func TestControlCallsNameContractOperations(t *testing.T) {
	var m map[string][]string
	b, err := os.ReadFile("../../" + allchecks.ControlCallsFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for id, ops := range m {
		if check.Get(id) == nil {
			t.Errorf("%s lists %s, no registered check", allchecks.ControlCallsFile, id)
		}
		for _, op := range ops {
			if _, ok := controlcontract.OperationByID(op); !ok {
				t.Errorf("%s: %s is no operation of the control contract", id, op)
			}
		}
	}
}
