package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/redact"
	"github.com/touchstone-harness/touchstone/internal/traffic"
)

// TestProgressOnAPlainConsole: not a terminal (a CI log): no carriage
// returns; a failure is printed when it happens with its rule ids; passes
// are not; a wait on a failed-auth window is announced with what it waits
// for and how long, and again while it lasts; the counts line says area,
// done / total and failures so far.
func TestProgressOnAPlainConsole(t *testing.T) {
	var out bytes.Buffer
	// One clock, read by the waiting check's goroutine and moved by the
	// test's.
	var mu sync.Mutex
	clock := time.Date(2026, 1, 1, 10, 0, 30, 0, time.UTC)
	now := func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	advance := func(d time.Duration) { mu.Lock(); clock = clock.Add(d); mu.Unlock() }
	pacer := traffic.New(nil)
	pacer.Now = now
	release := make(chan struct{})
	pacer.Sleep = func(ctx context.Context, d time.Duration) error { <-release; advance(d); return nil }
	p := newProgress(&out, redact.New(), 3, pacer)
	p.now = now

	p.result(&check.Result{ID: "auth/a", Area: "auth", Status: check.Passed}, "")
	p.result(&check.Result{ID: "auth/b", Area: "auth", Status: check.Failed, Failures: []check.Failure{{Rule: "AUTH-017", Message: "detail is wrong"}}}, "touchstone replay x")
	if s := out.String(); !strings.Contains(s, "FAILED  auth/b [AUTH-017]") || !strings.Contains(s, "[AUTH-017] detail is wrong") || !strings.Contains(s, "replay: touchstone replay x") || strings.Contains(s, "auth/a") {
		t.Fatalf("failure not printed as it happened (or a pass printed):\n%s", s)
	}

	// At 10:00:59 a failed authentication waits for the end of the next
	// minute, which a probe owns that budget in (10:02:02 with the
	// margin: 63 s).
	hc := &http.Client{Transport: &traffic.Transport{Plan: pacer, Next: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		h := http.Header{"Date": {now().Format(http.TimeFormat)}}
		return &http.Response{StatusCode: 401, Header: h, Body: io.NopCloser(strings.NewReader(`{}`)), Request: r}, nil
	})}}
	send := func() {
		if resp, err := hc.Get("http://target/api/v1/partner/me"); err == nil {
			resp.Body.Close()
		}
	}
	advance(29 * time.Second)
	pacer.Table.Build(now(), []*traffic.Slot{{Who: "auth/d", Auth: true}})
	send() // the target's clock is known from here on
	done := make(chan struct{})
	go func() { send(); close(done) }()
	for i := 0; i < 100; i++ {
		if w, _ := pacer.Waiting(); w != "" {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	p.tick()
	advance(16 * time.Second)
	p.tick() // still waiting, 15 s later: said again
	p.tick() // and not again at once
	close(release)
	<-done
	s := out.String()
	if strings.Contains(s, "\r") {
		t.Errorf("carriage return on a plain console:\n%q", s)
	}
	if n := strings.Count(s, "waiting "); n != 2 {
		t.Errorf("the wait was announced %d times, want 2 (start, and once 15 s later):\n%s", n, s)
	}
	for _, want := range []string{"[auth] 2/3 checks done, 1 failed; waiting 1m3s for the minute auth/d owns", "waiting 47s for"} {
		if !strings.Contains(s, want) {
			t.Errorf("no %q in:\n%s", want, s)
		}
	}
}

// TestProgressOnATerminal redraws one line in place and clears it before
// a failure and at the end.
func TestProgressOnATerminal(t *testing.T) {
	var out bytes.Buffer
	p := newProgress(&out, redact.New(), 2, nil)
	p.tty = true
	p.result(&check.Result{ID: "auth/a", Area: "auth", Status: check.Passed}, "")
	p.result(&check.Result{ID: "auth/b", Area: "auth", Status: check.Error, Error: "boom"}, "")
	p.finish()
	s := out.String()
	if !strings.Contains(s, "\r\x1b[K[auth] 1/2 checks done, 0 failed") || !strings.Contains(s, "NO VERDICT auth/b") || !strings.HasSuffix(s, "\r\x1b[K") {
		t.Errorf("terminal progress: %q", s)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
