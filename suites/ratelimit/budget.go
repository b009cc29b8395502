package ratelimit

import (
	"fmt"
	"github.com/touchstone-harness/touchstone/suites/api"
	"net/http"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
)

// Fast forms: the virtual clock stands still, and the runner has moved it
// to a fresh clock minute plus one second before each check, so every
// budget starts untouched and a burst lands in one window.

var fast = []string{check.NeedsControl}

func init() {
	check.Register(
		check.Check{
			ID:     "ratelimit/route-budget-600",
			Title:  "600 requests of one key, method and route template pass; the 601st is 429 rate_limited problem+json with Retry-After",
			Rules:  []string{"RATE-004", "RATE-003", "RATE-001", "RATE-017", "ERR-009", "ERR-026"},
			Labels: fast, Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				t.NeedVirtualClock()
				c := t.Client("tenant")
				exhaust(t, c, get(api.P+"/me"), "RATE-004")
				limited(t, "RATE-004", t.Do(c, get(api.P+"/me")), "601st GET /me")
				limited(t, "RATE-004", t.Do(c, get(api.P+"/me")), "602nd GET /me")
			},
		},
		check.Check{
			ID:     "ratelimit/retry-after-seconds-left",
			Title:  "Retry-After is the whole seconds left in the clock minute and counts down (59 at :01, 30 at :30, 1 at :59.5)",
			Rules:  []string{"RATE-016", "RATE-001", "RATE-017"},
			Labels: fast, Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				t.NeedVirtualClock()
				c := t.Client("tenant")
				exhaust(t, c, get(api.P+"/me"), "RATE-004")
				at := now(t)
				ra := limited(t, "RATE-004", t.Do(c, get(api.P+"/me")), "601st GET /me")
				if want := secondsLeft(at); ra != want {
					t.Fatalf("RATE-016", "at %s Retry-After is %d, want %d (seconds left in the clock minute)", at.Format("15:04:05.000"), ra, want)
				}
				for _, sec := range []float64{30, 59.5} {
					at = advanceTo(t, sec, false)
					ra = limited(t, "RATE-008", t.Do(c, get(api.P+"/me")), "GET /me later in the exhausted window")
					if want := secondsLeft(at); ra != want {
						t.Fatalf("RATE-016", "at %s Retry-After is %d, want %d (seconds left, rounded up)", at.Format("15:04:05.000"), ra, want)
					}
				}
			},
		},
		check.Check{
			ID:     "ratelimit/no-ratelimit-headers",
			Title:  "no X-RateLimit-* header on 2xx responses within the budget nor on the 429",
			Rules:  []string{"RATE-002"},
			Labels: fast, Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				t.NeedVirtualClock()
				c := t.Client("tenant")
				rs := exhaust(t, c, get(api.P+"/me"), "RATE-004")
				r := t.Do(c, get(api.P+"/me"))
				limited(t, "RATE-004", r, "601st GET /me")
				noRateLimitHeaders(t, append(rs, r))
			},
		},
		check.Check{
			ID:     "ratelimit/template-shares-counter",
			Title:  "GET /customers/{a} and /customers/{b} share one budget: 300 + 300, then any customer id is 429",
			Rules:  []string{"RATE-005", "RATE-004"},
			Labels: fast, Needs: []string{"keys.tenant", "customers.active_personal", "customers.active_business", "customers.draft"},
			Run: func(t *check.T) {
				t.NeedVirtualClock()
				c := t.Client("tenant")
				a := get(api.P + "/customers/" + t.Customer("active_personal"))
				b := get(api.P + "/customers/" + t.Customer("active_business"))
				shots := append(repeat(c, a, routeBudget/2), repeat(c, b, routeBudget/2)...)
				allPass(t, "RATE-004", fire(t, shots), "300 GET /customers/{a} + 300 GET /customers/{b}")
				limited(t, "RATE-005", t.Do(c, get(api.P+"/customers/"+t.Customer("draft"))), "GET /customers/{c} after 600 on the template")
				limited(t, "RATE-005", t.Do(c, a), "GET /customers/{a} after 600 on the template")
			},
		},
		check.Check{
			ID:     "ratelimit/methods-separate",
			Title:  "GET and PATCH on /customers/{id}, GET and POST on /customers keep separate budgets",
			Rules:  []string{"RATE-006", "RATE-004"},
			Labels: fast, Needs: []string{"keys.tenant", "customers.active_personal"},
			Run: func(t *check.T) {
				t.NeedVirtualClock()
				c := t.Client("tenant")
				one := api.P + "/customers/" + t.Customer("active_personal")
				exhaust(t, c, get(one), "RATE-004")
				limited(t, "RATE-004", t.Do(c, get(one)), "601st GET /customers/{id}")
				// No Idempotency-Key: a request past the rate limit (step 4)
				// stops at step 5 with 400, so nothing changes.
				r := t.Do(c, client.Request{Method: http.MethodPatch, Path: one, JSON: map[string]any{}})
				if r.Status == http.StatusTooManyRequests {
					t.Fatalf("RATE-006", "PATCH /customers/{id} is 429 after 600 GETs on the same path: the methods share a budget")
				}
				t.Logf("PATCH /customers/{id} without Idempotency-Key after 600 GETs: %d", r.Status)

				list := get(api.P + "/customers")
				list.Query = map[string][]string{"limit": {"1"}}
				exhaust(t, c, list, "RATE-004")
				limited(t, "RATE-004", t.Do(c, list), "601st GET /customers")
				r = t.Do(c, client.Request{Method: http.MethodPost, Path: api.P + "/customers", JSON: map[string]any{}})
				if r.Status == http.StatusTooManyRequests {
					t.Fatalf("RATE-006", "POST /customers is 429 after 600 GETs on the same path: the methods share a budget")
				}
				t.Logf("POST /customers without Idempotency-Key after 600 GETs: %d", r.Status)
			},
		},
		check.Check{
			ID:     "ratelimit/keys-separate",
			Title:  "another key of the same tenant has its own full budget on the same route",
			Rules:  []string{"RATE-007", "RATE-004"},
			Labels: fast, Needs: []string{"keys.tenant", "keys.pascal_scopes"},
			Run: func(t *check.T) {
				t.NeedVirtualClock()
				a, b := t.Client("tenant"), t.Client("pascal_scopes")
				exhaust(t, a, get(api.P+"/me"), "RATE-004")
				limited(t, "RATE-004", t.Do(a, get(api.P+"/me")), "601st GET /me with keys.tenant")
				rs := fire(t, repeat(b, get(api.P+"/me"), routeBudget))
				allPass(t, "RATE-007", rs, "600 GET /me with keys.pascal_scopes after keys.tenant spent its budget")
				limited(t, "RATE-004", t.Do(b, get(api.P+"/me")), "601st GET /me with keys.pascal_scopes")
			},
		},
		check.Check{
			ID:     "ratelimit/window-clock-minute",
			Title:  "the window is the clock minute: exhausted at :01, still 429 at :59, a fresh budget at the next :00",
			Rules:  []string{"RATE-008", "RATE-004"},
			Labels: fast, Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				t.NeedVirtualClock()
				c := t.Client("tenant")
				exhaust(t, c, get(api.P+"/me"), "RATE-004")
				limited(t, "RATE-004", t.Do(c, get(api.P+"/me")), "601st GET /me at :01")
				advanceTo(t, 59, false)
				limited(t, "RATE-008", t.Do(c, get(api.P+"/me")), "GET /me at :59 of the exhausted minute")
				advanceTo(t, 0, true)
				if r := t.Do(c, get(api.P+"/me")); r.Status != http.StatusOK {
					t.Fatalf("RATE-008", "GET /me at :00 of the next clock minute is %d, want 200 (a new window)", r.Status)
				}
				rs := fire(t, repeat(c, get(api.P+"/me"), routeBudget-1))
				allPass(t, "RATE-008", rs, "599 more GET /me in the new minute")
				limited(t, "RATE-004", t.Do(c, get(api.P+"/me")), "601st GET /me of the new minute")
			},
		},
		check.Check{
			ID:     "ratelimit/window-boundary-double-budget",
			Title:  "600 requests at :58 and 600 at the next :00 all pass: fixed windows, not sliding",
			Rules:  []string{"RATE-008"},
			Labels: fast, Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				t.NeedVirtualClock()
				c := t.Client("tenant")
				advanceTo(t, 58, false)
				exhaust(t, c, get(api.P+"/me"), "RATE-004")
				advanceTo(t, 0, true)
				rs := fire(t, repeat(c, get(api.P+"/me"), routeBudget))
				allPass(t, "RATE-008", rs, "600 GET /me at :00, two seconds after 600 at :58")
				limited(t, "RATE-004", t.Do(c, get(api.P+"/me")), "601st GET /me of the new minute")
			},
		},
		check.Check{
			ID:     "ratelimit/tenant-aggregate-6000",
			Title:  "10 key/route budgets x 600 pass; the tenant's 6,001st request, on an untouched budget, is 429",
			Rules:  []string{"RATE-010", "RATE-003", "RATE-001", "RATE-016"},
			Labels: fast,
			Needs:  []string{"keys.tenant", "keys.read_only", "keys.pascal_scopes", "keys.umbrella", "keys.subject", "customers.active_personal"},
			Run: func(t *check.T) {
				t.NeedVirtualClock()
				list := get(api.P + "/customers")
				list.Query = map[string][]string{"limit": {"1"}}
				var shots []shot
				for _, k := range []string{"tenant", "read_only", "pascal_scopes", "umbrella", "subject"} {
					c := t.Client(k)
					shots = append(shots, repeat(c, get(api.P+"/me"), routeBudget)...)
					shots = append(shots, repeat(c, list, routeBudget)...)
				}
				if len(shots) != tenantBudget {
					t.NoVerdict(fmt.Errorf("built %d requests, want %d", len(shots), tenantBudget))
				}
				allPass(t, "RATE-010", fire(t, shots), "10 budgets x 600 (GET /me and GET /customers with five keys)")
				at := now(t)
				ra := limited(t, "RATE-010", t.Do(t.Client("tenant"), get(api.P+"/customers/"+t.Customer("active_personal"))), "the tenant's 6,001st request (GET /customers/{id}, an untouched route budget)")
				if want := secondsLeft(at); ra != want {
					t.Errorf("RATE-016", "tenant aggregate 429 at %s: Retry-After %d, want %d", at.Format("15:04:05"), ra, want)
				}
			},
		},
	)
}
