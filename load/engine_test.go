package load_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/touchstone-harness/touchstone/load"
)

// The engine bounds each request by the harness client's timeout (through
// the request's context, net/http's fast path), answers and bodies
// included: a target that never answers gives a result with no status and
// the deadline as its error, and one that answers is read whole.
func TestEngineBoundsEachRequestByTheClientTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			select {
			case <-r.Context().Done():
			case <-release:
			}
			return
		}
		w.Write([]byte(strings.Repeat("x", 100<<10)))
	}))
	defer srv.Close()
	defer close(release)
	eng := &load.Engine{HTTP: &http.Client{Timeout: 200 * time.Millisecond}}
	for _, c := range []struct {
		path   string
		code   uint16
		errHas string
		body   int
	}{{"/slow", 0, "deadline exceeded", 0}, {"/fast", 200, "", 64 << 10}} {
		var got []*vegeta.Result
		rec := load.NewRecorder(nil)
		a := load.Attack{Name: c.path, Targeter: load.Targets([]vegeta.Target{{Method: "GET", URL: srv.URL + c.path}}, nil), Pacer: load.Count{N: 1}, Workers: 1}
		if err := eng.Run(t.Context(), a, rec, func(r *vegeta.Result) { got = append(got, r) }); err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got[0].Code != c.code || !strings.Contains(got[0].Error, c.errHas) || len(got[0].Body) != c.body {
			t.Errorf("%s: %d results %+v; want status %d, error with %q, a body of %d bytes (MaxBody)", c.path, len(got), got, c.code, c.errHas, c.body)
		}
	}
}
