package headers

// Document 2, Authentication 6 (headers table), Errors / problem+json codes
// and Limits: X-Correlation-Id is optional, at most one, at most 128 visible
// ASCII characters (else 400 correlation_id_invalid), echoed when valid,
// generated when omitted, and present on every response.

import (
	"fmt"
	"maps"
	"net/http"
	"net/url"
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

const corrHeader = "X-Correlation-Id"

// visibleASCII tells whether s is 1-128 characters in 0x21-0x7E (CORR-008).
func visibleASCII(s string) bool {
	if len(s) == 0 || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// allVisible is n characters cycling through every visible ASCII character.
func allVisible(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(0x21 + i%(0x7e-0x21+1))
	}
	return string(b)
}

// newCorr is a fresh valid correlation id.
func newCorr() string { return "ts-corr-" + uuid.NewString() }

// echoed asserts the response carries exactly the sent id.
func echoed(t *check.T, r *client.Response, sent, what string) {
	got := r.Header.Values(corrHeader)
	if len(got) != 1 || got[0] != sent {
		t.Errorf("CORR-005", "%s (%d): X-Correlation-Id %q, want exactly the sent %q", what, r.Status, got, sent)
	}
}

// generated asserts the response carries one well-formed id and returns it.
func generated(t *check.T, rule string, r *client.Response, what string) string {
	got := r.Header.Values(corrHeader)
	if len(got) != 1 {
		t.Errorf(rule, "%s (%d): %d X-Correlation-Id headers %q, want exactly one (generated)", what, r.Status, len(got), got)
		return ""
	}
	if !visibleASCII(got[0]) {
		t.Errorf("CORR-012", "%s (%d): generated X-Correlation-Id %q is not 1-128 visible ASCII characters", what, r.Status, got[0])
	}
	return got[0]
}

func get(t *check.T, c *client.Client, path string, h http.Header) *client.Response {
	return t.Do(c, client.Request{Method: http.MethodGet, Path: path, Header: h})
}

func corr(v ...string) http.Header { return http.Header{corrHeader: v} }

// refused asserts 400 problem+json correlation_id_invalid.
func refused(t *check.T, rule string, r *client.Response, what string) {
	shape.ProblemAnswer(t, r, shape.Want{Rule: rule, Status: http.StatusBadRequest, Code: "correlation_id_invalid", What: what})
}

// errorCase is a request answered with an error status.
type errorCase struct {
	what   string
	status int
	send   func(t *check.T, h http.Header) *client.Response
}

func errorCases() []errorCase {
	return []errorCase{
		{"PATCH without Idempotency-Key", 400, func(t *check.T, h http.Header) *client.Response {
			return t.Do(t.Client("tenant"), client.Request{Method: http.MethodPatch, Path: api.P + "/customers/" + uuid.NewString(), JSON: map[string]any{}, Header: h})
		}},
		{"GET with X-Tenant-Id", 400, func(t *check.T, h http.Header) *client.Response {
			h = h.Clone()
			h.Set("X-Tenant-Id", uuid.NewString())
			return get(t, t.Client("tenant"), api.P+"/me", h)
		}},
		{"GET without a key", 401, func(t *check.T, h http.Header) *client.Response {
			return get(t, t.Anonymous(), api.P+"/me", h)
		}},
		{"PATCH with a read-only key", 403, func(t *check.T, h http.Header) *client.Response {
			return t.Do(t.Client("read_only"), client.Request{Method: http.MethodPatch, Path: api.P + "/customers/" + uuid.NewString(), JSON: map[string]any{}, IdempotencyKey: t.NewKey(), Header: h, KeyRefusal: true})
		}},
		{"GET of an unknown customer", 404, func(t *check.T, h http.Header) *client.Response {
			return get(t, t.Client("tenant"), api.P+"/customers/"+uuid.NewString(), h)
		}},
		{"GET requirements of an unknown level", 422, func(t *check.T, h http.Header) *client.Response {
			return t.Do(t.Client("tenant"), client.Request{Method: http.MethodGet, Path: api.P + "/onboarding/requirements", Query: url.Values{"level": {"ts-no-such-level"}}, Header: h})
		}},
	}
}

// correlationChecks are the checks of correlation.go.
func correlationChecks() []check.Check {
	return []check.Check{
		{
			ID:    "headers/correlation-echoed",
			Title: "a valid X-Correlation-Id is echoed verbatim",
			Rules: []string{"CORR-005", "CORR-001"},
			Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				c := t.Client("tenant")
				for _, path := range []string{api.P + "/me", api.P + "/customers"} {
					id := newCorr()
					r := get(t, c, path, corr(id))
					shape.StatusAnswer(t, r, shape.Want{Rule: "CORR-001", Status: http.StatusOK, What: fmt.Sprintf("GET %s with X-Correlation-Id", path)})
					echoed(t, r, id, "GET "+path)
				}
			},
		},
		{
			ID:    "headers/correlation-generated",
			Title: "without X-Correlation-Id the response carries a generated one, different per response",
			Rules: []string{"CORR-006", "CORR-012", "CORR-001"},
			Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				c := t.Client("tenant")
				first := get(t, c, api.P+"/me", nil)
				// Optional: a request without one is served.
				shape.StatusAnswer(t, first, shape.Want{Rule: "CORR-001", Status: http.StatusOK, What: "GET /me without X-Correlation-Id", Continue: true})
				a := generated(t, "CORR-006", first, "GET /me")
				b := generated(t, "CORR-006", get(t, c, api.P+"/me", nil), "GET /me again")
				if a != "" && a == b {
					t.Errorf("CORR-012", "two responses carry the same generated X-Correlation-Id %q", a)
				}
			},
		},
		{
			ID:    "headers/correlation-on-every-response",
			Title: "X-Correlation-Id is on every response, errors included (400, 401, 403, 404, 422): echoed or generated",
			Rules: []string{"CORR-007", "CORR-005"},
			Needs: []string{"keys.tenant", "keys.read_only"},
			Run: func(t *check.T) {
				// The 401 and the 403 are failed authentications against the
				// source's budget: each is sent once, the 401 carrying an id
				// (echoed) and the 403 none (generated); the other statuses
				// are sent both ways.
				for _, ec := range errorCases() {
					refusal := ec.status == http.StatusUnauthorized || ec.status == http.StatusForbidden
					if !refusal || ec.status == http.StatusForbidden {
						r := ec.send(t, http.Header{})
						if r.Status != ec.status {
							// Another rule's finding; the header must be there anyway.
							t.Logf("%s answered %d, expected %d", ec.what, r.Status, ec.status)
						}
						generated(t, "CORR-007", r, ec.what)
					}
					if !refusal || ec.status == http.StatusUnauthorized {
						id := newCorr()
						r := ec.send(t, corr(id))
						if len(r.Header.Values(corrHeader)) == 0 {
							t.Errorf("CORR-007", "%s (%d): no X-Correlation-Id header, want the sent %q", ec.what, r.Status, id)
						} else {
							echoed(t, r, id, ec.what)
						}
					}
				}
			},
		},
		{
			ID:     "headers/correlation-on-429",
			Alone:  check.WithControl,
			Title:  "X-Correlation-Id is on a 429 too: echoed or generated",
			Rules:  []string{"CORR-007", "CORR-005", "RATE-004"},
			Needs:  []string{"keys.pascal_scopes", "customers.active_personal"},
			Budget: &check.Budget{Routes: []string{"pascal_scopes GET " + api.P + "/customers/{id}"}, Tenant: 602},
			Run: func(t *check.T) {
				// A route budget's 429 (one no other check spends), on
				// either clock: spend it in one clock minute, then ask twice
				// more.
				clk := t.Clock()
				c := t.Client("pascal_scopes")
				one := api.P + "/customers/" + t.Customer("active_personal")
				for attempt := 0; ; attempt++ {
					clk.Clear(15 * time.Second)
					var first *client.Response
					workers := t.Target().Plan().InFlight(6) // more in flight for a distant target
					t.Go(workers, func(g int) {
						for i := g; i < 600; i += workers {
							r := get(t, c, one, nil)
							if i == 0 {
								first = r
							}
						}
					})
					id := newCorr()
					r := get(t, c, one, corr(id))
					if r.Status == http.StatusTooManyRequests {
						if len(r.Header.Values(corrHeader)) == 0 {
							t.Errorf("CORR-007", "429 route budget: no X-Correlation-Id header, want the sent %q", id)
						} else {
							echoed(t, r, id, "429 route budget")
						}
						generated(t, "CORR-007", get(t, c, one, nil), "429 route budget")
						return
					}
					if clk.Same(first, r) || attempt == 1 {
						t.Fatalf("RATE-004", "setup: the 601st GET /customers/{id} of one key in a window answered %d, want 429; body: %s", r.Status, shape.Clip(r.Body))
					}
					clk.To(1, true)
				}
			},
		},
		{
			ID:    "headers/correlation-128-accepted",
			Title: "a 128-character visible-ASCII X-Correlation-Id is accepted and echoed verbatim",
			Rules: []string{"CORR-003", "CORR-008", "CORR-005"},
			Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				c := t.Client("tenant")
				plain := "ts-" + strings.Repeat("0123456789abcdef", 8)[:125]
				for _, ri := range [][2]string{{"CORR-003", plain}, {"CORR-008", allVisible(128)}} {
					rule, id := ri[0], ri[1]
					r := get(t, c, api.P+"/me", corr(id))
					shape.StatusAnswer(t, r, shape.Want{Rule: rule, Status: http.StatusOK, What: fmt.Sprintf("GET /me with a 128-character X-Correlation-Id %q", id)})
					echoed(t, r, id, "GET /me with a 128-character id")
				}
			},
		},
		{
			ID:    "headers/correlation-129-refused",
			Title: "a 129-character X-Correlation-Id is 400 correlation_id_invalid, and the 400 carries a new id",
			Rules: []string{"CORR-003", "ERR-017", "CORR-011"},
			Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				id := "ts-" + strings.Repeat("0123456789abcdef", 9)[:126]
				r := get(t, t.Client("tenant"), api.P+"/me", corr(id))
				refused(t, "CORR-003", r, "GET /me with a 129-character X-Correlation-Id")
				if got := generated(t, "CORR-007", r, "400 correlation_id_invalid"); got == id {
					t.Errorf("CORR-011", "the 400 echoes the invalid X-Correlation-Id; it carries a newly generated one")
				}
			},
		},
		{
			ID:    "headers/correlation-non-visible-refused",
			Title: "an X-Correlation-Id holding a space, a tab, a non-ASCII byte or DEL (0x7F) is refused with 400",
			Rules: []string{"CORR-004", "CORR-008"},
			Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				c := t.Client("tenant")
				// The sentence's own examples (a space, a non-ASCII byte), and
				// a tab, outside 0x21-0x7E by the reading of visible ASCII
				// (CORR-008): refused under that reading, in the sentence's
				// refusal (CORR-004).
				holding := map[string]string{
					"a space":          "ts-corr with-space",
					"a tab":            "ts-corr\twith-tab",
					"a non-ASCII byte": "ts-corr-\u00e9",
				}
				for _, what := range slices.Sorted(maps.Keys(holding)) {
					id := holding[what]
					w := shape.Want{Rule: "CORR-004", Status: http.StatusBadRequest, Code: "correlation_id_invalid", What: "GET /me with an X-Correlation-Id holding " + what}
					if what == "a tab" {
						w.Rule, w.ShapeRule = "CORR-008", "CORR-004"
					}
					shape.ProblemAnswer(t, get(t, c, api.P+"/me", corr(id)), w)
				}
				// Go's client will not send DEL in a header; send it raw. DEL is
				// outside visible ASCII like the others: the same whole 400
				// problem+json correlation_id_invalid, not a bare 400 from
				// an HTTP layer in front of the API.
				raw := t.DoRaw(c, http.MethodGet, api.P+"/me", [][2]string{{corrHeader, "ts-corr-\x7f-del"}}, nil)
				shape.ProblemAnswer(t, raw, shape.Want{Rule: "CORR-008", ShapeRule: "CORR-004", Status: http.StatusBadRequest, Code: "correlation_id_invalid", What: "GET /me with an X-Correlation-Id holding DEL (0x7F)"})
			},
		},
		{
			ID:    "headers/correlation-duplicated-refused",
			Title: "two X-Correlation-Id header lines are 400 correlation_id_invalid, even with equal values",
			Rules: []string{"CORR-002", "CORR-010", "ERR-017"},
			Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				c := t.Client("tenant")
				same := newCorr()
				refused(t, "CORR-002", get(t, c, api.P+"/me", corr(newCorr(), newCorr())), "GET /me with two different X-Correlation-Id lines")
				// Equal values are still two fields: duplication is two header
				// lines, whatever they hold (CORR-010's reading).
				shape.ProblemAnswer(t, get(t, c, api.P+"/me", corr(same, same)), shape.Want{Rule: "CORR-010", ShapeRule: "CORR-002", Status: http.StatusBadRequest, Code: "correlation_id_invalid", What: "GET /me with two equal X-Correlation-Id lines"})
			},
		},
		{
			ID:    "headers/correlation-comma-is-one-value",
			Title: "a single X-Correlation-Id whose value holds a comma is one valid id, echoed verbatim",
			Rules: []string{"CORR-010"},
			Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				id := "ts-corr-a," + uuid.NewString()
				r := get(t, t.Client("tenant"), api.P+"/me", corr(id))
				shape.StatusAnswer(t, r, shape.Want{Rule: "CORR-010", Status: http.StatusOK, What: fmt.Sprintf("GET /me with X-Correlation-Id %q (one line)", id)})
				got := r.Header.Values(corrHeader)
				if len(got) != 1 || got[0] != id {
					t.Errorf("CORR-010", "X-Correlation-Id %q came back as %q, want it verbatim", id, got)
				}
			},
		},
		{
			ID:    "headers/correlation-empty-is-absent",
			Title: "an empty X-Correlation-Id is treated as absent: the request proceeds with a generated id",
			Rules: []string{"CORR-009"},
			Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				r := get(t, t.Client("tenant"), api.P+"/me", corr(""))
				shape.StatusAnswer(t, r, shape.Want{Rule: "CORR-009", Status: http.StatusOK, What: "GET /me with an empty X-Correlation-Id"})
				if g := generated(t, "CORR-009", r, "GET /me with an empty X-Correlation-Id"); g == "" {
					t.Errorf("CORR-009", "no generated X-Correlation-Id for an empty one")
				}
			},
		},
	}
}
