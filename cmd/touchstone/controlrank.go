package main

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/touchstone-harness/touchstone/internal/catalogue"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/control"
)

// controlUnlock is a check that judges some rules only with the control
// API: the calls it needs of a control service on a real clock and the
// rules serving them would have judged (those no check judges without it).
type controlUnlock struct {
	check *check.Check
	calls []string // check.NeededCalls(false)
	rules []string
	clock bool // it moved the clock on the sandbox: on a real clock it may still skip or wait
}

// controlUnlocks lists, for the rules no check judges on a target without
// the control API (in area, or all), the checks that would judge them
// with it.
func controlUnlocks(cat *catalogue.Catalogue, area string) (out []controlUnlock, rules []string) {
	needed := map[string]bool{}
	for _, r := range cat.Rules {
		if (area != "" && r.Area != area) || len(r.Checks) == 0 {
			continue
		}
		judged, by := false, 0
		for _, id := range r.Checks {
			c := check.Get(id)
			switch {
			case c == nil:
			case c.HasLabel(check.NeedsControl), slices.Contains(c.ControlRules, r.ID):
				by++
			default:
				judged = true
			}
		}
		if !judged && by > 0 {
			needed[r.ID] = true
			rules = append(rules, r.ID)
		}
	}
	for _, c := range check.All() {
		own := c.ControlRules
		if c.HasLabel(check.NeedsControl) {
			own = c.Rules
		}
		u := controlUnlock{check: c, calls: c.NeededCalls(false)}
		for _, r := range own {
			if needed[r] {
				u.rules = append(u.rules, r)
			}
		}
		for _, op := range c.ControlCalls() {
			u.clock = u.clock || slices.Contains(control.ClockOps, op)
		}
		if len(u.rules) > 0 {
			out = append(out, u)
		}
	}
	return out, rules
}

// printControlRanking ranks the control calls by the rules they unlock:
// a greedy order (each step serves the calls that complete checks judging
// the most new rules per call added), then each call with the checks that
// need it and the rules they judge only with it.
func printControlRanking(w io.Writer, cat *catalogue.Catalogue, area string) {
	us, rules := controlUnlocks(cat, area)
	fmt.Fprintf(w, "\ncontrol calls ranked by the rules they unlock (%d rules need the control API; serve the calls in this order, each step adding the calls that complete the checks judging the most new rules per call):\n", len(rules))
	served, unlocked, done := map[string]bool{}, map[string]bool{}, map[*check.Check]bool{}
	gainOf := func(extra map[string]bool) (n int) {
		seen := map[string]bool{}
		for _, u := range us {
			if done[u.check] || !allIn(u.calls, served, extra) {
				continue
			}
			for _, r := range u.rules {
				if !unlocked[r] && !seen[r] {
					seen[r] = true
					n++
				}
			}
		}
		return n
	}
	// Checks needing no call of a control service (the clock only):
	// a virtual clock alone unlocks them.
	if n := gainOf(nil); n > 0 {
		var ids []string
		for _, u := range us {
			if len(u.calls) == 0 {
				ids = append(ids, u.check.ID)
				done[u.check] = true
				for _, r := range u.rules {
					unlocked[r] = true
				}
			}
		}
		fmt.Fprintf(w, "  0. (no call but a virtual clock: advanceClock, nextMinute)  %d rules  checks: %s\n", n, strings.Join(clip(ids, 8), ", "))
	}
	step := 0
	for {
		best, bestGain, bestCost := map[string]bool(nil), 0, 0
		for _, u := range us {
			if done[u.check] {
				continue
			}
			extra := map[string]bool{}
			for _, op := range u.calls {
				if !served[op] {
					extra[op] = true
				}
			}
			g := gainOf(extra)
			if g == 0 {
				continue
			}
			if best == nil || g*bestCost > bestGain*len(extra) || (g*bestCost == bestGain*len(extra) && g > bestGain) {
				best, bestGain, bestCost = extra, g, len(extra)
			}
		}
		if best == nil {
			break
		}
		for op := range best {
			served[op] = true
		}
		var ids []string
		for _, u := range us {
			if done[u.check] || !allIn(u.calls, served, nil) {
				continue
			}
			done[u.check] = true
			ids = append(ids, u.check.ID)
			for _, r := range u.rules {
				unlocked[r] = true
			}
		}
		step++
		calls := keys(best)
		fmt.Fprintf(w, "  %d. +%s  %d rules (%d of %d)  checks: %s\n", step, strings.Join(calls, ", +"), bestGain, len(unlocked), len(rules), strings.Join(clip(ids, 8), ", "))
	}
	if left := len(rules) - len(unlocked); left > 0 {
		fmt.Fprintf(w, "  left: %d rules whose checks have no measured calls (slow checks, or checks that make none on the sandbox)\n", left)
	}

	byCall := map[string][]controlUnlock{}
	for _, u := range us {
		for _, op := range u.calls {
			byCall[op] = append(byCall[op], u)
		}
	}
	type row struct {
		op     string
		checks []string
		rules  []string
	}
	var rows []row
	for op, list := range byCall {
		r := row{op: op}
		for _, u := range list {
			id := u.check.ID
			if u.clock {
				id += " (+clock)"
			}
			r.checks = append(r.checks, id)
			for _, x := range u.rules {
				if !slices.Contains(r.rules, x) {
					r.rules = append(r.rules, x)
				}
			}
		}
		sort.Strings(r.rules)
		rows = append(rows, r)
	}
	sort.Slice(rows, func(i, j int) bool {
		if len(rows[i].rules) != len(rows[j].rules) {
			return len(rows[i].rules) > len(rows[j].rules)
		}
		return rows[i].op < rows[j].op
	})
	fmt.Fprintln(w, "\neach control call: the checks that need it ((+clock): it moved the sandbox's clock too) and the rules they judge only with the control API:")
	for _, r := range rows {
		o, _ := control.OperationByID(r.op)
		fmt.Fprintf(w, "  %-30s %s %s (%s): %d checks, %d rules\n      checks: %s\n      rules:  %s\n", r.op, o.Method, o.Path, o.Group, len(r.checks), len(r.rules), strings.Join(r.checks, ", "), strings.Join(r.rules, ", "))
	}
}

func allIn(ops []string, a, b map[string]bool) bool {
	for _, op := range ops {
		if !a[op] && !b[op] {
			return false
		}
	}
	return true
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
