package client

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/touchstone-harness/touchstone/internal/traffic"
)

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func meRequest() *http.Request {
	r, _ := http.NewRequest(http.MethodGet, "http://target/api/v1/partner/me", nil)
	r.Header.Set("X-Api-Key", "pk_sandbox_alpha.secret")
	return r
}

// The client's timeout bounds each attempt, never the traffic plan's waits
// around it (a client-wide timeout cut a real-clock run's waits at 30 s and
// its checks failed on the 429 they were waiting out).
func TestTheTimeoutBoundsAttemptsNotWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var calls atomic.Int32
		answers := func(r *http.Request) (*http.Response, error) {
			if calls.Add(1) == 1 {
				h := http.Header{"Retry-After": {"7"}, "Content-Type": {"application/problem+json"}}
				return &http.Response{StatusCode: 429, Header: h, Body: io.NopCloser(strings.NewReader(`{"code":"rate_limited"}`)), Request: r}, nil
			}
			return &http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(strings.NewReader("{}")), Request: r}, nil
		}
		bound := &AttemptBound{Next: roundTripFunc(answers), Timeout: 50 * time.Millisecond}
		tr := &traffic.Transport{Plan: traffic.New(nil), Next: bound} // the bubble's clock: the plan really waits 7.5 s
		start := time.Now()
		resp, err := tr.RoundTrip(meRequest())
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("%v %v: the wait for Retry-After was cut by the attempt's timeout", resp, err)
		}
		if d := time.Since(start); d != 7500*time.Millisecond {
			t.Errorf("took %s, want 7.5s", d)
		}

		// An attempt that gets no answer is cut.
		calls.Store(0)
		bound.Next = roundTripFunc(func(r *http.Request) (*http.Response, error) {
			calls.Add(1)
			<-r.Context().Done()
			return nil, r.Context().Err()
		})
		start = time.Now()
		_, err = tr.RoundTrip(meRequest())
		if err == nil || !strings.Contains(err.Error(), "no answer within 50ms") || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("a target that never answers: %v", err)
		}
		if d := time.Since(start); d != 50*time.Millisecond || calls.Load() != 1 {
			t.Errorf("cut after %s and %d attempts, want 50ms and 1", d, calls.Load())
		}

		// A body that never ends is cut too; reading it within the
		// timeout is fine.
		bound.Next = roundTripFunc(func(r *http.Request) (*http.Response, error) {
			pr, pw := io.Pipe()
			go func() {
				pw.Write([]byte("{"))
				<-r.Context().Done()
				pw.CloseWithError(r.Context().Err())
			}()
			return &http.Response{StatusCode: 200, Header: http.Header{}, Body: pr, Request: r}, nil
		})
		resp, err = tr.RoundTrip(meRequest())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadAll(resp.Body); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("a body that never ends: %v", err)
		}
		resp.Body.Close()
	})
}
