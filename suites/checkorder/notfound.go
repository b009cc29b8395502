package checkorder

// Document 2, Errors / Status meaning and Policy-gate codes: a 404 (not
// found or not reachable by this key) is the flat error with code null,
// on an unknown route as on an unknown customer.

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/google/uuid"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// notfoundChecks are the checks of notfound.go.
func notfoundChecks() []check.Check {
	return []check.Check{
		{
			ID:    "checkorder/not-found-flat-code-null",
			Title: "the 404 for an unknown route and for an unknown customer is flat with code null",
			Rules: []string{"ERR-004", "ERR-037", "ERR-013"},
			Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				c := t.Client("tenant")
				// An unknown route is ERR-004's 404; an unknown id ERR-037's.
				for _, x := range []struct{ what, path, rule string }{
					{"an unknown v1 route", api.P + "/ts-no-such-route", "ERR-004"},
					{"an unknown customer", api.P + "/customers/" + uuid.NewString(), "ERR-037"},
					{"a sub-resource of an unknown customer", api.P + "/customers/" + uuid.NewString() + "/onboarding/status", "ERR-037"},
				} {
					r := t.Do(c, client.Request{Method: http.MethodGet, Path: x.path})
					// A code on one 404 does not hide the others' (each under its rule).
					var m map[string]any
					if r.Status == http.StatusNotFound && json.Unmarshal(r.Body, &m) == nil && m["code"] != nil {
						t.Errorf(x.rule, "GET %s: 404 code is %v, want null", x.what, m["code"])
						continue
					}
					// The flat shape's members (title, detail, status, code) are ERR-013's.
					shape.FlatAnswer(t, r, shape.Want{Rule: x.rule, ShapeRule: "ERR-013", MediaRule: x.rule, Status: http.StatusNotFound, What: fmt.Sprintf("GET %s", x.what)})
				}
			},
		},
	}
}
