package property

import "pgregory.net/rapid"

// The properties whose models need the sandbox control API for part of
// their steps (a staff or identity-provider decision, an operator's move, a
// limit set outside the API, a virtual clock moved across days) run on a
// target without it too: they draw only the steps the API itself causes,
// and the check's ControlRules (the rules only the other steps show) are
// not judged there (check.T.WithoutControl).

// apiOnly removes the named actions (those only the control API can cause)
// from a state machine's actions.
func apiOnly(actions map[string]func(*rapid.T), names ...string) map[string]func(*rapid.T) {
	for _, n := range names {
		if _, ok := actions[n]; !ok {
			panic("property: no action " + n) // a renamed action must not slip back in
		}
		delete(actions, n)
	}
	return actions
}
