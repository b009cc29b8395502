package traffic

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

var (
	tooMany   = answer{status: http.StatusTooManyRequests, code: "rate_limited", retryAfter: "7"}
	ok        = answer{status: http.StatusOK}
	halfASec  = 500 * time.Millisecond
	sevenHalf = 7*time.Second + halfASec
)

// The one 429 rule: a 429 the plan did not ask for is waited out
// (Retry-After + 0.5 s) and the request sent again, at most three times.
func TestA429IsWaitedOutAndSentAgain(t *testing.T) {
	for _, c := range []struct {
		name    string
		answers []answer
		ctx     func(context.Context) context.Context
		path    string
		key     string
		sent    int
		status  int
		slept   []time.Duration
	}{
		{name: "one 429, Retry-After 7", answers: []answer{tooMany, ok}, sent: 2, status: 200, slept: []time.Duration{sevenHalf}},
		{name: "Retry-After 0", answers: []answer{{status: 429, code: "rate_limited", retryAfter: "0"}, ok}, sent: 2, status: 200, slept: []time.Duration{halfASec}},
		{name: "three 429s", answers: []answer{tooMany, tooMany, tooMany, ok}, sent: 4, status: 200, slept: []time.Duration{sevenHalf, sevenHalf, sevenHalf}},
		{name: "429s all along: three resends, then the 429", answers: []answer{tooMany}, sent: 4, status: 429, slept: []time.Duration{sevenHalf, sevenHalf, sevenHalf}},
		{name: "no Retry-After: a window", answers: []answer{{status: 429, code: "rate_limited"}, ok}, sent: 2, status: 200, slept: []time.Duration{Window}},
		{name: "a Retry-After that is no delay-seconds: a window", answers: []answer{{status: 429, code: "rate_limited", retryAfter: "Fri, 01 Jan 2027 00:00:00 GMT"}, ok}, sent: 2, status: 200, slept: []time.Duration{Window}},
		{name: "a 429 with no problem code", answers: []answer{{status: 429, retryAfter: "1"}, ok}, sent: 2, status: 200, slept: []time.Duration{time.Second + halfASec}},
		{name: "a failed authentication's 429", key: unknownKey, answers: []answer{{status: 429, code: "rate_limited", retryAfter: "12"}, {status: 401, code: CodeAuthenticationFailed}}, sent: 2, status: 401, slept: []time.Duration{12*time.Second + halfASec}},
		{name: "a 429 whose code is not rate_limited", answers: []answer{{status: 429, code: "quota_exceeded", retryAfter: "1"}, ok}, sent: 1, status: 429},
		{name: "a probe's own request", ctx: func(ctx context.Context) context.Context { return AsProbe(ctx, nil) }, answers: []answer{tooMany, ok}, sent: 1, status: 429},
		{name: "not an API request", path: "/openapi/v1.json", answers: []answer{tooMany, ok}, sent: 1, status: 429},
	} {
		t.Run(c.name, func(t *testing.T) {
			clock := &fakeClock{now: t0}
			p := planOn(clock)
			tgt := &scripted{answers: c.answers}
			tr := &Transport{Plan: p, Next: tgt}
			ctx := context.Background()
			if c.ctx != nil {
				ctx = c.ctx(ctx)
			}
			path, key := "/api/v1/partner/me", alphaKey
			if c.path != "" {
				path = c.path
			}
			if c.key != "" {
				key = c.key
			}
			if s := send(t, tr, request(ctx, http.MethodGet, path, key)); s != c.status {
				t.Errorf("answered %d, want %d", s, c.status)
			}
			if n := tgt.count(); n != c.sent {
				t.Errorf("sent %d times, want %d", n, c.sent)
			}
			if s := clock.slept(); !slices.Equal(s, c.slept) {
				t.Errorf("waited %v, want %v", s, c.slept)
			}
			if st := p.Stats(); st.Waited429 != len(c.slept) {
				t.Errorf("Waited429 = %d, want %d", st.Waited429, len(c.slept))
			}
		})
	}
}

// A resent request carries its body again; a body that cannot be had
// again (no GetBody) is not resent.
func TestA429dRequestIsResentWithItsBody(t *testing.T) {
	clock := &fakeClock{now: t0}
	p := planOn(clock)
	tgt := &scripted{answers: []answer{tooMany, ok}}
	tr := &Transport{Plan: p, Next: tgt}
	r, _ := http.NewRequest(http.MethodPost, "http://target/api/v1/partner/payouts", strings.NewReader(`{"amount":"1.00"}`))
	r.Header.Set("X-Api-Key", betaKey)
	if s := send(t, tr, r); s != http.StatusOK {
		t.Fatalf("answered %d", s)
	}
	if !slices.Equal(tgt.bodies, []string{`{"amount":"1.00"}`, `{"amount":"1.00"}`}) {
		t.Errorf("bodies sent %q", tgt.bodies)
	}

	tgt = &scripted{answers: []answer{tooMany, ok}}
	tr.Next = tgt
	r, _ = http.NewRequest(http.MethodPost, "http://target/api/v1/partner/payouts", io.NopCloser(bytes.NewReader([]byte("x"))))
	r.GetBody = nil
	r.Header.Set("X-Api-Key", betaKey)
	if s := send(t, tr, r); s != http.StatusTooManyRequests || tgt.count() != 1 {
		t.Errorf("a body that cannot be read again: answered %d after %d sends, want the 429 at once", s, tgt.count())
	}
}

// On a virtual clock a 429 moves the clock to its next minute: no sleep.
func TestA429OnAVirtualClockMovesItsMinute(t *testing.T) {
	v := newVirtualRig(t)
	tgt := &scripted{answers: []answer{tooMany, ok}}
	v.tr.Next = tgt
	if s := send(t, v.tr, meRequest()); s != http.StatusOK || tgt.count() != 2 || v.advances.Load() != 1 {
		t.Errorf("answered %d after %d sends, %d Advances; want 200 after 2, 1", s, tgt.count(), v.advances.Load())
	}
}

// The caller's context ending during the wait: the 429 is the caller's.
func TestA429WithTheContextEnding(t *testing.T) {
	clock := &fakeClock{now: t0}
	p := planOn(clock)
	ctx, cancel := context.WithCancel(context.Background())
	clock.onSleep = func(int) { cancel() }
	tgt := &scripted{answers: []answer{tooMany, ok}}
	tr := &Transport{Plan: p, Next: tgt}
	if s := send(t, tr, request(ctx, http.MethodGet, "/api/v1/partner/me", alphaKey)); s != http.StatusTooManyRequests || tgt.count() != 1 {
		t.Errorf("answered %d after %d sends, want the 429 after 1", s, tgt.count())
	}
}

// Admit waits as RoundTrip would, for a request sent outside it.
func TestAdmitWaitsLikeRoundTrip(t *testing.T) {
	v := newVirtualRig(t)
	for range RouteBudget - 10 {
		if err := v.tr.Admit(meRequest()); err != nil {
			t.Fatal(err)
		}
	}
	if v.advances.Load() != 0 {
		t.Fatal("moved early")
	}
	if err := v.tr.Admit(meRequest()); err != nil || v.advances.Load() != 1 {
		t.Errorf("Admit past the budget: %v, %d Advances", err, v.advances.Load())
	}
}
