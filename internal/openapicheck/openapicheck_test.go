package openapicheck

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/touchstone-harness/touchstone/internal/client"
)

const doc = `{"openapi":"3.0.3","info":{"title":"t","version":"1"},"paths":{"/api/v1/partner/me":{"get":{"operationId":"me","responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"type":"object","required":["data"],"properties":{"data":{"type":"object","required":["id"],"properties":{"id":{"type":"string"}}}}}}}}}}}}}`

func serve(t *testing.T, h http.HandlerFunc) *httptest.Server {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

func exchange(base, body string) *client.Exchange {
	return &client.Exchange{
		Request:  client.RequestRecord{Method: "GET", URL: base + "/api/v1/partner/me", Header: http.Header{}},
		Response: &client.ResponseRecord{Status: 200, Header: http.Header{"Content-Type": {"application/json"}}, Body: []byte(body)},
	}
}

func TestLoadAndValidate(t *testing.T) {
	v, base := loadDoc(t, doc)
	if len(v.Docs()) != len(Documents) {
		t.Fatalf("%d documents loaded", len(v.Docs()))
	}
	if err := v.Validate(exchange(base, `{"data":{"id":"x"}}`)); err != nil {
		t.Errorf("conforming response refused: %v", err)
	}
	if err := v.Validate(exchange(base, `{"data":{}}`)); err == nil {
		t.Error("response missing a required property accepted")
	}
	undocumented := exchange(base, `nonsense`)
	undocumented.Request.URL = base + "/nowhere"
	if err := v.Validate(undocumented); err != nil {
		t.Errorf("undocumented path judged: %v", err)
	}
}

func TestLoadRefusesBadDocuments(t *testing.T) {
	hc, _ := client.Transport("", 5*time.Second, 1<<20)
	for name, h := range map[string]http.HandlerFunc{
		"status 404": func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) },
		"not json":   func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("<html>")) },
		"endless": func(w http.ResponseWriter, r *http.Request) {
			chunk := []byte(strings.Repeat(" ", 64<<10))
			for r.Context().Err() == nil {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		},
	} {
		srv := serve(t, h)
		_, err := Load(context.Background(), hc, srv.URL)
		if err == nil {
			t.Errorf("%s: loaded", name)
		} else if name == "endless" && !strings.Contains(err.Error(), "too large") {
			t.Errorf("endless document: %v", err)
		}
	}
}

// reqDoc describes one write: a JSON body with a required string member
// and a required Idempotency-Key header.
const reqDoc = `{"openapi":"3.0.3","info":{"title":"t","version":"1"},"paths":{"/api/v1/partner/customers":{"post":{"operationId":"createCustomer",
"parameters":[{"name":"Idempotency-Key","in":"header","required":true,"schema":{"type":"string","minLength":8}},{"name":"dry","in":"query","schema":{"type":"boolean"}}],
"requestBody":{"required":true,"content":{"application/json":{"schema":{"type":"object","required":["email"],"properties":{"email":{"type":"string","minLength":1}}}}}},
"responses":{"201":{"description":"ok"},"422":{"description":"refused"}}}},
"/api/v1/partner/wallets/{asset}":{"get":{"operationId":"wallet","parameters":[{"name":"asset","in":"path","required":true,"schema":{"type":"string","pattern":"^\\s*[Bb][Tt][Cc]\\s*$"}}],
"responses":{"200":{"description":"ok"}}}}}}`

func loadDoc(t *testing.T, doc string) (*Validator, string) {
	t.Helper()
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(doc))
	})
	hc, _ := client.Transport("", 5*time.Second, 1<<20)
	v, err := Load(context.Background(), hc, srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return v, srv.URL
}

func write(base string, status int, header http.Header, body string) *client.Exchange {
	h := http.Header{"Content-Type": {"application/json"}, "Idempotency-Key": {"ts-0123456789"}}
	for k, vs := range header {
		h[k] = vs
	}
	return &client.Exchange{
		Request:  client.RequestRecord{Method: "POST", URL: base + "/api/v1/partner/customers", Header: h, Body: []byte(body)},
		Response: &client.ResponseRecord{Status: status, Header: http.Header{}},
	}
}

// ValidateRequest judges the requests the target accepted (2xx) against
// the operation they match, and tells the harness's own mistakes apart.
func TestValidateRequest(t *testing.T) {
	v, base := loadDoc(t, reqDoc)
	var harness *HarnessError
	for _, tc := range []struct {
		name    string
		ex      *client.Exchange
		want    string // "": conforms or not judged; else a substring of the mismatch
		harness bool
	}{
		{name: "valid", ex: write(base, 201, nil, `{"email":"a@example.com"}`)},
		{name: "required member missing", ex: write(base, 201, nil, `{"name":"x"}`), want: `property "email" is missing`},
		{name: "member of the wrong type", ex: write(base, 201, nil, `{"email":5}`), want: "email"},
		{name: "required header missing", ex: write(base, 201, http.Header{"Idempotency-Key": nil}, `{"email":"a@example.com"}`), want: "Idempotency-Key"},
		{name: "header key in raw lower case", ex: write(base, 201, http.Header{"Idempotency-Key": nil, "idempotency-key": {"ts-0123456789"}}, `{"email":"a@example.com"}`)},
		{name: "query parameter of the wrong type", ex: func() *client.Exchange {
			ex := write(base, 201, nil, `{"email":"a@example.com"}`)
			ex.Request.URL += "?dry=maybe"
			return ex
		}(), want: "dry"},
		{name: "refused request is not judged", ex: write(base, 422, nil, `{"name":"x"}`)},
		{name: "no answer is not judged", ex: func() *client.Exchange { ex := write(base, 201, nil, `{}`); ex.Response = nil; return ex }()},
		{name: "undocumented path is not judged", ex: func() *client.Exchange {
			ex := write(base, 201, nil, `{}`)
			ex.Request.URL = base + "/nowhere"
			return ex
		}()},
		{name: "body not JSON under a JSON type", ex: write(base, 201, nil, `{"email":`), harness: true},
		{name: "body in an undescribed media type is not judged", ex: write(base, 201, http.Header{"Content-Type": {"text/plain"}}, `{"name":"x"}`)},
		{name: "body without a Content-Type is not judged", ex: write(base, 201, http.Header{"Content-Type": nil}, `{"name":"x"}`)},
		{name: "parameters of an undescribed body still are", ex: write(base, 201, http.Header{"Content-Type": {"text/plain"}, "Idempotency-Key": nil}, `{}`), want: "Idempotency-Key"},
		{name: "path parameter judged decoded", ex: func() *client.Exchange {
			ex := write(base, 200, nil, "")
			ex.Request.Method, ex.Request.URL = "GET", base+"/api/v1/partner/wallets/%20btc%20"
			return ex
		}()},
		{name: "path parameter that does not match", ex: func() *client.Exchange {
			ex := write(base, 200, nil, "")
			ex.Request.Method, ex.Request.URL = "GET", base+"/api/v1/partner/wallets/%20doge%20"
			return ex
		}(), want: "asset"},
	} {
		err := v.ValidateRequest(tc.ex)
		switch {
		case tc.harness:
			if !errors.As(err, &harness) {
				t.Errorf("%s: %v, want a harness error", tc.name, err)
			}
		case tc.want == "":
			if err != nil {
				t.Errorf("%s: %v, want no finding", tc.name, err)
			}
		case err == nil || errors.As(err, &harness) || !strings.Contains(err.Error(), tc.want):
			t.Errorf("%s: %v, want a mismatch naming %q", tc.name, err, tc.want)
		}
	}
}
