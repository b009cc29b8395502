package faultproof

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"

	"github.com/touchstone-harness/touchstone/fixtures/sandbox"
	"github.com/touchstone-harness/touchstone/internal/catalogue"
	"github.com/touchstone-harness/touchstone/internal/check"
)

// Variant is a wrong server made from a faithful one: a loopback reverse
// proxy in front of a seeded sandbox that changes the answers of matching
// requests in one way (drops a header, changes a status or content type,
// removes or retypes a JSON field), so that exactly one rule is broken.
// The checks that name the rule must fail under its id; like a fault
// mode's, a variant's checks of other areas are not run, and a failure
// under a rule of another area is reported as imprecise.
type Variant struct {
	Name        string
	Rule        string
	Description string
	// Match selects the requests whose answers are changed (the control
	// API is never proxied).
	Match func(r *http.Request) bool
	// Change edits the answer in place.
	Change func(r *http.Request, a *Answer)
}

// Answer is a proxied answer a variant may change.
type Answer struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body (numbers kept exact); nil when it is not JSON.
func (a *Answer) JSON() any {
	d := json.NewDecoder(bytes.NewReader(a.Body))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return nil
	}
	return v
}

// SetJSON replaces the body with v.
func (a *Answer) SetJSON(v any) {
	raw, err := json.Marshal(v)
	if err == nil {
		a.Body = raw
	}
}

// EditJSON applies f to the decoded body and stores the result; a body
// that is not JSON is left as it is.
func (a *Answer) EditJSON(f func(v any) any) {
	if v := a.JSON(); v != nil {
		a.SetJSON(f(v))
	}
}

// ProveVariant runs the checks naming the variant's rule against a faithful
// sandbox seen through the variant.
func ProveVariant(ctx context.Context, v Variant) Outcome {
	o := Outcome{Fault: v.Name, Rule: v.Rule, Description: v.Description, Source: VariantSource + v.Name}
	var checks []*check.Check
	for _, c := range check.ForRule(v.Rule) {
		if runnable(c) {
			checks = append(checks, c)
			o.Checks = append(o.Checks, c.ID)
		}
	}
	if len(checks) == 0 {
		o.Note = "no check names rule " + v.Rule
		return o
	}
	run, err := sandbox.StartVirtual(1, "")
	if err != nil {
		o.Note = "sandbox did not start: " + err.Error()
		return o
	}
	defer run.Close()
	srv := httptest.NewServer(variantProxy(run.BaseURL, v))
	defer srv.Close()
	p := *run.Profile
	p.BaseURL = srv.URL
	tgt, err := check.NewTarget(ctx, &p, true)
	if err != nil {
		o.Note = "target: " + err.Error()
		return o
	}
	for _, c := range checks {
		o.record(c, check.Run(ctx, tgt, c))
	}
	o.finish()
	return o
}

// variantProxy forwards to base, changing the answers v matches.
func variantProxy(base string, v Variant) http.Handler {
	u, _ := url.Parse(base)
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.ModifyResponse = func(resp *http.Response) error {
		req := resp.Request
		if strings.HasPrefix(req.URL.Path, sandbox.ControlPrefix) || !v.Match(req) {
			return nil
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		a := &Answer{Status: resp.StatusCode, Header: resp.Header, Body: body}
		v.Change(req, a)
		resp.StatusCode = a.Status
		resp.Status = strconv.Itoa(a.Status) + " " + http.StatusText(a.Status)
		resp.Header = a.Header
		resp.Header.Set("Content-Length", strconv.Itoa(len(a.Body)))
		resp.ContentLength = int64(len(a.Body))
		resp.Body = io.NopCloser(bytes.NewReader(a.Body))
		return nil
	}
	return rp
}

// Variants are the wrong-server variants, each breaking one rule: one per
// code-to-status sentence of the error catalogue, then the table of
// variants.go's hand-written ones.
func Variants() []Variant {
	var out []Variant
	for _, cs := range catalogue.MustLoad().CodeStatuses() {
		out = append(out, codeStatusVariant(cs))
	}
	return append(out, variants...)
}

// codeStatusVariant answers the code with another status (409, or 422 for
// a 409 code), the body's status member changed with it: only the
// sentence giving the code its status is broken.
func codeStatusVariant(cs catalogue.CodeStatus) Variant {
	other := http.StatusConflict
	if cs.Status == http.StatusConflict {
		other = http.StatusUnprocessableEntity
	}
	return Variant{
		Name:        "status-of-" + cs.Code + "-" + strings.ToLower(cs.Rule),
		Rule:        cs.Rule,
		Description: fmt.Sprintf("%s answered %d instead of %d", cs.Code, other, cs.Status),
		Match:       func(*http.Request) bool { return true },
		Change: func(_ *http.Request, a *Answer) {
			if a.Status != cs.Status || answerCode(a) != cs.Code {
				return
			}
			a.Status = other
			a.EditJSON(func(v any) any {
				m, ok := v.(map[string]any)
				if !ok {
					return v
				}
				for _, k := range []string{"status_code", "status"} {
					if _, ok := m[k]; ok {
						m[k] = other
					}
				}
				return m
			})
		},
	}
}

// answerCode is the code an error answer carries (envelope data.code, or
// the flat or problem+json code member).
func answerCode(a *Answer) string {
	m, ok := a.JSON().(map[string]any)
	if !ok {
		return ""
	}
	if data, ok := m["data"].(map[string]any); ok {
		if c, ok := data["code"].(string); ok {
			return c
		}
	}
	c, _ := m["code"].(string)
	return c
}

var variants []Variant
