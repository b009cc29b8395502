package idempotency

// The unhandled 500 and the retry after it (document 2, Errors: status
// meaning; problem+json codes: "500 unhandled; a mutating retry with the
// same key re-executes, check state first").

import (
	"net/http"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// servererrorChecks are the checks of servererror.go.
func servererrorChecks() []check.Check {
	return []check.Check{
		{
			ID:         "idempotency/500-is-not-replayed",
			Alone:      check.WithControl,
			Title:      "an unexpected failure is 500 problem+json with no code, and the retry of that POST with the same key and body re-executes it (the 500 is not replayed)",
			Rules:      []string{"ERR-010", "ERR-027"},
			Labels:     []string{check.Mutating, check.NeedsControl},
			Needs:      []string{"keys.tenant"},
			ControlWhy: "a conformant target answers an unhandled 500 only when it fails unexpectedly, which no API request can cause: only the control API arms one",
			Run: func(t *check.T) {
				// Only a control API can make a conformant target fail on
				// purpose: arm one unhandled failure of POST /customers.
				if err := t.Control().Call(t.Context(), http.MethodPost, "/failures", map[string]any{"method": http.MethodPost, "route": api.P + "/customers", "count": 1}, nil); err != nil {
					t.NoVerdict(err)
				}
				req := client.Request{Method: http.MethodPost, Path: api.P + "/customers", IdempotencyKey: t.NewKey(),
					JSON: map[string]any{"email": fresh.Email(), "jurisdiction": "GB"}}
				r := t.Do(t.Client("tenant"), req)
				shape.ProblemAnswer(t, r, shape.Want{Status: http.StatusInternalServerError, Rule: "ERR-010", What: "POST /customers while an unexpected failure is armed"})
				retry := t.Do(t.Client("tenant"), req)
				if retry.Status/100 != 2 {
					t.FatalAt(retry, "ERR-027", "the retry with the same Idempotency-Key and body after a 500 answered %d; it must re-execute (a 500 is never replayed): %s", retry.Status, shape.Clip(retry.Body))
				}
				fresh.Setup(t, "ERR-027", retry, "the retry after a 500 creates the customer")
			},
		},
	}
}
