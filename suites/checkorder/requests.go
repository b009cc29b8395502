package checkorder

// Requests and assertions shared by this package's checks.

import (
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// P is the v1 partner prefix.

// malformedJSON is a body no JSON parser binds.
var malformedJSON = []byte(`{"email": "ts-malformed@example.com", "jurisdiction": `)

// tooLongCorrelation is one character over the 128 allowed.
var tooLongCorrelation = "ts-" + strings.Repeat("c", 126)

// wrongSecretKey is the tenant key's public prefix with a secret nobody has.
func wrongSecretKey(t *check.T) string { return wrongSecretOf(t, "tenant") }

// wrongSecretOf is a key's public prefix with a secret nobody has.
func wrongSecretOf(t *check.T, role string) string {
	key := t.Profile().Key(role)
	prefix, _, ok := strings.Cut(key, ".")
	if !ok {
		t.Skipf("keys.%s is not of the form <prefix>.<secret>", role)
	}
	return prefix + ".tsWrongSecret" + strings.ReplaceAll(uuid.NewString(), "-", "")
}

func newCustomerBody() map[string]any {
	return map[string]any{"email": "ts-" + uuid.NewString() + "@example.com", "jurisdiction": "GB"}
}

// jsonHeader is the Content-Type of a hand-made JSON body.
func jsonHeader() http.Header { return http.Header{"Content-Type": {"application/json"}} }

// withHeader returns h plus one more field.
func withHeader(h http.Header, k string, v ...string) http.Header {
	out := h.Clone()
	if out == nil {
		out = http.Header{}
	}
	out[k] = v
	return out
}

// createCustomer POSTs a fresh customer with key idem and returns the
// response, which must be a 2xx.
func createCustomer(t *check.T, body map[string]any, idem string) *client.Response {
	r := t.Do(t.Client("tenant"), client.Request{Method: http.MethodPost, Path: api.P + "/customers", JSON: body, IdempotencyKey: idem})
	if r.Status/100 != 2 {
		t.NoVerdict(errString("setup: POST /customers with the tenant key answered " + http.StatusText(r.Status) + ": " + shape.Clip(r.Body)))
	}
	return r
}

// bindingError asserts the body-binding 400: problem+json with no code and
// a non-empty errors object whose values are arrays of strings.
func bindingError(t *check.T, rule string, r *client.Response, what string) {
	m := shape.ProblemAnswer(t, r, shape.Want{Rule: rule, Status: http.StatusBadRequest, What: what, Why: "body not bindable"})
	errs, ok := m["errors"].(map[string]any)
	if !ok || len(errs) == 0 {
		t.Fatalf(rule, "%s: problem member errors is %v, want a non-empty object of field to messages", what, m["errors"])
	}
	for _, field := range slices.Sorted(maps.Keys(errs)) {
		v := errs[field]
		msgs, ok := v.([]any)
		if !ok || len(msgs) == 0 {
			t.Fatalf("ERR-021", "%s: errors[%q] is %v, want a non-empty array of messages", what, field, v)
		}
		for _, s := range msgs {
			if _, ok := s.(string); !ok {
				t.Fatalf("ERR-021", "%s: errors[%q] holds %v, want strings", what, field, s)
			}
		}
	}
}

// tenantRefusal asserts the X-Tenant-Id 400: problem+json, title
// "Invalid tenant header.", no code.
func tenantRefusal(t *check.T, rule, shapeRule string, r *client.Response, what string) {
	m := shape.ProblemAnswer(t, r, shape.Want{Rule: rule, ShapeRule: shapeRule, Status: http.StatusBadRequest, What: what, Why: "X-Tenant-Id present"})
	if m["title"] != "Invalid tenant header." {
		t.Fatalf(rule, "%s: title %v, want %q (the X-Tenant-Id refusal)", what, m["title"], "Invalid tenant header.")
	}
}

// laterStepWon stops the check under rule (the sentence naming this
// pair of steps) when r is the refusal of a later step than the one the
// request fails first: status 400 and the later step's code ("" for the
// tenant-header or binding refusal, told by title or errors map).
func laterStepWon(t *check.T, r *client.Response, rule, what, later, code string) {
	if r.Status != http.StatusBadRequest {
		return
	}
	var m map[string]any
	if json.Unmarshal(r.Body, &m) != nil {
		return
	}
	got, _ := m["code"].(string)
	switch {
	case code != "" && got == code,
		code == "" && later == "tenant header" && got == "" && m["title"] == "Invalid tenant header.",
		code == "" && later == "body binding" && got == "" && m["errors"] != nil:
		t.FatalAt(r, rule, "%s: answered the %s refusal (a later step) instead of the earliest failing step's; body: %s", what, later, shape.Clip(r.Body))
	}
}

// exhaust spends the per-route budget (600 per key, method and route
// template in a clock-minute window), which the check's minutes in the
// timetable keep untouched until it runs (check.Budget): on a virtual clock from :01 of
// a fresh minute, on a real one with at least 15 s left in the minute.
// It returns the 601st answer, in the same clock minute as the first (a
// burst that straddled a boundary is sent again once from the next
// minute). send must pass the first four check-order steps.
func exhaust(t *check.T, send func() *client.Response) *client.Response {
	clk := t.Clock()
	const budget = 600
	workers := t.Target().Plan().InFlight(6) // more in flight for a distant target
	for attempt := 0; ; attempt++ {
		clk.Clear(15 * time.Second)
		var first *client.Response
		t.Go(workers, func(g int) {
			for i := g; i < budget; i += workers {
				r := send()
				if i == 0 {
					first = r
				}
				if r.Status == http.StatusTooManyRequests {
					t.Fatalf("RATE-004", "a request within the first %d of a fresh window answered 429; the per-route budget is %d", budget, budget)
				}
			}
		})
		last := send()
		if clk.Same(first, last) {
			return last
		}
		if attempt == 1 {
			t.NoVerdict(errString("the 600 requests and the 601st straddled a clock-minute boundary twice"))
		}
		clk.To(clk.Boundary, true)
	}
}

type errString string

func (e errString) Error() string { return string(e) }
