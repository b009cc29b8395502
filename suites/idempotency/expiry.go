package idempotency

import (
	"net/http"
	"time"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// Keys are retained 24 hours (document 2, Limits), measured from the
// completion of the first attempt (IDEM-021), on the virtual clock.

func expiryChecks() []check.Check {
	return []check.Check{
		{
			ID:     "idempotency/expires-after-24h",
			Alone:  check.WithControl,
			Title:  "at 24h-1s a used key still conflicts (409) and replays; at 24h+1s the same key with another body executes",
			Rules:  []string{"IDEM-021", "IDEM-011", "IDEM-019", "CUST-022"},
			Labels: []string{check.Mutating, check.NeedsControl}, Needs: []string{"keys.tenant"},
			// A real clock would have the check wait a day.
			ControlWhy: "keys are retained 24 hours: judging both sides of expiry takes a clock moved by a day, which only the control API's virtual clock can do (a real clock would wait 24 h)",
			Run: func(t *check.T) {
				t.NeedVirtualClock()
				c := t.Client("tenant")
				x, key := createCustomer(t), t.NewKey()
				first := patch(t, c, x, key, jsonBody("DE"))
				if first.Status != http.StatusOK {
					t.NoVerdict(errorf("PATCH jurisdiction DE: %d %s", first.Status, shape.Clip(first.Body)))
				}
				advance(t, 24*time.Hour-time.Second)
				conflict(t, "IDEM-011", patch(t, c, x, key, jsonBody("FR")), "idempotency_key_reused", "another body with the key at 24h-1s")
				same(t, first, patch(t, c, x, key, jsonBody("DE")), "identical retry at 24h-1s")
				advance(t, 2*time.Second)
				r := patch(t, c, x, key, jsonBody("FR"))
				shape.StatusAnswer(t, r, shape.Want{Rule: "IDEM-021", Status: http.StatusOK, What: "at 24h+1s the key with another body", Why: "the key expired"})
				if j := jurisdiction(t, x); j != "FR" {
					t.Fatalf("IDEM-021", "at 24h+1s the PATCH answered 200 but the jurisdiction is %s, want FR", j)
				}
			},
		},
	}
}

func advance(t *check.T, d time.Duration) {
	if _, err := t.Control().Advance(t.Context(), d); err != nil {
		t.NoVerdict(err)
	}
}
