package traffic

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeTarget answers like a target with the documented per-route budget
// on the same fake clock as the plan; it refuses with 429 what it counts
// beyond budget, and can be told that its window is already spent.
type fakeTarget struct {
	mu     sync.Mutex
	now    *time.Time
	counts map[string]int
	window time.Time
	budget int
	sent   int
	// spentUntil: another run spent every budget until then.
	spentUntil time.Time
}

func (f *fakeTarget) RoundTrip(r *http.Request) (*http.Response, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sent++
	if w := f.now.Truncate(time.Minute); !w.Equal(f.window) {
		f.window, f.counts = w, map[string]int{}
	}
	k := r.Method + " " + Template(r.URL.Path) + " " + r.Header.Get("X-Api-Key")
	h := http.Header{"Date": {f.now.UTC().Format(http.TimeFormat)}}
	if f.counts[k] >= f.budget || f.now.Before(f.spentUntil) {
		h.Set("Retry-After", "1")
		return &http.Response{StatusCode: 429, Header: h, Body: io.NopCloser(strings.NewReader(`{"status":429,"code":"rate_limited"}`)), Request: r}, nil
	}
	f.counts[k]++
	return &http.Response{StatusCode: 200, Header: h, Body: io.NopCloser(strings.NewReader(`{}`)), Request: r}, nil
}

func planOn(now *time.Time, mu *sync.Mutex) *Plan {
	p := New(nil)
	p.Now = func() time.Time { mu.Lock(); defer mu.Unlock(); return *now }
	p.Sleep = func(_ context.Context, d time.Duration) error { mu.Lock(); *now = now.Add(d); mu.Unlock(); return nil }
	return p
}

func get(t *testing.T, c *http.Client, path string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, "http://target"+path, nil)
	req.Header.Set("X-Api-Key", "svc_test_0123456789abcdef.secret")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func TestHoldsARouteAtItsBudgetUntilTheNextWindow(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 1, 1, 10, 0, 10, 0, time.UTC)
	p := planOn(&now, &mu)
	tgt := &fakeTarget{now: &now, budget: RouteBudget}
	c := &http.Client{Transport: &Transport{Plan: p, Next: tgt}}
	for i := 0; i < RouteBudget+50; i++ {
		if s := get(t, c, "/api/v1/partner/customers/"+[]string{"8c1b2c8e-58f5-4a59-9d60-8a8f1ddc7f4b", "2b1b2c8e-58f5-4a59-9d60-8a8f1ddc7f4b"}[i%2]); s != 200 {
			t.Fatalf("request %d answered %d: the plan let the route's budget overflow", i+1, s)
		}
	}
	if p.Windows() != 1 || now.Minute() != 1 {
		t.Errorf("want one wait into the next minute, got %d waits, clock %s", p.Windows(), now.Format("15:04:05"))
	}
	if st := p.Stats(); st.Sent != RouteBudget+50 || st.Busiest.Template != "/api/v1/partner/customers/{id}" {
		t.Errorf("stats %+v", st)
	}
}

func TestWaitsOutA429ItDidNotAskForAndSendsAgain(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 1, 1, 10, 0, 10, 0, time.UTC)
	p := planOn(&now, &mu)
	// Another run spent this window's budget before ours began.
	tgt := &fakeTarget{now: &now, budget: RouteBudget, spentUntil: time.Date(2026, 1, 1, 10, 1, 0, 0, time.UTC)}
	c := &http.Client{Transport: &Transport{Plan: p, Next: tgt}}
	done := make(chan int, 1)
	done <- get(t, c, "/api/v1/partner/me")
	if s := <-done; s != 200 {
		t.Fatalf("the request answered %d: a 429 the harness did not ask for reached the check", s)
	}
	if st := p.Stats(); st.Waited429 == 0 || tgt.sent < 2 {
		t.Errorf("want the 429 waited out and the request sent again; stats %+v, sent %d", st, tgt.sent)
	}
}

func TestAnOwnerSeesItsOwn429s(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 1, 1, 10, 0, 10, 0, time.UTC)
	p := planOn(&now, &mu)
	tgt := &fakeTarget{now: &now, budget: 3}
	c := &http.Client{Transport: &Transport{Plan: p, Next: tgt}}
	release := p.Own()
	defer release()
	codes := []int{}
	for i := 0; i < 4; i++ {
		codes = append(codes, get(t, c, "/api/v1/partner/me"))
	}
	if codes[3] != 429 || p.Windows() != 0 {
		t.Errorf("an owning check probing the budget must see the 429 unaided: %v, %d waits", codes, p.Windows())
	}
}

func TestLearnsTheTargetClockFromDate(t *testing.T) {
	var c dateClock
	local := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	// The target runs 90 s ahead; answers take 20 ms.
	for i := 0; i < 50; i++ {
		sent := local.Add(time.Duration(i) * 137 * time.Millisecond)
		target := sent.Add(90*time.Second + 10*time.Millisecond)
		c.observe(target.Truncate(time.Second).Format(http.TimeFormat), sent, sent.Add(20*time.Millisecond))
	}
	if off := c.offset(); off < 89500*time.Millisecond || off > 90500*time.Millisecond {
		t.Errorf("offset %s, want about 90s", off)
	}
	if c.hi-c.lo > 200*time.Millisecond {
		t.Errorf("bounds [%s, %s] did not narrow", c.lo, c.hi)
	}
}

func TestTemplates(t *testing.T) {
	for in, want := range map[string]string{
		"/api/v1/partner/customers/8c1b2c8e-58f5-4a59-9d60-8a8f1ddc7f4b?x=1":                        "/api/v1/partner/customers/{id}",
		"/api/v1/partner/customers/8c1b2c8e-58f5-4a59-9d60-8a8f1ddc7f4b/crypto/wallets/btc/address": "/api/v1/partner/customers/{id}/crypto/wallets/{asset}/address",
		"/api/v1/partner/me": "/api/v1/partner/me",
	} {
		if got := Template(in); got != want {
			t.Errorf("Template(%q) = %q, want %q", in, got, want)
		}
	}
}

// Eight refused failed authentications sent again after one window must
// not all go into the next one when it cannot take them.
func TestResendsAfterAFailedAuth429TakeTheirPlace(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 1, 1, 10, 0, 10, 0, time.UTC)
	p := planOn(&now, &mu)
	var tmu sync.Mutex
	perWindow := map[int]int{}
	next := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		tmu.Lock()
		defer tmu.Unlock()
		w := p.Now().Minute()
		h := http.Header{"Date": {p.Now().UTC().Format(http.TimeFormat)}}
		if w == 0 || perWindow[w] >= FailedAuthBudget {
			// The first window was spent by someone else.
			return &http.Response{StatusCode: 429, Header: h, Body: io.NopCloser(strings.NewReader(`{"code":"rate_limited","detail":"Too many failed authentication attempts."}`)), Request: r}, nil
		}
		perWindow[w]++
		return &http.Response{StatusCode: 401, Header: h, Body: io.NopCloser(strings.NewReader(`{"code":"api_key_authentication_failed"}`)), Request: r}, nil
	})
	p.used = 15 // the plan's own reservations still fitting this window
	c := &http.Client{Transport: &Transport{Plan: p, Next: next}}
	codes := map[int]int{}
	var cmu sync.Mutex
	var wg sync.WaitGroup
	for i := 0; i < 100; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := get(t, c, "/api/v1/partner/me")
			cmu.Lock()
			codes[s]++
			cmu.Unlock()
		}()
	}
	wg.Wait()
	if codes[429] != 0 {
		t.Errorf("answers %v: resends overfilled a window", codes)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
