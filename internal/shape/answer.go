package shape

import (
	"fmt"
	"net/url"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
)

// Want is a documented answer to one request: its status, its code, and
// the rules it is checked under. It is the one way to assert a response:
// pass it to the helper of the body shape the documents give that answer
// (ProblemAnswer, FlatAnswer, EnvelopeAnswer; FlatOrRefusalAnswer when
// they allow the flat body or the envelope's refusal; StatusAnswer when
// they leave the body open), which checks the status, the media type, the members and
// the code, and writes the evidence (the request, what came back, the
// exchange) itself:
//
//	r := t.Do(c, client.Request{Method: http.MethodPost, Path: path, JSON: body})
//	d := shape.EnvelopeAnswer(t, r, shape.Want{Rule: "CWD-024", Status: http.StatusUnprocessableEntity, Code: "whitelisted_address_asset_mismatch"})
//
// suites/idiom_test.go holds the areas to it.
type Want struct {
	// Status and Code are the documented answer. Code "" means none: no
	// code member (problem+json), code null (flat), not checked (success
	// envelope).
	Status int
	Code   string
	// Rule is the rule that gives this request this answer: a wrong
	// status fails under it.
	Rule string
	// ShapeRule is the rule for the body (members and code); default Rule.
	ShapeRule string
	// MediaRule is the rule for the Content-Type; default ShapeRule.
	MediaRule string
	// What names the request in the evidence; default its method and path.
	What string
	// Why is added to a wrong-status message (e.g. "the key step comes
	// before rate limits").
	Why string
	// Continue (StatusAnswer only): a wrong status is recorded and the
	// check goes on, for a check that judges every request of a series;
	// by default a wrong status stops the check.
	Continue bool
}

func (w Want) shapeRule() string {
	if w.ShapeRule != "" {
		return w.ShapeRule
	}
	return w.Rule
}

func (w Want) mediaRule() string {
	if w.MediaRule != "" {
		return w.MediaRule
	}
	return w.shapeRule()
}

// what names the request: w.What, else "METHOD /path" from the exchange.
func (w Want) what(r *client.Response) string {
	if w.What != "" {
		return w.What
	}
	if r != nil && r.Exchange != nil {
		path := r.Exchange.Request.URL
		if u, err := url.Parse(path); err == nil {
			path = u.Path
		}
		return r.Exchange.Request.Method + " " + path
	}
	return "the request"
}

// status fails under w.Rule unless r has the wanted status, stopping the
// check unless cont; it tells whether r has the wanted status.
func (w Want) status(t *check.T, r *client.Response, cont bool) bool {
	if r.Status == w.Status {
		return true
	}
	if rule := codeStatusRule(t, w.Code, w.Status); rule != "" && BodyCode(r) == w.Code {
		// The wanted code at another status: the request was refused for
		// the right reason, and the error catalogue's sentence giving that
		// code its status is the one broken (the check declares it).
		msg := "%s: the answer carries %s with status %d; the error catalogue gives it %d; body: %s"
		if cont {
			t.ErrorAt(r, rule, msg, w.what(r), w.Code, r.Status, w.Status, Clip(r.Body))
			return false
		}
		t.FatalAt(r, rule, msg, w.what(r), w.Code, r.Status, w.Status, Clip(r.Body))
		return false
	}
	want := fmt.Sprint(w.Status)
	if w.Code != "" {
		want += " " + w.Code
	}
	why := ""
	if w.Why != "" {
		why = " (" + w.Why + ")"
	}
	msg := "%s: status %d, want %s%s; body: %s"
	if cont {
		t.ErrorAt(r, w.Rule, msg, w.what(r), r.Status, want, why, Clip(r.Body))
		return false
	}
	t.FatalAt(r, w.Rule, msg, w.what(r), r.Status, want, why, Clip(r.Body))
	return false
}

// StatusAnswer asserts only the status (under Rule), for an answer whose
// body the documents leave open; the evidence names the request. It tells
// whether the status is the wanted one (false only with Continue: a wrong
// status otherwise stops the check).
func StatusAnswer(t *check.T, r *client.Response, w Want) bool {
	return w.status(t, r, w.Continue)
}

// ProblemAnswer asserts the documented problem+json answer: status (under
// Rule), media type application/problem+json (MediaRule), the members
// type, title, status and detail, and the code (ShapeRule). It returns the
// body.
func ProblemAnswer(t *check.T, r *client.Response, w Want) map[string]any {
	w.status(t, r, false)
	ContentType(t, w.mediaRule(), r, Problem)
	return problem(t, w.shapeRule(), r, w.Status, w.Code)
}

// FlatAnswer asserts the documented flat error: status (under Rule), media
// type application/json (MediaRule), title, detail, status and the code,
// null when Code is "" (ShapeRule). It returns the body.
func FlatAnswer(t *check.T, r *client.Response, w Want) map[string]any {
	w.status(t, r, false)
	ContentType(t, w.mediaRule(), r, JSON)
	return flat(t, w.shapeRule(), r, w.Status, w.Code)
}

// EnvelopeAnswer asserts the documented v1 envelope: status (under Rule),
// media type application/json (MediaRule), success, status_code, message
// and data (ShapeRule); for a refusal (Code set) data.code and
// data.detail. It returns data.
func EnvelopeAnswer(t *check.T, r *client.Response, w Want) map[string]any {
	w.status(t, r, false)
	ContentType(t, w.mediaRule(), r, JSON)
	if w.Code != "" {
		return refusal(t, w.shapeRule(), r, w.Status, w.Code)
	}
	return envelope(t, w.shapeRule(), r, w.Status)
}
