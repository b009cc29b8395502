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
