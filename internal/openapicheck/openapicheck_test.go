package openapicheck

import (
	"context"
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
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(doc))
	})
	hc, _ := client.Transport("", 5*time.Second)
	v, err := Load(context.Background(), hc, srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Docs()) != len(Documents) {
		t.Fatalf("%d documents loaded", len(v.Docs()))
	}
	if err := v.Validate(exchange(srv.URL, `{"data":{"id":"x"}}`)); err != nil {
		t.Errorf("conforming response refused: %v", err)
	}
	if err := v.Validate(exchange(srv.URL, `{"data":{}}`)); err == nil {
		t.Error("response missing a required property accepted")
	}
	undocumented := exchange(srv.URL, `nonsense`)
	undocumented.Request.URL = srv.URL + "/nowhere"
	if err := v.Validate(undocumented); err != nil {
		t.Errorf("undocumented path judged: %v", err)
	}
}

func TestLoadRefusesBadDocuments(t *testing.T) {
	hc, _ := client.Transport("", 5*time.Second)
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
		saved := client.MaxBody
		client.MaxBody = 1 << 20
		_, err := Load(context.Background(), hc, srv.URL)
		client.MaxBody = saved
		if err == nil {
			t.Errorf("%s: loaded", name)
		} else if name == "endless" && !strings.Contains(err.Error(), "too large") {
			t.Errorf("endless document: %v", err)
		}
	}
}
