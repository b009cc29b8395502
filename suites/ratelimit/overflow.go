package ratelimit

import (
	"net/http"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
)

// overflowProbe is how many more requests a check sends, on a server that
// admitted a request it should have refused, to tell which sentence the
// admission broke: the budget's size (RATE-004) or the sharing or counting
// rule the check is about.
const overflowProbe = 10

// limitedOr asserts r is the documented 429 under rule, the sentence the
// check is about (a template's paths share a counter, refused requests
// count, a route is limited at all). When r was admitted instead, it first
// sends up to overflowProbe more of probe with c in the same minute: a 429
// among them shows that the counter did count what rule says it counts,
// and that the budget itself let through more than 600 (RATE-004, judged
// by ratelimit/route-budget-600 too); none shows that the counter did
// not count it (rule). It returns the 429's Retry-After.
func limitedOr(t *check.T, clk *check.Clock, rule string, r *client.Response, what string, c *client.Client, probe client.Request) int {
	if r.Status/100 == 2 {
		for i := 1; i <= overflowProbe; i++ {
			p := t.Do(c, probe)
			if !clk.Same(r, p) {
				break
			}
			if p.Status == http.StatusTooManyRequests {
				t.FatalAt(r, "RATE-004", "%s was admitted (%d), and %d more %s %s after it too before a 429: the counter counts these requests, but its budget is more than 600", what, r.Status, i-1, probe.Method, probe.Path)
			}
		}
	}
	return limited(t, rule, r, what)
}
