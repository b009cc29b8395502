package ratelimit

import (
	"fmt"
	"github.com/touchstone-harness/touchstone/suites/api"
	"net/http"
	"strings"

	"github.com/google/uuid"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/suites/shape"
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

func init() {
	check.Register(
		check.Check{
			ID:     "ratelimit/early-refusals-consume-nothing",
			Title:  "requests refused at check-order steps 1-3 (bad X-Correlation-Id, X-Tenant-Id, wrong secret) consume no budget: 600 valid ones on the same key, method and template then pass, the 601st is 429",
			Rules:  []string{"RATE-009", "RATE-004"},
			Labels: fast, Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				t.NeedVirtualClock()
				const wrongSecret = 10
				// Reserve the failed-auth budget first: reserving later could
				// move the virtual clock into a new window mid-check.
				t.SpendAuthFailures(wrongSecret)
				c := t.Client("tenant")
				me := get(api.P + "/me")
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
				for i, r := range fire(t, shots) {
					e := refusals[i]
					if r.Status != e.status {
						t.NoVerdict(fmt.Errorf("%s answered %d, want %d: the refusal this check relies on did not happen; body: %s", e.what, r.Status, e.status, shape.Clip(r.Body)))
					}
					shape.ProblemJSON(t, "RATE-009", r, e.status, e.code)
				}
				rs := fire(t, repeat(c, me, routeBudget))
				allPass(t, "RATE-009", rs, "600 valid GET /me after 110 refused at steps 1-3 on the same key, method and template")
				limited(t, "RATE-004", t.Do(c, me), "601st valid GET /me")
			},
		},
		check.Check{
			ID:     "ratelimit/later-refusals-consume-budget",
			Title:  "requests refused after the rate limits (400 idempotency_key_invalid at step 5, flat 404 at step 8) consume the per-route budget: the 601st is 429",
			Rules:  []string{"RATE-009", "RATE-004"},
			Labels: fast, Needs: []string{"keys.tenant", "customers.active_personal"},
			Run: func(t *check.T) {
				t.NeedVirtualClock()
				c := t.Client("tenant")
				// Step 8: unknown customers share the GET /customers/{id} budget.
				shots := make([]shot, routeBudget)
				for i := range shots {
					shots[i] = shot{c, get(api.P + "/customers/" + uuid.NewString())}
				}
				for i, r := range fire(t, shots) {
					if r.Status != http.StatusNotFound {
						t.Fatalf("RATE-004", "GET /customers/{unknown} #%d: status %d, want the flat 404 within the budget; body: %s", i+1, r.Status, shape.Clip(r.Body))
					}
				}
				limited(t, "RATE-009", t.Do(c, get(api.P+"/customers/"+t.Customer("active_personal"))),
					"GET /customers/{known} after 600 GET /customers/{unknown} answered 404")
				// Step 5: POST /customers without an Idempotency-Key.
				noKey := client.Request{Method: http.MethodPost, Path: api.P + "/customers", JSON: map[string]any{"email": "ts-" + uuid.NewString() + "@example.com", "jurisdiction": "GB"}}
				for i, r := range fire(t, repeat(c, noKey, routeBudget)) {
					if r.Status != http.StatusBadRequest {
						t.Fatalf("RATE-004", "POST /customers without Idempotency-Key #%d: status %d, want 400 idempotency_key_invalid within the budget; body: %s", i+1, r.Status, shape.Clip(r.Body))
					}
				}
				limited(t, "RATE-009", t.Do(c, noKey), "601st POST /customers after 600 refused with 400 idempotency_key_invalid")
			},
		},
		check.Check{
			ID:     "ratelimit/route-refusals-not-counted-by-tenant",
			Title:  "700 requests on one budget (600 pass, 100 refused) then 5,400 on nine others all pass; the tenant's next request is 429, in every second of the minute, and the next minute opens a fresh aggregate",
			Rules:  []string{"RATE-011", "RATE-010"},
			Labels: fast,
			Needs:  []string{"keys.tenant", "keys.read_only", "keys.pascal_scopes", "keys.umbrella", "keys.subject", "customers.active_personal"},
			Run: func(t *check.T) {
				t.NeedVirtualClock()
				tenant := t.Client("tenant")
				me := get(api.P + "/me")
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
				list := get(api.P + "/customers")
				list.Query = map[string][]string{"limit": {"1"}}
				shots := repeat(tenant, list, routeBudget)
				for _, k := range []string{"read_only", "pascal_scopes", "umbrella", "subject"} {
					c := t.Client(k)
					shots = append(shots, repeat(c, me, routeBudget)...)
					shots = append(shots, repeat(c, list, routeBudget)...)
				}
				if len(shots) != tenantBudget-routeBudget {
					t.NoVerdict(fmt.Errorf("built %d requests, want %d", len(shots), tenantBudget-routeBudget))
				}
				allPass(t, "RATE-011", fire(t, shots), "5,400 requests on nine untouched budgets after 600 passed and 100 were refused by the per-route budget (the refused 100 must not count toward the tenant's 6,000)")
				one := get(api.P + "/customers/" + t.Customer("active_personal"))
				limited(t, "RATE-010", t.Do(tenant, one), "the tenant's 6,001st passed request (GET /customers/{id}, an untouched route budget)")
				advanceTo(t, 59, false)
				limited(t, "RATE-011", t.Do(tenant, one), "GET /customers/{id} at :59 of the minute the tenant exhausted")
				advanceTo(t, 0, true)
				if r := t.Do(tenant, one); r.Status != http.StatusOK {
					t.Fatalf("RATE-011", "GET /customers/{id} at :00 of the next clock minute is %d, want 200 (a new tenant window); body: %s", r.Status, shape.Clip(r.Body))
				}
			},
		},
	)
}
