package otherpaths

// Document 2, Endpoints: POST V2/access-requests (onboarding:write; "own
// tighter rate-limit policy") and POST V2/crm/leads (crm-leads:write).
// Their bodies are not shown (V2-010): checks send a small JSON object and
// accept any 2xx whose body, if any, is JSON. Every mutating v2 call needs
// an Idempotency-Key with the v1 rules (IDEM-023).

import (
	"net/http"
	"regexp"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

const (
	accessRequests = api.V2 + "/access-requests"
	crmLeads       = api.V2 + "/crm/leads"
)

// generalRouteBudget is the documented per-route budget (document 2,
// Limits); access-requests has its own tighter one, numbers not shown.
const generalRouteBudget = 600

// v2Write is one of the two write routes with the rule that it exists and
// the rule naming its scope.
type v2Write struct {
	path, exists, scope string
	body                func() map[string]any
}

var v2Writes = []v2Write{
	{accessRequests, "V2-002", "SCOPE-071", func() map[string]any {
		return map[string]any{"email": "ts-" + uuid.NewString() + "@example.com", "companyName": "Touchstone Harness Ltd", "name": "Touchstone Harness"}
	}},
	{crmLeads, "V2-003", "SCOPE-072", func() map[string]any {
		return map[string]any{"email": "ts-" + uuid.NewString() + "@example.com", "companyName": "Touchstone Harness Ltd", "name": "Touchstone Harness", "source": "touchstone"}
	}},
}

func post(t *check.T, c *client.Client, path string, body map[string]any, key string) *client.Response {
	return t.Do(c, client.Request{Method: http.MethodPost, Path: path, JSON: body, IdempotencyKey: key})
}

// accepted asserts a 2xx answer whose body, if any, is JSON (the bodies are
// not shown). A 400 body-binding problem or a 422 means the target wants a
// body the harness cannot know: no verdict on the route, a skip.
func accepted(t *check.T, rule string, r *client.Response, what string) {
	if r.Status/100 == 2 {
		if len(r.Body) > 0 {
			shape.ContentType(t, rule, r, shape.JSON)
			if _, err := r.JSON(); err != nil {
				t.Fatalf(rule, "%s: %d body is not a JSON object: %v", what, r.Status, err)
			}
		}
		return
	}
	if r.Status == http.StatusUnprocessableEntity {
		t.Skipf("%s: 422 for the harness's guessed body (bodies are not shown, V2-010): %s", what, shape.Clip(r.Body))
	}
	if r.Status == http.StatusBadRequest {
		if m, err := r.JSON(); err == nil && m["errors"] != nil && m["code"] == nil {
			t.Skipf("%s: the target cannot bind the harness's guessed body (bodies are not shown, V2-010): %s", what, shape.Clip(r.Body))
		}
	}
	t.Fatalf(rule, "%s: status %d, want 2xx; body: %s", what, r.Status, shape.Clip(r.Body))
}

var wholeSeconds = regexp.MustCompile(`^[0-9]+$`)

// tighterBudget sends POST V2/access-requests with one key until the first
// 429 and requires it to come before 600 requests have passed (RATE-014;
// the numbers are not shown, RATE-015), in the general 429 shape. It
// returns Retry-After.
func tighterBudget(t *check.T) int {
	c := t.Client("tenant")
	w := v2Writes[0]
	for i := 1; i <= generalRouteBudget; i++ {
		r := post(t, c, w.path, w.body(), t.NewKey())
		if r.Status/100 == 2 {
			continue
		}
		if r.Status != http.StatusTooManyRequests {
			accepted(t, "V2-002", r, "POST "+w.path+" #"+strconv.Itoa(i))
		}
		t.Logf("POST %s: %d requests passed, #%d is 429", w.path, i-1, i)
		shape.ProblemAnswer(t, r, shape.Want{Rule: "RATE-003", Status: http.StatusTooManyRequests, Code: "rate_limited"})
		vals := r.Header.Values("Retry-After")
		if len(vals) != 1 {
			t.Fatalf("RATE-001", "the access-requests 429 carries %d Retry-After headers %q, want one", len(vals), vals)
		}
		if !wholeSeconds.MatchString(vals[0]) {
			t.Fatalf("RATE-017", "the access-requests 429 has Retry-After %q, want whole seconds", vals[0])
		}
		ra, _ := strconv.Atoi(vals[0])
		return ra
	}
	t.Fatalf("RATE-014", "%d POST %s of one key in a row all passed: its policy is not tighter than the general %d per-route budget", generalRouteBudget, w.path, generalRouteBudget)
	return 0
}

// v2writesChecks are the checks of v2writes.go.
func v2writesChecks() []check.Check {
	mut := []string{check.Mutating}
	return []check.Check{
		{
			ID:     "otherpaths/v2-writes-exist",
			Title:  "POST V2/access-requests and POST V2/crm/leads answer a tenant key holding their scopes with 2xx (JSON body if any)",
			Rules:  []string{"V2-002", "V2-003", "V2-010"},
			Labels: mut, Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				c := t.Client("tenant")
				for _, w := range v2Writes {
					accepted(t, w.exists, post(t, c, w.path, w.body(), t.NewKey()), "POST "+w.path+" with keys.tenant")
				}
			},
		},
		{
			ID:     "otherpaths/v2-writes-need-idempotency-key",
			Title:  "POST V2/access-requests and V2/crm/leads without an Idempotency-Key, or with a 7-character one, are 400 idempotency_key_invalid problem+json",
			Rules:  []string{"IDEM-023"},
			Labels: mut, Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				c := t.Client("tenant")
				for _, w := range v2Writes {
					r := post(t, c, w.path, w.body(), "")
					shape.ProblemAnswer(t, r, shape.Want{Rule: "IDEM-023", Status: http.StatusBadRequest, Code: "idempotency_key_invalid"})
					r = post(t, c, w.path, w.body(), "ts-1234")
					shape.ProblemAnswer(t, r, shape.Want{Rule: "IDEM-023", Status: http.StatusBadRequest, Code: "idempotency_key_invalid"})
				}
			},
		},
		{
			ID:     "otherpaths/v2-writes-replay",
			Title:  "an identical retry of POST V2/crm/leads (and V2/access-requests) replays byte for byte; the same key with another body is 409 idempotency_key_reused",
			Rules:  []string{"IDEM-023", "IDEM-019"},
			Labels: mut, Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				c := t.Client("tenant")
				for _, w := range []v2Write{v2Writes[1], v2Writes[0]} {
					key, body := t.NewKey(), w.body()
					first := post(t, c, w.path, body, key)
					accepted(t, w.exists, first, "POST "+w.path)
					for i := 1; i <= 2; i++ {
						// The stored result is answered (IDEM-023: the v1
						// rules hold); that it repeats status, media type and
						// body byte for byte is the reading of "the stored
						// result" (IDEM-019).
						again := post(t, c, w.path, body, key)
						if again.Status != first.Status {
							t.FatalAt(again, "IDEM-023", "identical POST %s retry #%d answered %d, the first %d: a retry with the same key and body answers the stored result", w.path, i, again.Status, first.Status)
						}
						shape.SameResponse(t, "IDEM-019", first, again, "identical POST "+w.path+" retry #"+strconv.Itoa(i))
					}
					r := post(t, c, w.path, w.body(), key)
					shape.ProblemAnswer(t, r, shape.Want{Rule: "IDEM-023", Status: http.StatusConflict, Code: "idempotency_key_reused"})
				}
			},
		},
		{
			ID:     "otherpaths/v2-writes-scopes",
			Title:  "a read-only key (onboarding:read, no onboarding:write or crm-leads:write) gets 403 api_key_not_authorized on both v2 write routes with a bindable body",
			Rules:  []string{"SCOPE-071", "SCOPE-072"},
			Labels: mut, Needs: []string{"keys.read_only"},
			Run: func(t *check.T) {
				// One refusal per route: each is a failed authentication
				// against the source's budget, refused at the key step.
				c := t.Client("read_only")
				for _, w := range v2Writes {
					r := t.Do(c, client.Request{Method: http.MethodPost, Path: w.path, JSON: w.body(), IdempotencyKey: t.NewKey(), KeyRefusal: true})
					shape.ProblemAnswer(t, r, shape.Want{Rule: w.scope, Status: http.StatusForbidden, Code: "api_key_not_authorized", What: "POST " + w.path + " with keys.read_only (scope missing)"})
				}
			},
		},
		{
			ID:     "otherpaths/v2-access-requests-tighter-budget",
			Alone:  check.WithControl,
			Title:  "POST V2/access-requests is refused with 429 rate_limited and Retry-After before 600 requests of one key pass: a tighter policy than the general per-route budget",
			Rules:  []string{"RATE-014", "V2-002", "RATE-001", "RATE-003", "RATE-017"},
			Labels: []string{check.Mutating}, Needs: []string{"keys.tenant"},
			// The route's own budget, which this check spends: no other
			// check's request reaches it until the check ends (then the
			// traffic plan waits out what is left of the window).
			Budget: &check.Budget{Routes: []string{"tenant POST " + api.V2 + "/access-requests"}, Tenant: generalRouteBudget},
			Run: func(t *check.T) {
				t.Clock().Clear(20 * time.Second)
				tighterBudget(t)
			},
		},
	}
}
