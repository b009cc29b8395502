package reports

import (
	"slices"
	"strings"

	"github.com/touchstone-harness/touchstone/internal/check"
)

// unlockCalls are the control calls (operation ids of the control
// contract) that would unlock a skipped rule on this target: of its
// checks skipped for want of calls (Result.ControlMissing), or that judge
// it only with the control API (their measured calls, the clock's left to
// a virtual clock), the calls of the one needing the fewest.
func unlockCalls(results, notJudged []*check.Result) []string {
	var best []string
	consider := func(ops []string) {
		if len(ops) == 0 {
			return
		}
		ops = slices.Sorted(slices.Values(ops))
		if best == nil || len(ops) < len(best) || (len(ops) == len(best) && strings.Join(ops, ",") < strings.Join(best, ",")) {
			best = ops
		}
	}
	for _, res := range results {
		if res.Status == check.Skipped {
			consider(res.ControlMissing)
		}
	}
	for _, res := range notJudged {
		if c := check.Get(res.ID); c != nil && res.NotJudgedWhy != "" {
			consider(c.NeededCalls(false))
		}
	}
	return best
}
