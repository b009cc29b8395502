package checkorder

// Document 2, Errors / Status meaning and Policy-gate codes: a 404 (not
// found or not reachable by this key) is the flat error with code null,
// on an unknown route as on an unknown customer.

import (
	"fmt"
	"net/http"

	"github.com/google/uuid"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

func init() {
	check.Register(check.Check{
		ID:    "checkorder/not-found-flat-code-null",
		Title: "the 404 for an unknown route and for an unknown customer is flat with code null",
		Rules: []string{"ERR-004", "ERR-037", "ERR-013", "SCOPE-083"},
		Needs: []string{"keys.tenant"},
		Run: func(t *check.T) {
			c := t.Client("tenant")
			for what, path := range map[string]string{
				"an unknown v1 route":                   api.P + "/ts-no-such-route",
				"an unknown customer":                   api.P + "/customers/" + uuid.NewString(),
				"a sub-resource of an unknown customer": api.P + "/customers/" + uuid.NewString() + "/onboarding/status",
			} {
				r := t.Do(c, client.Request{Method: http.MethodGet, Path: path})
				shape.FlatAnswer(t, r, shape.Want{Rule: "ERR-004", Status: http.StatusNotFound, What: fmt.Sprintf("GET %s", what)})
			}
		},
	})
}
