package faultproof

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/touchstone-harness/touchstone/fixtures/sandbox"
	"github.com/touchstone-harness/touchstone/internal/check"
)

// wrongServer honours nothing: every API request is 200 with an empty
// success envelope, no OpenAPI documents are served, and its control API
// accepts every call and reports a virtual clock, so that checks which
// need control run too.
func wrongServer() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case strings.HasPrefix(r.URL.Path, sandbox.ControlPrefix+"/"):
			_, _ = w.Write([]byte(`{"now":"2026-11-02T10:00:30Z","virtual":true}`))
		case strings.HasPrefix(r.URL.Path, "/openapi/"):
			w.WriteHeader(http.StatusNotFound)
		default:
			_, _ = w.Write([]byte(`{"success":true,"status_code":200,"message":"ok","data":{}}`))
		}
	}))
}

// AgainstWrongServer runs every runnable check against a server that
// honours nothing, with the fixtures of a seeded sandbox's profile. A check
// that passes there proves nothing unless a fault mode catches it.
func AgainstWrongServer(ctx context.Context) ([]*check.Result, error) {
	srv := wrongServer()
	defer srv.Close()
	p := sandbox.New(sandbox.Config{Seed: 1}).Profile(srv.URL)
	tgt, err := check.NewTarget(ctx, p, false)
	if err != nil {
		return nil, err
	}
	var out []*check.Result
	for _, c := range check.All() {
		if runnable(c) {
			out = append(out, check.Run(ctx, tgt, c))
		}
	}
	return out, nil
}
