package accounts

import (
	"encoding/json"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// The three bodies of a 409 (document 2, Errors / Status meaning: "409 |
// conflict: operation refusal (envelope), compliance hold (flat), or
// idempotency conflict (problem+json)"; ERR-005).
const (
	formEnvelope = "the envelope (success, status_code, message, data.code)"
	formFlat     = "the flat body (title, detail, status, code; no envelope)"
	formProblem  = "problem+json"
)

// conflictForm fails (and stops the check) under ERR-005 unless the 409 r
// has the body form want; what names the request. It judges the form
// only: the status and the code are the rules of the refusal itself.
func conflictForm(t *check.T, r *client.Response, want, what string) {
	var m map[string]any
	_ = json.Unmarshal(r.Body, &m)
	_, hasSuccess := m["success"]
	_, hasData := m["data"]
	_, hasTitle := m["title"]
	envelope := hasSuccess && hasData
	var ok bool
	switch want {
	case formEnvelope:
		ok = r.ContentType() == shape.JSON && envelope
	case formFlat:
		ok = r.ContentType() == shape.JSON && !envelope && hasTitle
	case formProblem:
		ok = r.ContentType() == shape.Problem && !envelope && hasTitle
	}
	if !ok {
		t.FatalAt(r, "ERR-005", "%s: the 409 is not %s (Content-Type %q); body: %s", what, want, r.Header.Get("Content-Type"), shape.Clip(r.Body))
	}
}

// accountIn is data.account of an opening's answer (nil when absent).
func accountIn(r *client.Response) map[string]any {
	var m struct {
		Data struct {
			Account map[string]any `json:"account"`
		} `json:"data"`
	}
	_ = json.Unmarshal(r.Body, &m)
	return m.Data.Account
}
