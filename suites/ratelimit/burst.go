package ratelimit

import (
	"fmt"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// Documented limits (document 2, Limits).
const (
	routeBudget  = 600
	tenantBudget = 6000
)

// Rules of document 2, Limits / Authentication / Errors, as catalogued.

// workers bounds the concurrency of a burst against a loopback target:
// enough to send 600 requests in about a second, few enough for two shared
// cores; a distant target gets more in flight (Plan.InFlight).
const workers = 16

// shot is one request of a burst.
type shot struct {
	c *client.Client
	r client.Request
}

// fire sends every shot with a bounded pool of workers (released together
// through t.Go) and returns the responses in shot order.
func fire(t *check.T, shots []shot) []*client.Response {
	out := make([]*client.Response, len(shots))
	w := min(t.Target().Plan().InFlight(workers), len(shots))
	if w == 0 {
		return out
	}
	t.Go(w, func(g int) {
		for i := g; i < len(shots); i += w {
			out[i] = t.Do(shots[i].c, shots[i].r)
		}
	})
	return out
}

// repeat is n copies of one request.
func repeat(c *client.Client, r client.Request, n int) []shot {
	out := make([]shot, n)
	for i := range out {
		out[i] = shot{c, r}
	}
	return out
}

func get(path string) client.Request { return client.Request{Method: http.MethodGet, Path: path} }

// allPass asserts every response is 2xx under rule.
func allPass(t *check.T, rule string, rs []*client.Response, what string) {
	bad, first := 0, -1
	for i, r := range rs {
		if r.Status/100 != 2 {
			bad++
			if first < 0 {
				first = i
			}
		}
	}
	if bad > 0 {
		r := rs[first]
		t.Fatalf(rule, "%s: %d of %d requests were refused within the budget; the first (#%d) got %d: %s", what, bad, len(rs), first+1, r.Status, shape.Clip(r.Body))
	}
}

// exhaust sends exactly the route budget of one request in one clock
// minute, requires every one to pass, and returns the responses.
func exhaust(t *check.T, clk *check.Clock, c *client.Client, r client.Request, rule string) []*client.Response {
	rs := inOneMinute(t, clk, repeat(c, r, routeBudget))
	allPass(t, rule, rs, r.Method+" "+r.Path+" x"+strconv.Itoa(routeBudget))
	return rs
}

// overBudget exhausts r's route budget in one clock minute, sends the
// 601st in the same minute and asserts it is the documented 429 (under
// RATE-004); it returns the 600, the 429 and its Retry-After.
func overBudget(t *check.T, clk *check.Clock, c *client.Client, r client.Request) ([]*client.Response, *client.Response, int) {
	rs := exhaust(t, clk, c, r, "RATE-004")
	lim := t.Do(c, r)
	sameMinute(t, clk, r.Method+" "+r.Path+" x600 and the 601st", rs[0], lim)
	return rs, lim, limited(t, "RATE-004", lim, "601st "+r.Method+" "+r.Path)
}

// burstNeed is how long a burst of a route budget may take; on a real clock
// a burst starts only with this much (and 2 s) left in the clock minute.
const burstNeed = 10 * time.Second

// inOneMinute fires shots within one clock minute: on a real clock it
// starts with burstNeed left in the minute and, should the burst still
// straddle a boundary, sends it again once from :01 of the next minute
// (the probe's minutes in the timetable keep its budgets untouched
// meanwhile); a virtual
// clock stands still.
func inOneMinute(t *check.T, clk *check.Clock, shots []shot) []*client.Response {
	for attempt := 0; ; attempt++ {
		clk.Clear(burstNeed)
		rs := fire(t, shots)
		if clk.Same(rs...) {
			return rs
		}
		if attempt == 1 {
			t.NoVerdict(fmt.Errorf("a burst of %d requests straddled a clock-minute boundary twice", len(shots)))
		}
		t.Logf("the burst straddled a clock-minute boundary; sent again in the next minute")
		clk.To(1, true)
	}
}

// sameMinute ends the check without a verdict when what it relates
// happened across a boundary (a real clock that turned mid-sequence).
func sameMinute(t *check.T, clk *check.Clock, what string, rs ...*client.Response) {
	if !clk.Same(rs...) {
		t.NoVerdict(fmt.Errorf("%s straddled a clock-minute boundary", what))
	}
}

// retryAfterIs asserts Retry-After ra of a 429 answered at at points at
// the end of its clock minute (RATE-016), to the clock's tolerance.
func retryAfterIs(t *check.T, clk *check.Clock, ra int, at time.Time, what string) {
	want, tol := check.SecondsLeft(at), clk.Tolerance
	if ra < want-tol || ra > want+tol {
		t.Fatalf("RATE-016", "%s at %s: Retry-After is %d, want %d (seconds left in the clock minute, rounded up; ±%d)", what, at.Format("15:04:05.000"), ra, want, tol)
	}
}

var wholeSeconds = regexp.MustCompile(`^[0-9]+$`)

// limited asserts the documented 429 (problem+json, code rate_limited,
// one Retry-After of whole seconds) with the status and code under
// statusRule, and returns Retry-After.
func limited(t *check.T, statusRule string, r *client.Response, what string) int {
	// A 429's media type is ERR-009's own sentence where the check judges it.
	media := "RATE-003"
	if t.Declares("ERR-009") {
		media = "ERR-009"
	}
	shape.ProblemAnswer(t, r, shape.Want{Rule: statusRule, Status: http.StatusTooManyRequests, Code: "rate_limited", ShapeRule: "RATE-003", MediaRule: media, What: what})
	vals := r.Header.Values("Retry-After")
	if len(vals) != 1 {
		t.Fatalf("RATE-001", "%s: 429 carries %d Retry-After headers %q, want one", what, len(vals), vals)
	}
	if !wholeSeconds.MatchString(vals[0]) {
		t.Fatalf("RATE-017", "%s: Retry-After %q is not whole seconds", what, vals[0])
	}
	n, err := strconv.Atoi(vals[0])
	if err != nil {
		t.Fatalf("RATE-017", "%s: Retry-After %q: %v", what, vals[0], err)
	}
	return n
}

// noRateLimitHeaders asserts no response carries an X-RateLimit-* header.
func noRateLimitHeaders(t *check.T, rs []*client.Response) {
	for i, r := range rs {
		for _, name := range slices.Sorted(maps.Keys(r.Header)) {
			if strings.HasPrefix(strings.ToLower(name), "x-ratelimit-") {
				t.Fatalf("RATE-002", "response #%d (%d) carries %s: %q; no X-RateLimit-* headers exist", i+1, r.Status, name, r.Header.Values(name))
			}
		}
	}
}
