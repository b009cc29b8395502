package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// stallingTarget answers GET /me (the run's reachability probe) and then
// holds every request open without an answer until the client gives up.
func stallingTarget(t *testing.T) *httptest.Server {
	stop := make(chan struct{})
	var answered atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.URL.Path == "/api/v1/partner/me" && answered.CompareAndSwap(false, true) {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"data":{}}`))
			return
		}
		select {
		case <-r.Context().Done():
		case <-stop:
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(srv.CloseClientConnections)
	t.Cleanup(func() { close(stop) })
	return srv
}

// endlessTarget answers every request with 200 and a JSON body that never
// ends.
func endlessTarget(t *testing.T) *httptest.Server {
	chunk := bytes.Repeat([]byte(`{"a":[`), 4096)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		for r.Context().Err() == nil {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(srv.CloseClientConnections)
	return srv
}

// stoppedRun runs the default selection against srv as a new user would
// (a profile without the control API: a real clock, failed-auth windows
// and all, and the default pool), fails the test if the run does not end
// within bound, wants one of codes and its reports written, and returns
// results.json.
func stoppedRun(t *testing.T, srv *httptest.Server, bound time.Duration, env []string, codes ...int) (stdout, stderr string, doc map[string]any) {
	t.Helper()
	out := t.TempDir()
	start := time.Now()
	stdout, stderr, code := touchstoneWithin(t, bound, env, "run", "--target", plantedProfile(t, srv.URL, false), "--out", out)
	t.Logf("exit %d in %s (bound %s)", code, time.Since(start).Round(time.Millisecond), bound)
	if !slices.Contains(codes, code) {
		t.Errorf("exit %d, want one of %v\n%s\n%s", code, codes, tail(stdout), stderr)
	}
	raw, err := os.ReadFile(filepath.Join(out, "results.json"))
	if err != nil {
		t.Fatalf("results.json not written: %v", err)
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("results.json: %v", err)
	}
	if code == exitNoVerdict {
		if stopped, _ := doc["stopped"].(string); !strings.Contains(stopped, "stopped answering") || !strings.Contains(stderr, "stopped answering") {
			t.Errorf("neither results.json nor the console says the target stopped answering: stopped=%q\n%s", stopped, stderr)
		}
		if n, _ := doc["not_run"].(float64); n == 0 {
			t.Error("results.json counts no check not run")
		}
	}
	return stdout, stderr, doc
}

// A target that answers GET /me and then stalls every request is the
// run's no verdict within a bound, whatever the pool's size: once three
// checks in a row ended on a transport failure, the checks in flight end
// at once and the rest do not start (it took 538 s with 30 s request
// timeouts, each check waiting out its own timeout and the failed-auth
// windows). The request timeout is cut to 5 s to keep the test short:
// with the default 30 s the run takes about a minute (the served OpenAPI
// documents' fetch, then one request timeout).
func TestStalledTargetEndsTheRunWithinABound(t *testing.T) {
	srv := stallingTarget(t)
	stoppedRun(t, srv, 90*time.Second, []string{"TOUCHSTONE_REQUEST_TIMEOUT=5s"}, exitNoVerdict)
}

// A target whose every body is endless: each read is cut at the body
// bound (16 MiB by default) and counts as the target's transport failure,
// and the run ends with findings or no verdict within a bound (it did not
// end within 300 s).
func TestEndlessBodiesEndTheRunWithinABound(t *testing.T) {
	srv := endlessTarget(t)
	stdout, stderr, _ := stoppedRun(t, srv, 120*time.Second, nil, exitNoVerdict, exitFailed)
	if !strings.Contains(stdout+stderr, "response body too large") {
		t.Errorf("the console does not say a body was too large:\n%s\n%s", tail(stdout), stderr)
	}
}
