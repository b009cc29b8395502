package traffic

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// Keys the fake target issued. readOnlyKey lacks the scope of every
// method but GET: it is refused with 403 api_key_not_authorized there.
const (
	alphaKey    = "svc_alpha.secret-a"
	betaKey     = "svc_beta.secret-b"
	readOnlyKey = "svc_ro.secret-r"
	unknownKey  = "svc_nobody.never-issued"
)

func issued(key string) bool { return key == alphaKey || key == betaKey || key == readOnlyKey }

// fakeTarget answers like the documented target (document 2, Limits and
// Check order) on a clock of its own: the plan's clock (now) plus offset.
// It counts every request that reaches it in the FIXED clock minute of
// its own clock it lands in: per route budget (key, method, template),
// per tenant (every request that passes the key step) and failed
// authentications (no key, a key it never issued, a key lacking the
// route's scope); beyond a budget it answers 429 rate_limited with
// Retry-After (whole seconds to its next minute).
type fakeTarget struct {
	now    func() time.Time // the plan's clock; nil: time.Now
	offset time.Duration

	mu     sync.Mutex
	route  map[Bucket]map[time.Time]int
	tenant map[time.Time]int
	auth   map[time.Time]int
	status map[int]int
	// log is every request's time on the target's clock and what it
	// spent ("auth", or its bucket).
	log []logged
}

type logged struct {
	at     time.Time
	bucket Bucket
	auth   bool
}

func (f *fakeTarget) clock() time.Time {
	if f.now != nil {
		return f.now().Add(f.offset)
	}
	return time.Now().Add(f.offset)
}

func (f *fakeTarget) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		io.Copy(io.Discard, r.Body)
		r.Body.Close()
	}
	now := f.clock()
	m := now.Truncate(Window)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.route == nil {
		f.route, f.tenant, f.auth, f.status = map[Bucket]map[time.Time]int{}, map[time.Time]int{}, map[time.Time]int{}, map[int]int{}
	}
	answer := func(status int, code string) (*http.Response, error) {
		f.status[status]++
		h := http.Header{"Date": {now.UTC().Format(http.TimeFormat)}, "Content-Type": {"application/problem+json"}}
		if status == http.StatusTooManyRequests {
			h.Set("Retry-After", fmt.Sprint(int(m.Add(Window).Sub(now).Seconds()+0.999)))
		}
		body := "{}"
		if code != "" {
			body = fmt.Sprintf(`{"status":%d,"code":%q}`, status, code)
		}
		return &http.Response{StatusCode: status, Header: h, Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
	}
	key := keyOf(r.Header)
	if !strings.HasPrefix(r.URL.Path, "/api/") {
		return answer(http.StatusOK, "")
	}
	// Check order 3: the key, with the failed-auth budget.
	if key == "" || !issued(key) || (key == readOnlyKey && r.Method != http.MethodGet) {
		f.auth[m]++
		f.log = append(f.log, logged{at: now, auth: true})
		if f.auth[m] > FailedAuthBudget {
			return answer(http.StatusTooManyRequests, "rate_limited")
		}
		if key != "" && issued(key) {
			return answer(http.StatusForbidden, CodeNotAuthorized)
		}
		return answer(http.StatusUnauthorized, CodeAuthenticationFailed)
	}
	// Check order 4: the route's budget, then the tenant's.
	b := BucketOf(r)
	if f.route[b] == nil {
		f.route[b] = map[time.Time]int{}
	}
	f.route[b][m]++
	f.tenant[m]++
	f.log = append(f.log, logged{at: now, bucket: b})
	if f.route[b][m] > RouteBudget || f.tenant[m] > TenantBudget {
		return answer(http.StatusTooManyRequests, "rate_limited")
	}
	return answer(http.StatusOK, "")
}

// minutes is the target's clock minutes from first to last (inclusive).
func minutesOf(counts ...map[time.Time]int) []time.Time {
	var all []time.Time
	for _, c := range counts {
		for m := range c {
			all = append(all, m)
		}
	}
	if len(all) == 0 {
		return nil
	}
	lo, hi := slices.MinFunc(all, time.Time.Compare), slices.MaxFunc(all, time.Time.Compare)
	var out []time.Time
	for m := lo; !m.After(hi); m = m.Add(Window) {
		out = append(out, m)
	}
	return out
}

// worstSpan is the most requests of log matching keep in any half-open
// 60-second span [t, t+60 s): the busiest clock minute of a target whose
// minute starts anywhere.
func worstSpan(log []logged, keep func(logged) bool) (n int, from time.Time) {
	var ts []time.Time
	for _, l := range log {
		if keep(l) {
			ts = append(ts, l.at)
		}
	}
	slices.SortFunc(ts, time.Time.Compare)
	j := 0
	for i := range ts {
		for j < len(ts) && ts[j].Before(ts[i].Add(Window)) {
			j++
		}
		if j-i > n {
			n, from = j-i, ts[i]
		}
	}
	return n, from
}

// scripted is a target that answers from a script, one answer per
// request, the last one again once the script is spent.
type scripted struct {
	mu      sync.Mutex
	answers []answer
	sent    []*http.Request
	bodies  []string
}

type answer struct {
	status     int
	code       string
	retryAfter string // "" for none
}

func (s *scripted) RoundTrip(r *http.Request) (*http.Response, error) {
	body := ""
	if r.Body != nil {
		b, _ := io.ReadAll(r.Body)
		r.Body.Close()
		body = string(b)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.answers[min(len(s.sent), len(s.answers)-1)]
	s.sent = append(s.sent, r)
	s.bodies = append(s.bodies, body)
	h := http.Header{}
	if a.retryAfter != "" {
		h.Set("Retry-After", a.retryAfter)
	}
	b := "{}"
	if a.code != "" {
		b = fmt.Sprintf(`{"status":%d,"code":%q}`, a.status, a.code)
	}
	return &http.Response{StatusCode: a.status, Header: h, Body: io.NopCloser(strings.NewReader(b)), Request: r}, nil
}

func (s *scripted) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.sent)
}

// fakeClock is a plan clock that moves only when the plan sleeps (or the
// test sets it); it records the plan's sleeps.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	sleeps []time.Duration
	// onSleep, when set, runs after each sleep (the clock moved).
	onSleep func(n int)
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *fakeClock) set(t time.Time) { c.mu.Lock(); c.now = t; c.mu.Unlock() }

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.sleeps = append(c.sleeps, d)
	n, f := len(c.sleeps), c.onSleep
	c.mu.Unlock()
	if f != nil {
		f(n)
	}
	return ctx.Err()
}

func (c *fakeClock) slept() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.sleeps)
}

// planOn is a real-clock plan (no Advance) on c.
func planOn(c *fakeClock) *Plan {
	p := New(nil)
	p.Now, p.Sleep = c.Now, c.Sleep
	p.ValidKey = issued
	return p
}

var t0 = time.Date(2026, 1, 1, 10, 0, 10, 0, time.UTC)

// request is an API request with key (none when "").
func request(ctx context.Context, method, path, key string) *http.Request {
	r, err := http.NewRequestWithContext(ctx, method, "http://target"+path, nil)
	if err != nil {
		panic(err)
	}
	if key != "" {
		r.Header.Set("X-Api-Key", key)
	}
	return r
}

// send sends r through tr and returns its status (the body read and
// closed).
func send(t testing.TB, tr http.RoundTripper, r *http.Request) int {
	t.Helper()
	resp, err := tr.RoundTrip(r)
	if err != nil {
		t.Errorf("%s %s: %v", r.Method, r.URL.Path, err)
		return 0
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}
