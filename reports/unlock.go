package reports

import (
	"sort"

	"github.com/touchstone-harness/touchstone/internal/check"
)

// unlockCalls are the control calls (operation ids of the control
// contract) that would unlock a skipped rule on this target: those whose
// absence skipped its checks (Result.ControlMissing), and, for a rule its
// checks judged only with the control API, the calls those checks make
// there (their measured calls, the clock's left to a virtual clock).
func unlockCalls(results, notJudged []*check.Result) []string {
	seen := map[string]bool{}
	var out []string
	add := func(ops []string) {
		for _, op := range ops {
			if !seen[op] {
				seen[op] = true
				out = append(out, op)
			}
		}
	}
	for _, res := range results {
		if res.Status == check.Skipped {
			add(res.ControlMissing)
		}
	}
	for _, res := range notJudged {
		if c := check.Get(res.ID); c != nil && res.NotJudgedWhy != "" {
			add(c.NeededCalls(false))
		}
	}
	sort.Strings(out)
	return out
}
