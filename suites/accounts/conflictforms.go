package accounts

import (
	"encoding/json"
	"net/http"

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

// flatForm fails (and stops the check) under rule unless r is the flat
// error body: application/json with title, detail and status, no envelope;
// what names the request. The code member is not judged.
func flatForm(t *check.T, rule string, r *client.Response, what string) {
	var m map[string]any
	_ = json.Unmarshal(r.Body, &m)
	_, hasSuccess := m["success"]
	_, hasTitle := m["title"]
	_, hasStatus := m["status"]
	if r.ContentType() != shape.JSON || hasSuccess || !hasTitle || !hasStatus {
		t.FatalAt(r, rule, "%s is not the flat error body (title, detail, status; Content-Type %q); body: %s", what, r.Header.Get("Content-Type"), shape.Clip(r.Body))
	}
}

// gateForm fails (and stops the check) under SVC-010 unless the 403 r of
// account opening's blocked-jurisdiction or currency-type gate is the flat
// body (the reading: both are policy gates, listed with the flat body in
// document 2); what names the request. The status and the code are the
// gate's own rules.
func gateForm(t *check.T, r *client.Response, what string) {
	if r.Status != http.StatusForbidden {
		return
	}
	var m map[string]any
	_ = json.Unmarshal(r.Body, &m)
	_, hasSuccess := m["success"]
	_, hasTitle := m["title"]
	if r.ContentType() != shape.JSON || hasSuccess || !hasTitle {
		t.FatalAt(r, "SVC-010", "%s: the 403 is not the flat body of a policy gate (title, detail, status, code; Content-Type %q); body: %s", what, r.Header.Get("Content-Type"), shape.Clip(r.Body))
	}
}
