package idempotency

import (
	"net/http"
	"strconv"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// Replay (document 1, Common rules): within 24 hours an identical retry
// returns the stored result of a successful first attempt, byte for byte,
// without running the operation again.

func replayChecks() []check.Check {
	mut := []string{check.Mutating}
	return []check.Check{
		{
			ID:     "idempotency/replay-create",
			Title:  "an identical POST /customers retried 3x replays status, Content-Type and body byte for byte and creates one customer, even after the customer changed",
			Rules:  []string{"IDEM-008", "IDEM-019", "CUST-009"},
			Labels: mut, Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				mark := customersMark(t) // every customer made from here on is newer
				c := t.Client("tenant")
				email, key := freshEmail(), t.NewKey()
				req := client.Request{Method: http.MethodPost, Path: customers, IdempotencyKey: key,
					JSON: map[string]any{"email": email, "jurisdiction": "GB"}}
				first := t.Do(c, req)
				id := idOf(t, first)
				for i := 0; i < 3; i++ {
					same(t, first, t.Do(c, req), "identical POST /customers retry #"+strconv.Itoa(i+1))
				}
				if n := countByReference(t, mark, email); n != 1 {
					t.Fatalf("IDEM-008", "after one POST and three identical retries %d customers have %s, want 1", n, email)
				}
				// Move the email away: a re-execution (find-or-create by email)
				// would now create a second customer; a replay cannot.
				moved := freshEmail()
				r := t.Do(c, client.Request{Method: http.MethodPatch, Path: customers + "/" + id, IdempotencyKey: t.NewKey(),
					JSON: map[string]any{"external_reference": moved}})
				if r.Status != http.StatusOK {
					t.NoVerdict(errorf("cannot change the customer's external_reference: %d %s", r.Status, shape.Clip(r.Body)))
				}
				same(t, first, t.Do(c, req), "identical POST /customers retry after the customer changed")
				if n := countByReference(t, mark, email); n != 0 {
					t.Fatalf("IDEM-008", "the retry created a customer with %s again (%d found): it re-executed instead of replaying", email, n)
				}
				if ref := reference(t, id); ref != moved {
					t.Fatalf("IDEM-008", "the retry changed the customer back to %s: it re-executed", ref)
				}
			},
		},
		{
			ID:     "idempotency/replay-does-not-re-execute",
			Title:  "an identical PATCH retry after another change replays the first response and leaves the later change in place",
			Rules:  []string{"IDEM-008", "IDEM-019", "CUST-022"},
			Labels: mut, Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				c := t.Client("tenant")
				id, key := createCustomer(t), t.NewKey()
				first := patch(t, c, id, key, jsonBody("DE"))
				if first.Status != http.StatusOK {
					t.NoVerdict(errorf("PATCH jurisdiction DE: %d %s", first.Status, shape.Clip(first.Body)))
				}
				same(t, first, patch(t, c, id, key, jsonBody("DE")), "identical PATCH retry")
				setJurisdiction(t, id, "FR")
				for i := 0; i < 3; i++ {
					same(t, first, patch(t, c, id, key, jsonBody("DE")), "identical PATCH retry after a change, #"+strconv.Itoa(i+1))
				}
				if j := jurisdiction(t, id); j != "FR" {
					t.Fatalf("IDEM-008", "after identical retries the jurisdiction is %s, want FR (the retries re-executed)", j)
				}
			},
		},
	}
}
