package shape

import (
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
)

// FlatOrRefusal asserts a refusal whose code the documents place either in
// a flat body's code member or in the envelope's data.code (document 1,
// Internal transfer rules; reading ITR-033): an object with a success
// member is read as the envelope, any other as the flat body.
func FlatOrRefusal(t *check.T, rule string, r *client.Response, status int, code string) map[string]any {
	m := Object(t, rule, r)
	if _, envelope := m["success"]; envelope {
		return refusal(t, rule, r, status, code)
	}
	return Flat(t, rule, r, status, code)
}
