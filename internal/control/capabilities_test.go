package control

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/touchstone-harness/touchstone/internal/client"
)

// TestLearnAndRefusals: what a control service serves is learnt from its
// capabilities, else its OpenAPI document, else taken as everything; a
// call it does not list is not sent; a listed call answered 404 (not "no
// such <resource>"), 405 or 501 is a refusal, a "no such customer" 404 is
// the world's answer.
func TestLearnAndRefusals(t *testing.T) {
	var sent []string
	mux := http.NewServeMux()
	caps, doc := true, true
	mux.HandleFunc("/capabilities", func(w http.ResponseWriter, r *http.Request) {
		if !caps {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(`{"contract":"touchstone-control","version":"1.0.0","operations":["verificationDecision","customerStatus","withdrawalFunds"]}`))
	})
	mux.HandleFunc("/openapi.json", func(w http.ResponseWriter, r *http.Request) {
		if !doc {
			w.WriteHeader(http.StatusNotImplemented)
			return
		}
		w.Write([]byte(`{"paths":{"/customers/{id}/status":{"post":{"operationId":"customerStatus"}}}}`))
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		sent = append(sent, r.URL.Path)
		switch r.URL.Path {
		case "/customers/gone/verification":
			w.WriteHeader(http.StatusNotFound)
			w.Write([]byte(`{"error":"no such customer"}`))
		case "/customers/c1/status":
			w.WriteHeader(http.StatusNotFound)
			w.Write([]byte(`404 page not found`))
		default:
			w.Write([]byte(`{}`))
		}
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	hc, _ := client.Transport("", 5*time.Second, 1<<20)
	ctx := context.Background()
	c := &Client{URL: srv.URL, HTTP: hc}
	var heard []error
	c.OnRefused = func(err error) { heard = append(heard, err) }
	if err := c.Learn(ctx); err != nil || c.ServedFrom != "capabilities" || !c.Serves("customerStatus") || c.Serves("payoutBatchSubmit") {
		t.Fatalf("learn from capabilities: %v %q", err, c.ServedFrom)
	}
	var ns *NotServedError
	if err := c.Call(ctx, http.MethodPost, "/payout-batches/b1/submit", map[string]any{}, nil); !errors.As(err, &ns) || ns.Op != "payoutBatchSubmit" {
		t.Errorf("a call not listed: %v", err)
	}
	var re *RefusedError
	if err := c.Call(ctx, http.MethodPost, "/customers/c1/status", map[string]any{}, nil); !errors.As(err, &re) || re.Op != "customerStatus" || re.Status != 404 {
		t.Errorf("a listed call refused: %v", err)
	}
	if err := c.Call(ctx, http.MethodPost, "/customers/gone/verification", map[string]any{}, nil); err == nil || errors.As(err, &re) {
		t.Errorf("no such customer is the world's answer, not a refusal: %v", err)
	}
	if len(sent) != 2 || len(heard) != 2 {
		t.Errorf("sent %v, heard %v", sent, heard)
	}
	caps = false
	if err := c.Learn(ctx); err != nil || c.ServedFrom != "openapi.json" || !c.Serves("customerStatus") || c.Serves("verificationDecision") {
		t.Errorf("learn from the OpenAPI document: %v %q", err, c.ServedFrom)
	}
	doc = false
	if err := c.Learn(ctx); err != nil || c.ServedFrom != "" || !c.Serves("payoutBatchSubmit") {
		t.Errorf("neither: every call taken as served: %v %q", err, c.ServedFrom)
	}
}
