package idempotency

import (
	"net/http"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// A first attempt that returned non-2xx does not lock the key: a retry
// re-executes (document 1, Common rules).

func failureChecks() []check.Check {
	return []check.Check{
		{
			ID:     "idempotency/failed-attempt-does-not-lock",
			Title:  "after a 422 the same key with a corrected body executes (200), and after a 409 refusal an identical retry re-executes once the cause is gone",
			Rules:  []string{"IDEM-013", "CUST-022"},
			Labels: []string{check.Mutating}, Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				c := t.Client("tenant")
				id, key := createCustomer(t), t.NewKey()
				r := t.Do(c, client.Request{Method: http.MethodPatch, Path: customers + "/" + id, IdempotencyKey: key, JSON: map[string]any{"email": "not-an-email"}})
				if r.Status/100 == 2 {
					t.NoVerdict(errorf("PATCH with email not-an-email was accepted (%d); the check needs a refused first attempt", r.Status))
				}
				t.Logf("first attempt (invalid email): %d", r.Status)
				email := freshEmail()
				r = t.Do(c, client.Request{Method: http.MethodPatch, Path: customers + "/" + id, IdempotencyKey: key, JSON: map[string]any{"email": email}})
				shape.StatusAnswer(t, r, shape.Want{Rule: "IDEM-013", Status: http.StatusOK, What: "the same key with a valid email after a refused attempt", Why: "a failed attempt does not lock the key"})
				if ref := reference(t, id); ref != email {
					t.Fatalf("IDEM-013", "the corrected PATCH answered 200 but external_reference is %s, want %s", ref, email)
				}

				// The identical request, refused first (409 external_reference_in_use),
				// runs when retried after the conflicting customer moved away.
				x, z := createCustomer(t), createCustomer(t)
				taken, key2 := reference(t, z), t.NewKey()
				body := map[string]any{"external_reference": taken}
				r = t.Do(c, client.Request{Method: http.MethodPatch, Path: customers + "/" + x, IdempotencyKey: key2, JSON: body})
				if r.Status/100 == 2 {
					t.NoVerdict(errorf("PATCH to an external_reference in use was accepted (%d); the check needs a refused first attempt", r.Status))
				}
				t.Logf("first attempt (external_reference in use): %d", r.Status)
				r = t.Do(c, client.Request{Method: http.MethodPatch, Path: customers + "/" + z, IdempotencyKey: t.NewKey(), JSON: map[string]any{"external_reference": freshEmail()}})
				if r.Status != http.StatusOK {
					t.NoVerdict(errorf("cannot move the other customer's external_reference: %d %s", r.Status, shape.Clip(r.Body)))
				}
				r = t.Do(c, client.Request{Method: http.MethodPatch, Path: customers + "/" + x, IdempotencyKey: key2, JSON: body})
				shape.StatusAnswer(t, r, shape.Want{Rule: "IDEM-013", Status: http.StatusOK, What: "the identical retry of a refused PATCH", Why: "re-executed now that the reference is free"})
				if ref := reference(t, x); ref != taken {
					t.Fatalf("IDEM-013", "the retry answered 200 but external_reference is %s, want %s", ref, taken)
				}
			},
		},
	}
}
