package checkorder

// Document 2, Errors / Check order step 7 and problem+json codes: a body
// that cannot be bound (malformed JSON, wrong type) is 400 problem+json
// with an errors map of field to messages and no code.

import (
	"net/http"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
)

// bindingChecks are the checks of binding.go.
func bindingChecks() []check.Check {
	return []check.Check{
		{
			ID:     "checkorder/binding-400-errors-map",
			Title:  "an unbindable body (malformed JSON, wrong type) is 400 problem+json with an errors map and no code",
			Rules:  []string{"ERR-015", "ERR-020", "ERR-021"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant"},
			Run: func(t *check.T) {
				c := t.Client("tenant")
				malformed := t.Do(c, client.Request{Method: http.MethodPost, Path: api.P + "/customers", Body: malformedJSON, Header: jsonHeader(), IdempotencyKey: t.NewKey()})
				bindingError(t, "ERR-015", malformed, "POST /customers with malformed JSON")
				wrongType := t.Do(c, client.Request{Method: http.MethodPost, Path: api.P + "/customers", IdempotencyKey: t.NewKey(),
					JSON: map[string]any{"email": 12345, "jurisdiction": "GB"}})
				bindingError(t, "ERR-020", wrongType, "POST /customers with email a number")
			},
		},
	}
}
