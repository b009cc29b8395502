// Package shape reads the response shapes the spec defines (document 2,
// Errors / Three body shapes; document 1, Response envelope) and asserts
// them exactly, under the rule id the caller names.
package shape

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
)

// Media types as documented.
const (
	JSON    = "application/json"
	Problem = "application/problem+json"
)

// statusIs asserts the HTTP status (the body helpers' own check, after
// Want.status).
func statusIs(t *check.T, rule string, r *client.Response, want int) {
	if r.Status != want {
		t.FatalAt(r, rule, "status %d, want %d; body: %s", r.Status, want, Clip(r.Body))
	}
}

// Object decodes the body as a JSON object or fails under rule.
func Object(t *check.T, rule string, r *client.Response) map[string]any {
	m, err := r.JSON()
	if err != nil {
		t.FatalAt(r, rule, "%d response: %v; body: %s", r.Status, err, Clip(r.Body))
	}
	return m
}

// ContentType asserts the media type (parameters ignored, case-insensitive).
func ContentType(t *check.T, rule string, r *client.Response, want string) {
	if got := r.ContentType(); got != want {
		t.FatalAt(r, rule, "Content-Type %q, want %s", r.Header.Get("Content-Type"), want)
	}
}

// problem asserts a problem+json response: status, media type, the
// members type/title/status/detail, status equal to the HTTP status, and
// code equal to want (want "" means no code: absent or null). The body of
// ProblemAnswer.
func problem(t *check.T, rule string, r *client.Response, status int, code string) map[string]any {
	codeAtWrongStatus(t, r, status, code)
	statusIs(t, rule, r, status)
	ContentType(t, rule, r, Problem)
	m := Object(t, rule, r)
	for _, k := range []string{"type", "title", "detail"} {
		if _, ok := m[k].(string); !ok {
			t.FatalAt(r, rule, "problem member %q is %v, want a string", k, m[k])
		}
	}
	if n, ok := m["status"].(json.Number); !ok || n.String() != strconv.Itoa(status) {
		t.FatalAt(r, rule, "problem status member is %v, want %d", m["status"], status)
	}
	got, present := m["code"]
	switch {
	case code == "" && present && got != nil:
		t.FatalAt(r, rule, "problem code is %v, want none", got)
	case code != "" && got != code:
		t.FatalAt(r, rule, "problem code is %v, want %q", got, code)
	}
	return m
}

// envelope asserts a v1 envelope: media type, success, status_code equal to
// the HTTP status, message string, data present. It returns data.
func envelope(t *check.T, rule string, r *client.Response, status int) map[string]any {
	statusIs(t, rule, r, status)
	ContentType(t, rule, r, JSON)
	m := Object(t, rule, r)
	wantSuccess := status < 300
	if s, ok := m["success"].(bool); !ok || s != wantSuccess {
		t.FatalAt(r, rule, "envelope success is %v, want %v", m["success"], wantSuccess)
	}
	if n, ok := m["status_code"].(json.Number); !ok || n.String() != strconv.Itoa(status) {
		t.FatalAt(r, rule, "envelope status_code is %v, want %d", m["status_code"], status)
	}
	if _, ok := m["message"].(string); !ok {
		t.FatalAt(r, rule, "envelope message is %v, want a string", m["message"])
	}
	data, ok := m["data"].(map[string]any)
	if !ok {
		t.FatalAt(r, rule, "envelope data is %v, want an object", m["data"])
	}
	return data
}

// refusal asserts an operation refusal: envelope with success false, the
// status repeated, data.code equal to code and data.detail present.
func refusal(t *check.T, rule string, r *client.Response, status int, code string) map[string]any {
	codeAtWrongStatus(t, r, status, code)
	data := envelope(t, rule, r, status)
	if data["code"] != code {
		t.FatalAt(r, rule, "data.code is %v, want %q", data["code"], code)
	}
	if _, ok := data["detail"]; !ok {
		t.FatalAt(r, rule, "data.detail is missing")
	}
	return data
}

// flat asserts the flat error shape: title, detail, status and code (want
// "" means code must be null). The body of FlatAnswer.
func flat(t *check.T, rule string, r *client.Response, status int, code string) map[string]any {
	codeAtWrongStatus(t, r, status, code)
	statusIs(t, rule, r, status)
	ContentType(t, rule, r, JSON)
	m := Object(t, rule, r)
	for _, k := range []string{"title", "detail"} {
		if _, ok := m[k].(string); !ok {
			t.FatalAt(r, rule, "flat error member %q is %v, want a string", k, m[k])
		}
	}
	if n, ok := m["status"].(json.Number); !ok || n.String() != strconv.Itoa(status) {
		t.FatalAt(r, rule, "flat error status is %v, want %d", m["status"], status)
	}
	got, present := m["code"]
	switch {
	case code == "" && (!present || got != nil):
		t.FatalAt(r, rule, "flat error code is %v (present %v), want null", got, present)
	case code != "" && got != code:
		t.FatalAt(r, rule, "flat error code is %v, want %q", got, code)
	}
	return m
}

// Get walks a dotted path ("data.customer.id") through decoded JSON.
func Get(v any, path string) (any, bool) {
	for _, p := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		v, ok = m[p]
		if !ok {
			return nil, false
		}
	}
	return v, true
}

// String reads a string at path or fails under rule.
func String(t *check.T, rule string, v any, path string) string {
	x, ok := Get(v, path)
	s, isStr := x.(string)
	if !ok || !isStr {
		t.Fatalf(rule, "%s is %v, want a string", path, x)
	}
	return s
}

// Int reads an integer at path or fails under rule.
func Int(t *check.T, rule string, v any, path string) int {
	x, ok := Get(v, path)
	n, isNum := x.(json.Number)
	if !ok || !isNum {
		t.Fatalf(rule, "%s is %v, want an integer", path, x)
	}
	i, err := strconv.Atoi(n.String())
	if err != nil {
		t.Fatalf(rule, "%s is %v, want an integer", path, x)
	}
	return i
}

// Array reads an array at path or fails under rule.
func Array(t *check.T, rule string, v any, path string) []any {
	x, ok := Get(v, path)
	a, isArr := x.([]any)
	if !ok || !isArr {
		t.Fatalf(rule, "%s is %v, want an array", path, x)
	}
	return a
}

// SameResponse asserts two responses are byte-identical in status,
// Content-Type and body (what "byte-identical" can mean across two
// requests: Date and X-Correlation-Id differ per response).
func SameResponse(t *check.T, rule string, a, b *client.Response, what string) {
	if a.Status != b.Status || a.Header.Get("Content-Type") != b.Header.Get("Content-Type") || string(a.Body) != string(b.Body) {
		t.FatalAt(b, rule, "%s: responses differ:\n  %d %s %s\n  %d %s %s", what,
			a.Status, a.Header.Get("Content-Type"), Clip(a.Body), b.Status, b.Header.Get("Content-Type"), Clip(b.Body))
	}
}

// Clip shortens a body for a failure message.
func Clip(b []byte) string {
	if len(b) > 600 {
		return fmt.Sprintf("%s… (%d bytes)", b[:600], len(b))
	}
	return string(b)
}

// Equal fails under rule unless got and want are deeply equal; what names
// the comparison in the failure message.
func Equal(t *check.T, rule string, got, want any, what string, args ...any) {
	if !reflect.DeepEqual(got, want) {
		t.Fatalf(rule, "%s:\n  got  %v\n  want %v", fmt.Sprintf(what, args...), got, want)
	}
}
