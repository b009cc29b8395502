// Package openapicheck validates exchanges against the OpenAPI documents a
// target serves at /openapi/v1.json and /openapi/v2public.json: every
// response, and every request the target accepted.
package openapicheck

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/touchstone-harness/touchstone/internal/client"
)

// Documents are the paths where a target serves its descriptions.
var Documents = []string{"/openapi/v1.json", "/openapi/v2public.json"}

func init() {
	openapi3.DefineStringFormat("uuid", openapi3.FormatOfStringForUUIDOfRFC9562)
}

// Validator checks exchanges against loaded documents.
type Validator struct {
	docs    []*openapi3.T
	routers []routers.Router
}

// Load fetches, parses and validates the target's documents.
func Load(ctx context.Context, hc *http.Client, baseURL string) (*Validator, error) {
	v := &Validator{}
	for _, p := range Documents {
		raw, err := fetch(ctx, hc, baseURL+p)
		if err != nil {
			return nil, err
		}
		doc, err := Parse(raw, baseURL)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", p, err)
		}
		r, err := gorillamux.NewRouter(doc)
		if err != nil {
			return nil, fmt.Errorf("%s: router: %v", p, err)
		}
		v.docs = append(v.docs, doc)
		v.routers = append(v.routers, r)
	}
	return v, nil
}

// Parse loads and validates one document and points its servers at baseURL.
func Parse(raw []byte, baseURL string) (*openapi3.T, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(raw)
	if err != nil {
		return nil, fmt.Errorf("does not load: %v", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, fmt.Errorf("does not validate: %v", err)
	}
	doc.Servers = openapi3.Servers{{URL: baseURL}}
	return doc, nil
}

func fetch(ctx context.Context, hc *http.Client, u string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %v", u, err)
	}
	defer resp.Body.Close()
	raw, err := client.ReadBody(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %v", u, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetch %s: status %d", u, resp.StatusCode)
	}
	return raw, nil
}

// Docs returns the loaded documents.
func (v *Validator) Docs() []*openapi3.T { return v.docs }

// Validate checks one exchange's response. It returns nil when the response
// conforms, or when the request matches no documented operation (a check
// that sends to an undocumented path judges that answer itself).
func (v *Validator) Validate(ex *client.Exchange) error {
	if ex.Response == nil {
		return nil
	}
	req, route, params, err := v.find(ex, nil)
	if route == nil || err != nil {
		return err
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{
			Request: req, PathParams: params, Route: route,
			Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc},
		},
		Status: ex.Response.Status,
		Header: ex.Response.Header,
		Options: &openapi3filter.Options{
			IncludeResponseStatus: true,
			MultiError:            true,
		},
	}
	in.SetBodyBytes(bytes.Clone(ex.Response.Body))
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		return fmt.Errorf("%s %s → %d: %s", ex.Request.Method, req.URL.Path, ex.Response.Status, oneLine(err.Error()))
	}
	return nil
}

// MeantValid tells whether a request is one the harness meant to be valid,
// and so is judged against the documents: the target accepted it (a 2xx
// answer). Every request a check sends to provoke a refusal is answered
// 4xx by a target that honours the contract, and is not judged; a request a
// target accepted must be one its own documents admit, whatever the check
// meant, so judging it gives no false finding. (A check marking its
// malformed requests would be the other reading: one forgotten mark, and a
// deliberate refusal probe becomes a false finding.)
func MeantValid(ex *client.Exchange) bool {
	return ex.Response != nil && ex.Response.Status >= 200 && ex.Response.Status < 300
}

// HarnessError is a request the harness got wrong: its body is not what
// its own Content-Type says (not JSON under a JSON media type). No document
// can be blamed for it; the run reports it as no verdict.
type HarnessError struct{ Reason string }

func (e *HarnessError) Error() string { return "harness: " + e.Reason }

// ValidateRequest checks a request the target accepted (MeantValid)
// against the operation it matches: path, query and header parameters and
// the body, as kin-openapi's ValidateRequest reads them (security is not
// judged: the key is the checks' business). It returns nil when the
// request conforms, was not accepted, or matches no documented operation;
// a *HarnessError when the request is the harness's own mistake; any other
// error is a request the target accepted that its documents refuse.
func (v *Validator) ValidateRequest(ex *client.Exchange) error {
	if !MeantValid(ex) {
		return nil
	}
	body := ex.Request.Body
	req, route, params, err := v.find(ex, body)
	if route == nil || err != nil {
		return err
	}
	ct := req.Header.Get("Content-Type")
	if len(bytes.TrimSpace(body)) > 0 && isJSON(ct) && !json.Valid(body) {
		return &HarnessError{Reason: fmt.Sprintf("%s %s: the request body is not JSON though its Content-Type is %s", ex.Request.Method, req.URL.Path, ct)}
	}
	opts := &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, MultiError: true}
	// A body in a media type the operation does not describe (a text/plain
	// probe of replay protection, a body sent without a Content-Type) is
	// not judged, as a request matching no operation is not: the documents
	// say nothing about it. Its parameters still are.
	if rb := route.Operation.RequestBody; len(body) > 0 && rb != nil && rb.Value != nil && (ct == "" || rb.Value.Content.Get(ct) == nil) {
		opts.ExcludeRequestBody = true
	}
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route, Options: opts}
	if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
		return fmt.Errorf("%s %s (answered %d): %s", ex.Request.Method, req.URL.Path, ex.Response.Status, oneLine(err.Error()))
	}
	return nil
}

// isJSON tells whether a Content-Type is JSON (application/json or a
// +json type).
func isJSON(ct string) bool {
	mt, _, _ := strings.Cut(strings.ToLower(ct), ";")
	mt = strings.TrimSpace(mt)
	return mt == "application/json" || strings.HasSuffix(mt, "+json")
}

// find resolves the documented operation an exchange's request matches: the
// rebuilt request (headers in canonical form, body when given), its route
// and path parameters. route is nil when no document describes the request
// (an undocumented path or method, or the documents themselves).
func (v *Validator) find(ex *client.Exchange, body []byte) (*http.Request, *routers.Route, map[string]string, error) {
	u, err := url.Parse(ex.Request.URL)
	if err != nil || strings.HasPrefix(u.Path, "/openapi/") {
		return nil, nil, nil, nil
	}
	header := http.Header{}
	for k, vs := range ex.Request.Header {
		ck := http.CanonicalHeaderKey(k)
		header[ck] = append(header[ck], vs...)
	}
	req := &http.Request{Method: ex.Request.Method, URL: u, Header: header, Host: u.Host, Body: http.NoBody}
	if len(body) > 0 {
		req.Body, req.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
	}
	for _, r := range v.routers {
		route, params, err := r.FindRoute(req)
		if err != nil {
			if errors.Is(err, routers.ErrPathNotFound) || errors.Is(err, routers.ErrMethodNotAllowed) {
				continue
			}
			var re *routers.RouteError
			if errors.As(err, &re) {
				continue
			}
			return nil, nil, nil, fmt.Errorf("route: %v", err)
		}
		// Path parameters are judged decoded (the router hands them over
		// as they appear in the URL: "%20btc%20" for " btc ").
		for k, p := range params {
			if d, err := url.PathUnescape(p); err == nil {
				params[k] = d
			}
		}
		return req, route, params, nil
	}
	return nil, nil, nil, nil
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 600 {
		s = s[:600] + "…"
	}
	return s
}
