package shape

import (
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
)

// FlatOrRefusalAnswer asserts a refusal whose code the documents place
// either in a flat body's code member or in the envelope's data.code
// (document 1, Internal transfer rules; reading ITR-033): status (under
// Rule), media type application/json (MediaRule), then an object with a
// success member is read as the envelope (EnvelopeAnswer's refusal), any
// other as the flat body (FlatAnswer's), under ShapeRule. It returns the
// envelope's data or the flat body.
func FlatOrRefusalAnswer(t *check.T, r *client.Response, w Want) map[string]any {
	w.status(t, r, false)
	ContentType(t, w.mediaRule(), r, JSON)
	m := Object(t, w.shapeRule(), r)
	if _, envelope := m["success"]; envelope {
		return refusal(t, w.shapeRule(), r, w.Status, w.Code)
	}
	return flat(t, w.shapeRule(), r, w.Status, w.Code)
}
