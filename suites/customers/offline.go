package customers

import (
	"fmt"
	"net/http"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// Document 1, States / Customer lifecycle: a refreshing read moves a
// customer whose latest case the provider approved to Active; "if the
// provider is unreachable the read still succeeds with the stored,
// possibly stale, status".

func offlineChecks() []check.Check {
	return []check.Check{
		{
			ID:     "customers/lifecycle-provider-unreachable-stale-read",
			Alone:  check.WithControl,
			Title:  "With the identity provider unreachable, refreshing reads of an approved customer answer 200 with the stored (stale) status; once it is reachable again the read activates",
			Rules:  []string{"LIFE-012", "LIFE-011", "CUST-022"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.tenant"},
			Run: func(t *check.T) {
				id, kind := fresh.Started(t, "LIFE-012")
				stored := fresh.Status(t, "LIFE-012", id)
				if stored == "Active" {
					t.NoVerdict(fmt.Errorf("a customer whose case nobody decided reads Active"))
				}
				fresh.Decide(t, id, "approved")
				restore := fresh.ProviderUnreachable(t)
				defer restore()

				reads := []struct{ what, path, field string }{
					{"GET customers/{id}", "/customers/" + id, "status"},
					{"GET onboarding/status", "/customers/" + id + "/onboarding/status", "customer_status"},
					{"GET onboarding/" + kind + "/status", "/customers/" + id + "/onboarding/" + kind + "/status", "customer_status"},
				}
				for _, rd := range reads {
					r := get(t, rd.path)
					d := shape.EnvelopeAnswer(t, r, shape.Want{Rule: "LIFE-012", Status: http.StatusOK, What: fmt.Sprintf("%s with the provider unreachable", rd.what), Why: "with the stored status"})
					if got := d[rd.field]; got != stored {
						t.Fatalf("LIFE-012", "%s with the provider unreachable answered %s %v, want the stored %s (the provider's approval cannot be read)", rd.what, rd.field, got, stored)
					}
				}
				if got := fresh.ListStatus(t, "LIFE-012", id); got != stored {
					t.Fatalf("LIFE-012", "after reads with the provider unreachable the customer is stored as %s, want %s", got, stored)
				}

				restore()
				if got := fresh.Status(t, "LIFE-011", id); got != "Active" {
					t.Fatalf("LIFE-011", "GET customers/{id} with the provider reachable again answered %s, want Active (the approved case)", got)
				}
			},
		},
	}
}
