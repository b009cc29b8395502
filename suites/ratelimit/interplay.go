package ratelimit

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/google/uuid"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// Which requests consume which budget (catalogue interpretations RATE-009
// and RATE-011; document 2, Errors / Check order and Limits): requests
// refused at steps 1-3 (correlation id, tenant header, key) consume no
// budget; requests that reach step 4 do, even when a later step refuses
// them; a request the per-route budget refuses does not count toward the
// tenant aggregate.

// early is a request refused before the rate limits, with its documented
// answer.
type early struct {
	what   string
	r      client.Request
	c      *client.Client
	status int
	code   string
}

// earlyWrongSecret is how many wrong-secret refusals the early-refusals
// check sends (failed authentications it causes).
const earlyWrongSecret = 10

// interplayChecks are the checks of interplay.go.
func interplayChecks() []check.Check {
	return []check.Check{
		{
			ID:     "ratelimit/early-refusals-consume-nothing",
			Title:  "requests refused at check-order steps 1-3 (bad X-Correlation-Id, X-Tenant-Id, wrong secret) consume no budget: 600 valid ones on the same key, method and template then pass, the 601st is 429",
			Rules:  []string{"RATE-009", "RATE-004"},
			Needs:  []string{"keys.tenant"},
			Budget: &check.Budget{Routes: []string{route("tenant", "GET", me)}, Tenant: 711},
			Run: func(t *check.T) {
				clk := t.Clock()
				const wrongSecret = earlyWrongSecret
				// The refusals and the 600 in one clock minute: on a real
				// clock, start with room for both.
				clk.Clear(2 * burstNeed)
				c := t.Client("tenant")
				me := get(me)
				var refusals []early
				for i := 0; i < 50; i++ {
					r := me
					r.Header = http.Header{"X-Correlation-Id": {strings.Repeat("c", 129)}}
					refusals = append(refusals, early{"GET /me with a 129-character X-Correlation-Id (step 1)", r, c, http.StatusBadRequest, "correlation_id_invalid"})
				}
				for i := 0; i < 50; i++ {
					r := me
					r.Header = http.Header{"X-Tenant-Id": {uuid.NewString()}}
					refusals = append(refusals, early{"GET /me with X-Tenant-Id (step 2)", r, c, http.StatusBadRequest, ""})
				}
				// The key's own public prefix with a wrong secret (step 3).
				prefix, _, _ := strings.Cut(c.Key, ".")
				wrong := c.With("tenant-wrong-secret", prefix+".ts"+strings.ReplaceAll(uuid.NewString(), "-", ""))
				for i := 0; i < wrongSecret; i++ {
					refusals = append(refusals, early{"GET /me with the tenant key's prefix and a wrong secret (step 3)", me, wrong, http.StatusUnauthorized, "api_key_authentication_failed"})
				}
				shots := make([]shot, len(refusals))
				for i, e := range refusals {
					shots[i] = shot{e.c, e.r}
				}
				early := fire(t, shots)
				for i, r := range early {
					e := refusals[i]
					if r.Status != e.status {
						t.NoVerdict(fmt.Errorf("%s answered %d, want %d: the refusal this check relies on did not happen; body: %s", e.what, r.Status, e.status, shape.Clip(r.Body)))
					}
					shape.ProblemAnswer(t, r, shape.Want{Rule: "RATE-009", Status: e.status, Code: e.code})
				}
				rs := fire(t, repeat(c, me, routeBudget))
				last := t.Do(c, me)
				sameMinute(t, clk, "the refusals and the 600 valid requests", early[0], last)
				allPass(t, "RATE-009", rs, "600 valid GET /me after 110 refused at steps 1-3 on the same key, method and template")
				limited(t, "RATE-004", last, "601st valid GET /me")
			},
		},
		{
			ID:     "ratelimit/later-refusals-consume-budget",
			Title:  "requests refused after the rate limits (400 idempotency_key_invalid at step 5, flat 404 at step 8) consume the per-route budget: the 601st is 429",
			Rules:  []string{"RATE-009", "RATE-004"},
			Needs:  []string{"keys.umbrella", "keys.tenant", "customers.active_personal"},
			Budget: &check.Budget{Routes: []string{route("umbrella", "GET", customerID), route("tenant", "POST", customers)}, Tenant: 1202 + 2*overflowProbe},
			Run: func(t *check.T) {
				clk := t.Clock()
				u := t.Client("umbrella")
				// Step 8: unknown customers share the GET /customers/{id} budget.
				shots := make([]shot, routeBudget)
				for i := range shots {
					shots[i] = shot{u, get(api.P + "/customers/" + uuid.NewString())}
				}
				rs := inOneMinute(t, clk, shots)
				known := t.Do(u, get(api.P+"/customers/"+t.Customer("active_personal")))
				sameMinute(t, clk, "600 GET /customers/{unknown} and then {known}", rs[0], known)
				for i, r := range rs {
					shape.StatusAnswer(t, r, shape.Want{Rule: "RATE-004", Status: http.StatusNotFound, What: fmt.Sprintf("GET /customers/{unknown} #%d", i+1)})
				}
				limitedOr(t, clk, "RATE-009", known, "GET /customers/{known} after 600 GET /customers/{unknown} answered 404", u, get(api.P+"/customers/"+t.Customer("active_personal")))
				// Step 5: POST /customers without an Idempotency-Key.
				c := t.Client("tenant")
				noKey := client.Request{Method: http.MethodPost, Path: customers, JSON: map[string]any{"email": "ts-" + uuid.NewString() + "@example.com", "jurisdiction": "GB"}}
				rs = inOneMinute(t, clk, repeat(c, noKey, routeBudget))
				last := t.Do(c, noKey)
				sameMinute(t, clk, "600 POST /customers and the 601st", rs[0], last)
				for i, r := range rs {
					shape.StatusAnswer(t, r, shape.Want{Rule: "RATE-004", Status: http.StatusBadRequest, What: fmt.Sprintf("POST /customers without Idempotency-Key #%d", i+1)})
				}
				limitedOr(t, clk, "RATE-009", last, "601st POST /customers after 600 refused with 400 idempotency_key_invalid", c, noKey)
			},
		},
		{
			ID:     "ratelimit/route-refusals-not-counted-by-tenant",
			Title:  "700 requests on one budget (600 pass, 100 refused) then 5,400 on nine others all pass; the tenant's next request is 429, in every second of the minute, and the next minute opens a fresh aggregate",
			Rules:  []string{"RATE-011", "RATE-010", "RATE-004"},
			Needs:  []string{"keys.tenant", "keys.read_only", "keys.pascal_scopes", "keys.umbrella", "keys.subject", "customers.active_personal"},
			Budget: &check.Budget{WholeTenant: true, Tenant: tenantBudget + 103, Windows: 2},
			Run: func(t *check.T) {
				clk := t.Clock()
				clk.Fresh()
				tenant := t.Client("tenant")
				me := get(me)
				rs := fire(t, repeat(tenant, me, routeBudget+100))
				passed := 0
				for _, r := range rs {
					switch r.Status {
					case http.StatusOK:
						passed++
					case http.StatusTooManyRequests:
					default:
						t.Fatalf("RATE-004", "GET /me: status %d, want 200 or 429; body: %s", r.Status, shape.Clip(r.Body))
					}
				}
				if passed != routeBudget {
					t.Fatalf("RATE-004", "700 GET /me of one key in one window: %d passed, want 600", passed)
				}
				list := list(customers)
				shots := repeat(tenant, list, routeBudget)
				for _, k := range []string{"read_only", "pascal_scopes", "umbrella", "subject"} {
					c := t.Client(k)
					shots = append(shots, repeat(c, me, routeBudget)...)
					shots = append(shots, repeat(c, list, routeBudget)...)
				}
				if len(shots) != tenantBudget-routeBudget {
					t.NoVerdict(fmt.Errorf("built %d requests, want %d", len(shots), tenantBudget-routeBudget))
				}
				more := fire(t, shots)
				one := get(api.P + "/customers/" + t.Customer("active_personal"))
				next := t.Do(tenant, one)
				sameMinute(t, clk, "the tenant's 6,100 requests and the next", rs[0], next)
				allPass(t, "RATE-011", more, "5,400 requests on nine untouched budgets after 600 passed and 100 were refused by the per-route budget (the refused 100 must not count toward the tenant's 6,000)")
				limited(t, "RATE-010", next, "the tenant's 6,001st passed request (GET /customers/{id}, an untouched route budget)")
				at := clk.To(lastSecond(clk)-0.5, false)
				late := t.Do(tenant, one)
				sameMinute(t, clk, "the exhausted minute", rs[0], late)
				limited(t, "RATE-011", late, fmt.Sprintf("GET /customers/{id} at :%02d of the minute the tenant exhausted", at.Second()))
				clk.To(clk.Boundary, true)
				shape.StatusAnswer(t, t.Do(tenant, one), shape.Want{Rule: "RATE-011", Status: http.StatusOK, What: "GET /customers/{id} at the start of the next clock minute", Why: "a new tenant window"})
			},
		},
	}
}
