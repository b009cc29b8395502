package control

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

func TestCallsAreBoundedAndErrorsOneLine(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/_sandbox/clock":
			w.Write([]byte(`{"now":"2026-01-01T00:00:00Z","virtual":true}`))
		case "/_sandbox/endless":
			chunk := []byte(strings.Repeat("x", 64<<10))
			for r.Context().Err() == nil {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		default:
			w.WriteHeader(500)
			w.Write([]byte(strings.Repeat("E", 4096)))
		}
	}))
	defer srv.Close()
	hc, _ := client.Transport("", 5*time.Second, 1<<20)
	c := &Client{URL: srv.URL + "/_sandbox", HTTP: hc}
	clk, err := c.Clock(context.Background())
	if err != nil || !clk.Virtual {
		t.Fatalf("clock: %+v %v", clk, err)
	}
	var out map[string]any
	if err := c.Call(context.Background(), http.MethodGet, "/endless", nil, &out); !errors.Is(err, client.ErrBodyTooLarge) {
		t.Errorf("endless control answer: %v", err)
	}
	err = c.Call(context.Background(), http.MethodPost, "/broken", map[string]int{"a": 1}, nil)
	if err == nil || len(err.Error()) > 700 {
		t.Errorf("a 500 with a long body: error of %d bytes", len(err.Error()))
	}
}

// TestPurposes: a control call says what it does that the API cannot; a
// read of the clock needs no reason.
func TestPurposes(t *testing.T) {
	for _, c := range []struct{ method, template, want string }{
		{"GET", "/clock", ""},
		{"POST", "/clock/advance", "moving the clock"},
		{"POST", "/customers/{id}/verification", "the identity provider's decision"},
		{"POST", "/webhooks/emit", "emitting events"},
		{"POST", "/webhooks/hosts", "webhook destination policies"},
		{"POST", "/crypto-funds/{id}", "funded crypto balances"},
		{"POST", "/crypto/policy/{id}", "crypto policies, custodian outcomes, deposits and staff decisions"},
	} {
		if got := Purpose(c.method, c.template); got != c.want {
			t.Errorf("Purpose(%s %s) = %q, want %q", c.method, c.template, got, c.want)
		}
	}
}
