// Package openapicheck validates responses against the OpenAPI documents a
// target serves at /openapi/v1.json and /openapi/v2public.json.
package openapicheck

import (
	"bytes"
	"context"
	"errors"
	"fmt"
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
	u, err := url.Parse(ex.Request.URL)
	if err != nil {
		return nil
	}
	if strings.HasPrefix(u.Path, "/openapi/") {
		return nil
	}
	req := &http.Request{Method: ex.Request.Method, URL: u, Header: ex.Request.Header.Clone(), Host: u.Host}
	for i, r := range v.routers {
		route, params, err := r.FindRoute(req)
		if err != nil {
			if errors.Is(err, routers.ErrPathNotFound) || errors.Is(err, routers.ErrMethodNotAllowed) {
				continue
			}
			var re *routers.RouteError
			if errors.As(err, &re) {
				continue
			}
			return fmt.Errorf("route: %v", err)
		}
		_ = i
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
			return fmt.Errorf("%s %s → %d: %s", ex.Request.Method, u.Path, ex.Response.Status, oneLine(err.Error()))
		}
		return nil
	}
	return nil
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 600 {
		s = s[:600] + "…"
	}
	return s
}
