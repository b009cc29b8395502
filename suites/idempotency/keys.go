package idempotency

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/google/uuid"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// Idempotency-Key validation (document 1, Common rules; document 2,
// Authentication 6 and problem+json codes). Each refused request would
// change a customer if it ran; the customer is read back to prove it did not.

func keysChecks() []check.Check {
	mut := []string{check.Mutating}
	return []check.Check{
		{
			ID:     "idempotency/key-missing",
			Title:  "POST, PATCH and DELETE without Idempotency-Key (or a POST with an empty one) are 400 idempotency_key_invalid before the operation runs",
			Rules:  []string{"IDEM-001", "IDEM-006", "ERR-019", "CUST-009"},
			Labels: mut, Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				mark := customersMark(t) // every customer made from here on is newer
				c := t.Client("tenant")
				email := freshEmail()
				r := t.Do(c, client.Request{Method: http.MethodPost, Path: customers, JSON: map[string]any{"email": email, "jurisdiction": "GB"}})
				invalidKey(t, "IDEM-001", r, "POST /customers without Idempotency-Key")
				if n := countByReference(t, mark, email); n != 0 {
					t.Fatalf("IDEM-001", "POST /customers without Idempotency-Key was refused but created %d customer(s) with %s", n, email)
				}
				r = t.Do(c, client.Request{Method: http.MethodPost, Path: customers, JSON: map[string]any{"email": email, "jurisdiction": "GB"},
					Header: http.Header{"Idempotency-Key": {""}}})
				invalidKey(t, "IDEM-006", r, "POST /customers with an empty Idempotency-Key")
				if n := countByReference(t, mark, email); n != 0 {
					t.Fatalf("IDEM-006", "POST /customers with an empty Idempotency-Key was refused but created %d customer(s)", n)
				}
				id := createCustomer(t)
				invalidKey(t, "IDEM-001", patch(t, c, id, "", jsonBody("DE")), "PATCH /customers/{id} without Idempotency-Key")
				if j := jurisdiction(t, id); j != "GB" {
					t.Fatalf("IDEM-001", "PATCH without Idempotency-Key was refused but the jurisdiction became %s", j)
				}
				// DELETE too (of a beneficiary the customer does not have:
				// the operation would answer 404, after the key step).
				del := t.Do(c, client.Request{Method: http.MethodDelete, Path: customers + "/" + id + "/banking/beneficiaries/" + uuid.NewString()})
				invalidKey(t, "IDEM-001", del, "DELETE /customers/{id}/banking/beneficiaries/{beneficiaryId} without Idempotency-Key")
			},
		},
		{
			ID:     "idempotency/key-length",
			Title:  "Idempotency-Key of 7 and 257 characters is 400; 8 and 256 characters are accepted",
			Rules:  []string{"IDEM-002", "IDEM-003", "ERR-019", "CUST-022"},
			Labels: mut, Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				c := t.Client("tenant")
				id := createCustomer(t)
				steps := []struct {
					n    int
					j    string
					ok   bool
					rule string
				}{
					{1, "DE", false, "IDEM-002"},
					{7, "DE", false, "IDEM-002"},
					{8, "DE", true, "IDEM-003"},
					{257, "FR", false, "IDEM-003"},
					{256, "FR", true, "IDEM-003"},
				}
				want := "GB"
				for _, s := range steps {
					r := patch(t, c, id, visibleKey(s.n), jsonBody(s.j))
					if s.ok {
						shape.StatusAnswer(t, r, shape.Want{Rule: s.rule, Status: http.StatusOK, What: fmt.Sprintf("a %d-character Idempotency-Key", s.n)})
						want = s.j
					} else {
						invalidKey(t, s.rule, r, "PATCH with a "+strconv.Itoa(s.n)+"-character Idempotency-Key")
					}
					if j := jurisdiction(t, id); j != want {
						t.Fatalf(s.rule, "after PATCH with a %d-character key the jurisdiction is %s, want %s", s.n, j, want)
					}
				}
			},
		},
		{
			ID:     "idempotency/key-characters",
			Title:  "Idempotency-Key with a space, tab, 0x7F or non-ASCII is 400; every visible ASCII character 0x21-0x7E is accepted",
			Rules:  []string{"IDEM-004", "IDEM-006", "CUST-022"},
			Labels: mut, Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				c := t.Client("tenant")
				id := createCustomer(t)
				for _, k := range []struct{ key, what string }{
					{"ts-key with-space", "a space"},
					{"ts-key\twith-tab", "a tab"},
					{"ts-key-non-ascii-\u00e9", "a non-ASCII character (é)"},
				} {
					invalidKey(t, "IDEM-004", patch(t, c, id, k.key+t.NewKey(), jsonBody("DE")), "Idempotency-Key with "+k.what)
				}
				// Go's HTTP client refuses to send 0x7F: write the request by hand.
				r := t.DoRaw(c, http.MethodPatch, customers+"/"+id,
					[][2]string{{"Idempotency-Key", "ts-key\x7fdel-" + t.NewKey()}, {"Content-Type", "application/json"}}, jsonBody("DE"))
				invalidKey(t, "IDEM-006", r, "Idempotency-Key with 0x7F")
				if j := jurisdiction(t, id); j != "GB" {
					t.Fatalf("IDEM-004", "a refused PATCH changed the jurisdiction to %s", j)
				}
				visible := make([]byte, 0, 94)
				for b := byte(0x21); b <= 0x7e; b++ {
					visible = append(visible, b)
				}
				r = patch(t, c, id, string(visible)+t.NewKey(), jsonBody("DE")) // unique per run: a target outlives runs
				shape.StatusAnswer(t, r, shape.Want{Rule: "IDEM-006", Status: http.StatusOK, What: "an Idempotency-Key of the 94 visible ASCII characters 0x21-0x7E"})
				if j := jurisdiction(t, id); j != "DE" {
					t.Fatalf("IDEM-006", "PATCH with a visible-ASCII key answered 200 but the jurisdiction is %s", j)
				}
			},
		},
		{
			ID:     "idempotency/key-duplicated",
			Title:  "two Idempotency-Key header lines (same or different values) are 400 idempotency_key_invalid",
			Rules:  []string{"IDEM-005", "ERR-019", "CUST-022"},
			Labels: mut, Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				c := t.Client("tenant")
				id := createCustomer(t)
				k := t.NewKey()
				for _, vals := range [][]string{{k, k}, {k, t.NewKey()}} {
					r := t.Do(c, client.Request{Method: http.MethodPatch, Path: customers + "/" + id, Body: jsonBody("DE"),
						Header: http.Header{"Content-Type": {"application/json"}, "Idempotency-Key": vals}})
					invalidKey(t, "IDEM-005", r, "two Idempotency-Key header lines")
				}
				if j := jurisdiction(t, id); j != "GB" {
					t.Fatalf("IDEM-005", "a refused PATCH with two Idempotency-Key lines changed the jurisdiction to %s", j)
				}
				shape.StatusAnswer(t, patch(t, c, id, k, jsonBody("DE")), shape.Want{Rule: "IDEM-005", Status: http.StatusOK, What: "the same key sent once"})
			},
		},
		{
			ID:     "idempotency/key-ignored-on-get",
			Title:  "a GET with an Idempotency-Key (valid, malformed or duplicated) is processed normally, never replayed",
			Rules:  []string{"IDEM-007", "CUST-022"},
			Labels: mut, Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				c := t.Client("tenant")
				id := createCustomer(t)
				get := func(h http.Header) map[string]any {
					r := t.Do(c, client.Request{Method: http.MethodGet, Path: customers + "/" + id, Header: h})
					shape.StatusAnswer(t, r, shape.Want{Rule: "IDEM-007", Status: http.StatusOK, What: fmt.Sprintf("GET /customers/{id} with Idempotency-Key %q", h.Values("Idempotency-Key"))})
					return customerOf(t, "IDEM-007", r)
				}
				get(http.Header{"Idempotency-Key": {"bad"}})
				get(http.Header{"Idempotency-Key": {"has a space"}})
				k := t.NewKey()
				get(http.Header{"Idempotency-Key": {k, t.NewKey()}})
				if j := get(http.Header{"Idempotency-Key": {k}})["jurisdiction"]; j != "GB" {
					t.NoVerdict(errorf("fresh customer has jurisdiction %v", j))
				}
				setJurisdiction(t, id, "DE")
				if j := get(http.Header{"Idempotency-Key": {k}})["jurisdiction"]; j != "DE" {
					t.Fatalf("IDEM-007", "a second GET with the same Idempotency-Key shows jurisdiction %v, want the current DE (a GET is never replayed)", j)
				}
				r := t.Do(c, client.Request{Method: http.MethodGet, Path: customers, Header: http.Header{"Idempotency-Key": {"x"}}})
				shape.EnvelopeAnswer(t, r, shape.Want{Rule: "IDEM-007", Status: http.StatusOK})
			},
		},
	}
}
