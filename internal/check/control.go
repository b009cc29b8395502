package check

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/touchstone-harness/touchstone/internal/control"
)

// The control calls each check needs, as data: the operation ids of the
// control contract (internal/control/contract.json) each check was
// measured making against the embedded sandbox on a virtual clock. The
// file that holds them lives beside the checks (it names them; internal/
// names no check of an area) and is handed over by SetControlCalls.
var (
	callsMu      sync.RWMutex
	controlCalls map[string][]string
)

// SetControlCalls records the measured control calls of every check (check
// id -> operation ids); the package that registers every check calls it.
func SetControlCalls(m map[string][]string) {
	callsMu.Lock()
	defer callsMu.Unlock()
	controlCalls = m
}

// ControlCalls are the control calls (operation ids) the check was
// measured making, sorted; nil when it makes none or was not measured.
func (c *Check) ControlCalls() []string {
	callsMu.RLock()
	defer callsMu.RUnlock()
	return controlCalls[c.ID]
}

// NeededCalls are the control calls the check needs on a target whose
// clock is virtual or not: on a real clock the clock calls are left out
// (a check that needs the clock moved skips itself there, one that can
// wait in real time waits, as without a control API).
func (c *Check) NeededCalls(virtual bool) []string {
	var out []string
	for _, op := range c.ControlCalls() {
		if virtual || !control.IsClockOp(op) {
			out = append(out, op)
		}
	}
	return out
}

// ControlReason is why a check labelled NeedsControl skips on a target
// without a control API.
func (c *Check) ControlReason() string {
	if why := c.ControlNeed(); why != "" {
		return "needs the sandbox control API: " + why + "; target has no control_url" + unlockNote(c.NeededCalls(false))
	}
	return "needs the sandbox control API; target has no control_url" + unlockNote(c.NeededCalls(false))
}

func unlockNote(ops []string) string {
	if len(ops) == 0 {
		return ""
	}
	return " (control calls: " + strings.Join(ops, ", ") + ")"
}

// ControlNeed says what only the control API does for the check: its
// ControlWhy, else what the control calls it was measured making do
// ("for the identity provider's decision, moving the clock"), else "".
func (c *Check) ControlNeed() string {
	if c.ControlWhy != "" {
		return c.ControlWhy
	}
	var whats []string
	for _, op := range c.ControlCalls() {
		o, ok := control.OperationByID(op)
		if !ok {
			continue
		}
		if w := control.Purpose(o.Method, o.Path); w != "" && !slices.Contains(whats, w) {
			whats = append(whats, w)
		}
	}
	if len(whats) == 0 {
		return ""
	}
	return "for " + strings.Join(whats, ", ")
}

// NotServedPrefix starts the skip reason of a check whose control calls
// the target does not all serve (the calls follow, comma-separated).
const NotServedPrefix = "needs control calls the target does not serve: "

// missingCalls are the calls a check needs that the target's control
// service does not serve (none when it serves them all, or has no
// control URL: that is ControlReason's case).
func missingCalls(target *Target, c *Check) []string {
	if target.Control == nil {
		return nil
	}
	return target.Control.Missing(c.NeededCalls(target.VirtualClock()))
}

// controlPreflight skips a check labelled NeedsControl whose measured
// calls the target does not all serve, naming the calls; a check that
// runs on any target finds out as it calls (T.controlVerdict).
func controlPreflight(target *Target, c *Check) (reason string, missing []string) {
	if !c.HasLabel(NeedsControl) {
		return "", nil
	}
	if target.Control == nil {
		return c.ControlReason(), c.NeededCalls(false)
	}
	if m := missingCalls(target, c); len(m) > 0 {
		return NotServedPrefix + strings.Join(m, ", ") + controlNeedNote(c), m
	}
	return "", nil
}

func controlNeedNote(c *Check) string {
	if w := c.ControlNeed(); w != "" {
		return " (" + w + ")"
	}
	return ""
}

// noteRefused hears a control call the target does not serve (any other
// error is ignored).
func (t *T) noteRefused(err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var ns *control.NotServedError
	var re *control.RefusedError
	switch {
	case errors.As(err, &ns):
		if !slices.Contains(t.notServed, ns.Op) {
			t.notServed = append(t.notServed, ns.Op)
		}
	case errors.As(err, &re):
		if !slices.Contains(t.refused, re.Error()) {
			t.refused = append(t.refused, re.Error())
		}
	}
}

// controlVerdict turns a check that made a control call the target does
// not serve into what it is: a skip naming the calls its capabilities do
// not list, or no verdict (the target's control failure) for a call it
// lists but refused. Either way no rule of the check is judged, failed or
// passed: the world the check meant to set was not set (a check that
// expects the call refused, an operator's submit of a Rejected batch,
// would otherwise pass on any refusal).
func (t *T) controlVerdict(status Status, errText string) (Status, string, []string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if status == Skipped {
		return status, errText, nil
	}
	switch {
	case len(t.refused) > 0:
		t.failures = nil
		return Error, "the target's control service refused a call it lists as served (its failure, not the API's): " + strings.Join(t.refused, "; "), nil
	case len(t.notServed) > 0:
		t.failures = nil
		// The calls it met, and the others it was measured making that
		// the target does not serve: all that serving would unlock it.
		ops := slices.Clone(t.notServed)
		for _, op := range missingCalls(t.target, t.check) {
			if !slices.Contains(ops, op) {
				ops = append(ops, op)
			}
		}
		sort.Strings(ops)
		t.skip = NotServedPrefix + strings.Join(ops, ", ") + controlNeedNote(t.check)
		return Skipped, "", ops
	}
	return status, errText, nil
}

// initControl reads the control service's clock and learns which calls
// it serves. A service that does not serve the clock read runs on a real
// clock as far as the checks know.
func (t *Target) initControl(ctx context.Context) error {
	clk, err := t.Control.Clock(ctx)
	var re *control.RefusedError
	switch {
	case errors.As(err, &re):
		t.virtual = false
	case err != nil:
		return fmt.Errorf("control API at %s: %v", t.Control.URL, err)
	default:
		t.virtual = clk.Virtual
	}
	if err := t.Control.Learn(ctx); err != nil {
		return fmt.Errorf("control API at %s: %v", t.Control.URL, err)
	}
	return nil
}

// preflightMissing are the calls a preflight skip for want of them names.
func preflightMissing(target *Target, c *Check, reason string) []string {
	if r, missing := controlPreflight(target, c); r == reason {
		return missing
	}
	return nil
}

// ServesControl tells whether the target has a control service that
// serves every control call the check was measured making (the clock's
// left to its clock): a check that runs on any target chooses its form
// with it, so that a control URL serving a subset judges no fewer rules
// than none.
func (t *T) ServesControl() bool {
	return t.target.Control != nil && len(missingCalls(t.target, t.check)) == 0
}
