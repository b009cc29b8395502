package idempotency

import (
	"net/http"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// The caller is part of a key's identity (document 1, Common rules): the
// same Idempotency-Key under another API key is independent (IDEM-016).
// Both keys here are tenant-wide keys of one tenant.

func callerChecks() []check.Check {
	return []check.Check{
		{
			ID:     "idempotency/caller-separation",
			Title:  "the same Idempotency-Key under another API key neither conflicts nor replays: it executes",
			Rules:  []string{"IDEM-016", "IDEM-019", "CUST-022"},
			Labels: []string{check.Mutating}, Needs: []string{"keys.tenant", "keys.pascal_scopes"},
			Run: func(t *check.T) {
				a, b := t.Client("tenant"), t.Client("pascal_scopes")
				x, key := createCustomer(t), t.NewKey()
				first := patch(t, a, x, key, jsonBody("DE"))
				if first.Status != http.StatusOK {
					t.NoVerdict(errorf("PATCH jurisdiction DE: %d %s", first.Status, shape.Clip(first.Body)))
				}
				r := patch(t, b, x, key, jsonBody("FR"))
				shape.StatusAnswer(t, r, shape.Want{Rule: "IDEM-016", Status: http.StatusOK, What: "another API key using the same Idempotency-Key with another body", Why: "independent"})
				if j := jurisdiction(t, x); j != "FR" {
					t.Fatalf("IDEM-016", "the other API key's PATCH answered 200 but the jurisdiction is %s, want FR", j)
				}
				same(t, first, patch(t, a, x, key, jsonBody("DE")), "the first caller's identical retry after another caller used its key")

				y, key2 := createCustomer(t), t.NewKey()
				if r := patch(t, a, y, key2, jsonBody("DE")); r.Status != http.StatusOK {
					t.NoVerdict(errorf("PATCH jurisdiction DE: %d %s", r.Status, shape.Clip(r.Body)))
				}
				setJurisdiction(t, y, "FR")
				shape.StatusAnswer(t, patch(t, b, y, key2, jsonBody("DE")), shape.Want{Rule: "IDEM-016", Status: http.StatusOK, What: "another API key sending the identical request"})
				if j := jurisdiction(t, y); j != "DE" {
					t.Fatalf("IDEM-016", "another API key's identical request was replayed from the first caller's record (jurisdiction %s, want DE): it must execute", j)
				}
			},
		},
	}
}
