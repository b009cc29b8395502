package traffic

import (
	"context"
	"net/http"
	"testing"
	"time"
)

const testKey = "svc_test_0123456789abcdef"

func bucket(tmpl string) Bucket { return Bucket{Key: testKey, Method: http.MethodGet, Template: tmpl} }

// getCtx is get with a context (a claim's requests carry theirs).
func getCtx(t *testing.T, ctx context.Context, c *http.Client, path string) int {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://target"+path, nil)
	req.Header.Set("X-Api-Key", testKey+".secret")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// heldSoon waits (bounded) until the plan shows a request held by a claim.
func heldSoon(t *testing.T, p *Plan) string {
	t.Helper()
	for i := 0; i < 500; i++ {
		if what, _ := p.Waiting(); what != "" {
			return what
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("no request was held")
	return ""
}

func TestClaimsOnDisjointBucketsShareAWindow(t *testing.T) {
	r := newRig(time.Date(2026, 1, 1, 10, 0, 10, 0, time.UTC))
	p := r.p
	c := r.serve(&fakeTarget{budget: 3})
	a := &Claim{Who: "probe-a", Buckets: []Bucket{bucket("/api/v1/partner/me")}, Tenant: 10}
	b := &Claim{Who: "probe-b", Buckets: []Bucket{bucket("/api/v1/partner/customers")}, Tenant: 10}
	if !p.TryClaim(a) || !p.TryClaim(b) {
		t.Fatal("two claims on untouched, disjoint buckets must both be granted in one window")
	}
	if p.TryClaim(&Claim{Who: "probe-c", Buckets: []Bucket{bucket("/api/v1/partner/me")}}) {
		t.Fatal("a second claim on an owned bucket was granted")
	}
	// The owner exhausts its bucket and sees the 429 itself, unaided.
	actx := WithClaim(context.Background(), a)
	var codes []int
	for i := 0; i < 4; i++ {
		codes = append(codes, getCtx(t, actx, c, "/api/v1/partner/me"))
	}
	if codes[3] != 429 || p.Windows() != 0 || p.Stats().Waited429 != 0 {
		t.Fatalf("the owner must see its own 429: %v, %d waits", codes, p.Windows())
	}
	// Another check's request to the owned bucket is held until the owner
	// releases it, then waits for a fresh window (the bucket is spent).
	done := make(chan int, 1)
	go func() { done <- get(t, c, "/api/v1/partner/me") }()
	if what := heldSoon(t, p); what == "" {
		t.Fatal("not held")
	}
	select {
	case s := <-done:
		t.Fatalf("a request to an owned bucket went through (%d)", s)
	default:
	}
	p.Release(a)
	if s := <-done; s != 200 {
		t.Fatalf("after the release the request answered %d, want 200 in a fresh window", s)
	}
	if r.at().Minute() != 1 {
		t.Errorf("the request to the spent bucket should have waited for the next minute; clock %s", r.at().Format("15:04:05"))
	}
	p.Release(b)
	if p.Claims() != 0 {
		t.Errorf("%d claims left", p.Claims())
	}
}

func TestAClaimOnATouchedBucketIsBookedForTheNextWindow(t *testing.T) {
	r := newRig(time.Date(2026, 1, 1, 10, 0, 10, 0, time.UTC))
	p := r.p
	c := r.serve(&fakeTarget{budget: RouteBudget})
	get(t, c, "/api/v1/partner/me") // someone touched it this minute
	a := &Claim{Who: "probe-a", Buckets: []Bucket{bucket("/api/v1/partner/me")}, Tenant: 700}
	if p.TryClaim(a) {
		t.Fatal("a claim on a bucket touched this window was granted: the probe would not find it fresh")
	}
	// Booked: nobody else touches it from now on.
	done := make(chan int, 1)
	go func() { done <- get(t, c, "/api/v1/partner/me") }()
	heldSoon(t, p)
	// Other buckets are not held.
	if s := get(t, c, "/api/v1/partner/customers"); s != 200 {
		t.Fatalf("an unclaimed bucket answered %d", s)
	}
	r.set(r.at().Add(time.Minute))
	if !p.TryClaim(a) {
		t.Fatal("a booked claim must be granted in the next window")
	}
	p.Release(a)
	if s := <-done; s != 200 {
		t.Fatalf("the held request answered %d", s)
	}
}

func TestTenantReservationHoldsOthersToTheNextWindow(t *testing.T) {
	r := newRig(time.Date(2026, 1, 1, 10, 0, 10, 0, time.UTC))
	p := r.p
	c := r.serve(&fakeTarget{budget: TenantBudget})
	a := &Claim{Who: "probe-a", Buckets: []Bucket{bucket("/api/v1/partner/me")}, Tenant: TenantBudget - tenantHeadroom - 5}
	if !p.TryClaim(a) {
		t.Fatal("not granted")
	}
	if p.TryClaim(&Claim{Who: "probe-b", Buckets: []Bucket{bucket("/api/v1/partner/customers")}, Tenant: 10}) {
		t.Fatal("a claim beyond the tenant's budget was granted")
	}
	for i := 0; i < 5; i++ {
		get(t, c, "/api/v2/public/customers")
	}
	if r.at().Minute() != 0 {
		t.Fatal("the room left by the reservation was not used")
	}
	get(t, c, "/api/v2/public/customers")
	if r.at().Minute() != 1 {
		t.Errorf("a request beyond the reservation's room must wait for the next window; clock %s", r.at().Format("15:04:05"))
	}
	p.Release(a)
}

func TestAWholeTenantClaimOwnsTheNextWindow(t *testing.T) {
	r := newRig(time.Date(2026, 1, 1, 10, 0, 10, 0, time.UTC))
	p := r.p
	c := r.serve(&fakeTarget{budget: TenantBudget})
	// A probe that spans a boundary is held when the whole-tenant claim is
	// granted: the whole claim's window is postponed until it ends.
	spans := &Claim{Who: "probe-a", Buckets: []Bucket{bucket("/api/v1/partner/me")}, Tenant: 10, Span: 2}
	if !p.TryClaim(spans) {
		t.Fatal("not granted")
	}
	whole := &Claim{Who: "ceiling", Whole: true}
	if !p.TryClaim(whole) {
		t.Fatal("a whole-tenant claim is granted for the next window")
	}
	if p.TryClaim(&Claim{Who: "ceiling-2", Whole: true}) {
		t.Fatal("a second whole-tenant claim was granted")
	}
	// While it waits, only a claim that ends within this window starts.
	if p.TryClaim(&Claim{Who: "probe-b", Buckets: []Bucket{bucket("/api/v1/partner/accounts")}, Span: 2}) {
		t.Fatal("a claim spanning a boundary was granted while a whole-tenant claim waits")
	}
	quick := &Claim{Who: "probe-c", Buckets: []Bucket{bucket("/api/v1/partner/fees")}, Tenant: 5}
	if !p.TryClaim(quick) {
		t.Fatal("a claim ending within the window must start while a whole-tenant claim waits")
	}
	p.Release(quick)
	// The rest of this window is everyone's.
	if s := get(t, c, "/api/v1/partner/customers"); s != 200 || r.at().Minute() != 0 {
		t.Fatalf("a request in the current window was held: %d at %s", s, r.at().Format("15:04:05"))
	}
	ctx := context.Background()
	// 10:01: probe-a still holds its claim: the window is postponed.
	r.set(time.Date(2026, 1, 1, 10, 1, 0, 500e6, time.UTC))
	if s := get(t, c, "/api/v1/partner/customers"); s != 200 || r.at().Minute() != 1 {
		t.Fatalf("a request was held in a window the whole-tenant claim had to give up: %d at %s", s, r.at().Format("15:04:05"))
	}
	p.Release(spans)
	start, err := p.AwaitWindow(ctx, whole)
	if err != nil {
		t.Fatal(err)
	}
	if want := time.Date(2026, 1, 1, 10, 2, 0, 0, time.UTC); !start.Equal(want) {
		t.Fatalf("its window starts %s, want %s (postponed once)", start, want)
	}
	done := make(chan int, 1)
	go func() { done <- get(t, c, "/api/v1/partner/customers") }()
	if what := heldSoon(t, p); what == "" {
		t.Fatal("not held")
	}
	if s := getCtx(t, WithClaim(ctx, whole), c, "/api/v1/partner/customers"); s != 200 {
		t.Fatalf("the owner's request answered %d", s)
	}
	p.Release(whole)
	if s := <-done; s != 200 {
		t.Fatalf("the held request answered %d", s)
	}
}

func TestEveryClaimIsGrantedOnAVirtualClock(t *testing.T) {
	p := New(func(context.Context) error { return nil })
	a := &Claim{Who: "a", Buckets: []Bucket{bucket("/x")}}
	b := &Claim{Who: "b", Buckets: []Bucket{bucket("/x")}, Whole: true}
	if !p.TryClaim(a) || !p.TryClaim(b) {
		t.Fatal("a virtual clock's checks run alone: their claims are granted")
	}
	p.Release(a)
	p.Release(b)
}

// TestAWaitForAnOwnerIsTheChecksWait: a request held while a claim owns
// its bucket waits its turn; the wait counts in its check's Waits, not
// against its deadline (a real-clock run saw checks cut off at 3 minutes
// while a probe owned GET /me).
func TestAWaitForAnOwnerIsTheChecksWait(t *testing.T) {
	r := newRig(time.Date(2026, 1, 1, 10, 0, 10, 0, time.UTC))
	p := r.p
	c := r.serve(&fakeTarget{budget: RouteBudget})
	a := &Claim{Who: "probe-a", Buckets: []Bucket{bucket("/api/v1/partner/me")}, Tenant: 10}
	if !p.TryClaim(a) {
		t.Fatal("not granted")
	}
	w := &Waits{}
	done := make(chan struct{})
	go func() { getCtx(t, WithWaits(context.Background(), w), c, "/api/v1/partner/me"); close(done) }()
	heldSoon(t, p)
	time.Sleep(30 * time.Millisecond)
	if got := w.Total(time.Now()); got < 20*time.Millisecond {
		t.Errorf("held behind an owner for 30 ms, the check's waits say %s", got)
	}
	p.Release(a)
	<-done
}

// TestAClaimWaitsForTheBudgetsItUses: a claim that sends a few valid calls
// to a route budget (Uses) is not granted while another claim owns it or
// while it is spent in this window (a probe exhausted it just before), and
// is granted in the next window.
func TestAClaimWaitsForTheBudgetsItUses(t *testing.T) {
	r := newRig(time.Date(2026, 1, 1, 10, 0, 10, 0, time.UTC))
	p := r.p
	c := r.serve(&fakeTarget{budget: RouteBudget})
	me := bucket("/api/v1/partner/me")
	probe := &Claim{Who: "probe", Buckets: []Bucket{me}, Tenant: RouteBudget}
	if !p.TryClaim(probe) {
		t.Fatal("the probe's claim was not granted")
	}
	user := &Claim{Who: "failed-auth", Uses: []Bucket{me}, Tenant: 10}
	if p.TryClaim(user) {
		t.Fatal("granted while another claim owns a budget it uses")
	}
	pctx := WithClaim(context.Background(), probe)
	for i := 0; i < RouteBudget; i++ {
		getCtx(t, pctx, c, "/api/v1/partner/me")
	}
	p.Release(probe)
	if p.TryClaim(user) {
		t.Fatal("granted while a budget it uses is spent in this window")
	}
	r.set(r.at().Add(time.Minute))
	get(t, c, "/api/v1/partner/customers") // the plan sees the new minute
	if !p.TryClaim(user) {
		t.Fatal("not granted in a fresh window")
	}
	if code := getCtx(t, WithClaim(context.Background(), user), c, "/api/v1/partner/me"); code != http.StatusOK {
		t.Errorf("its valid call answered %d", code)
	}
	p.Release(user)
}

// TestPendingFailuresAreReservedInTheWindowARequestGoesOutIn: a check
// reserved its failed authentication in one window, then waited (here for
// a claim's owner) into the next, which others filled: its request waits
// for a window with room instead of going out unreserved to meet the
// target's 429 (a real-clock run saw two such failures spoil the failed-
// auth probe's window).
func TestPendingFailuresAreReservedInTheWindowARequestGoesOutIn(t *testing.T) {
	r := newRig(time.Date(2026, 1, 1, 10, 0, 50, 0, time.UTC))
	p := r.p
	c := r.serve(&fakeTarget{budget: RouteBudget})
	owner := &Claim{Who: "probe", Buckets: []Bucket{bucket("/api/v1/partner/me")}, Tenant: 10}
	if !p.TryClaim(owner) {
		t.Fatal("not granted")
	}
	mine := p.Ticket("check")
	if !mine.TryReserve(1) {
		t.Fatal("no room")
	}
	ctx := WithTicket(context.Background(), mine, func() int { return 1 })
	done := make(chan time.Time)
	go func() {
		getCtx(t, ctx, c, "/api/v1/partner/me")
		done <- r.at()
	}()
	heldSoon(t, p)
	// The next window begins and another check fills it.
	r.set(time.Date(2026, 1, 1, 10, 1, 5, 0, time.UTC))
	other := p.Ticket("other")
	if !other.TryReserve(FailedAuthBudget) {
		t.Fatal("the new window should be free for the other check")
	}
	p.Release(owner)
	sent := <-done
	if sent.Before(time.Date(2026, 1, 1, 10, 2, 0, 0, time.UTC)) {
		t.Errorf("the request went out at %s, in a window others had filled; want it held to 10:02", sent.Format("15:04:05"))
	}
	other.Close()
}

// TestAKeyTheTargetNeverIssuedSpendsNoRouteBudget: a wrong secret is
// refused at the key step, before the rate limits: it is not held while a
// probe owns the key's GET /me, and counts in no route budget.
func TestAKeyTheTargetNeverIssuedSpendsNoRouteBudget(t *testing.T) {
	r := newRig(time.Date(2026, 1, 1, 10, 0, 10, 0, time.UTC))
	p := r.p
	p.ValidKey = func(k string) bool { return k == testKey+".secret" }
	c := r.serve(&fakeTarget{budget: RouteBudget})
	owner := &Claim{Who: "probe", Buckets: []Bucket{bucket("/api/v1/partner/me")}, Tenant: 10}
	if !p.TryClaim(owner) {
		t.Fatal("not granted")
	}
	req, _ := http.NewRequest(http.MethodGet, "http://target/api/v1/partner/me", nil)
	req.Header.Set("X-Api-Key", testKey+".wrong")
	done := make(chan struct{})
	go func() {
		if resp, err := c.Do(req); err == nil {
			resp.Body.Close()
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		t.Fatal("a wrong-secret request was held while a probe owns the key's GET /me")
	}
	if s := p.Stats(); s.Sent != 0 {
		t.Errorf("the wrong-secret request was counted in the budgets (%d sent)", s.Sent)
	}
	p.Release(owner)
}

// TestAWrongKeysFailureIsReservedToo: a request refused at the key step
// spends no route budget but is the failure itself: its holder's pending
// failures are reserved in the window it goes out in.
func TestAWrongKeysFailureIsReservedToo(t *testing.T) {
	r := newRig(time.Date(2026, 1, 1, 10, 0, 10, 0, time.UTC))
	p := r.p
	p.ValidKey = func(k string) bool { return k == testKey+".secret" }
	c := r.serve(&fakeTarget{budget: RouteBudget})
	full := p.Ticket("other")
	if !full.TryReserve(FailedAuthBudget) {
		t.Fatal("no room")
	}
	mine := p.Ticket("check")
	req, _ := http.NewRequestWithContext(WithTicket(context.Background(), mine, func() int { return 1 }), http.MethodGet, "http://target/api/v1/partner/me", nil)
	req.Header.Set("X-Api-Key", testKey+".wrong")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if r.at().Minute() != 1 {
		t.Errorf("the wrong-key request went out at %s, in a window others had filled; want it held to the next", r.at().Format("15:04:05"))
	}
	full.Close()
}

// TestTheLedgerNeverRollsBack: an estimate of the target's clock that
// moves back across a boundary (answers narrowing it around the minute)
// keeps the window's reservations; a real-clock run lost them so, and two
// checks' failures landed in the failed-auth probe's window.
func TestTheLedgerNeverRollsBack(t *testing.T) {
	r := newRig(time.Date(2026, 1, 1, 10, 1, 0, 300_000_000, time.UTC))
	p := r.p
	a := p.Ticket("a")
	if !a.TryReserve(FailedAuthBudget) {
		t.Fatal("no room at the start of a window")
	}
	// An answer stamped 10:00:59 arriving now: the target is behind us.
	p.observeDate("Thu, 01 Jan 2026 10:00:59 GMT", r.at().Add(-time.Millisecond), r.at())
	p.mu.Lock()
	p.roll()
	held := p.held
	p.mu.Unlock()
	if held != FailedAuthBudget {
		t.Errorf("after the clock estimate moved back across the boundary the ledger holds %d, want the %d reserved in the window", held, FailedAuthBudget)
	}
	a.Close()
}

// TestNoFailureIsSentAsAWindowEnds: a reservation made earlier is not
// used in the last seconds of a window (the failure could be counted in
// the next, which another check may hold whole): the request waits for
// the next window.
func TestNoFailureIsSentAsAWindowEnds(t *testing.T) {
	r := newRig(time.Date(2026, 1, 1, 10, 0, 30, 0, time.UTC))
	p := r.p
	c := r.serve(&fakeTarget{budget: RouteBudget})
	mine := p.Ticket("check")
	if !mine.TryReserve(1) {
		t.Fatal("no room")
	}
	r.set(time.Date(2026, 1, 1, 10, 0, 59, 500_000_000, time.UTC))
	req, _ := http.NewRequestWithContext(WithTicket(context.Background(), mine, func() int { return 1 }), http.MethodGet, "http://target/api/v1/partner/me", nil)
	req.Header.Set("X-Api-Key", testKey+".wrong")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if r.at().Minute() != 1 {
		t.Errorf("the failure went out at %s, half a second before the window ends; want it in the next", r.at().Format("15:04:05.000"))
	}
}

// TestNoClaimInTheRunsFirstMinute: the minute a run begins in may carry an
// earlier run's requests, which the plan never saw; a probe needing fresh
// budgets is granted from the next minute (a second run back to back met
// 429s within its first 600).
func TestNoClaimInTheRunsFirstMinute(t *testing.T) {
	r := newRig(time.Date(2026, 1, 1, 10, 0, 10, 0, time.UTC))
	p := r.p
	p.UntrustedFirstWindow = true
	probe := &Claim{Who: "probe", Buckets: []Bucket{bucket("/api/v1/partner/me")}, Tenant: RouteBudget}
	if p.TryClaim(probe) {
		t.Fatal("granted in the minute the run began in")
	}
	r.set(r.at().Add(time.Minute))
	if !p.TryClaim(probe) {
		t.Fatal("not granted in the run's first whole minute")
	}
	p.Release(probe)
}

// TestARefusalAtTheKeyStepGoesOutInAWholeTenantMinute: a request sent to
// be refused at the key step (a key lacking the route's scope) spends no
// rate budget on a conformant target, so it is neither counted nor held
// while a whole-tenant probe owns the minute; a request with the same key
// and no such expectation is held (on a real clock the route-scope
// tables waited out the whole-tenant minutes and the failed-auth windows
// ran on after them).
func TestARefusalAtTheKeyStepGoesOutInAWholeTenantMinute(t *testing.T) {
	r := newRig(time.Date(2026, 1, 1, 10, 0, 10, 0, time.UTC))
	p := r.p
	c := r.serve(&fakeTarget{budget: RouteBudget})
	whole := &Claim{Who: "ceiling", Whole: true}
	if !p.TryClaim(whole) {
		t.Fatal("not granted")
	}
	if _, err := p.AwaitWindow(context.Background(), whole); err != nil {
		t.Fatal(err)
	}
	in := r.at()
	refused := make(chan struct{})
	go func() {
		getCtx(t, ExpectKeyRefusal(context.Background()), c, "/api/v1/partner/customers")
		close(refused)
	}()
	select {
	case <-refused:
	case <-time.After(2 * time.Second):
		p.Release(whole)
		t.Fatal("a request meant to be refused at the key step was held in a whole-tenant minute")
	}
	after := r.at()
	if after != in {
		t.Errorf("a request meant to be refused at the key step waited from %s to %s in a whole-tenant minute", in.Format("15:04:05"), after.Format("15:04:05"))
	}
	if s := p.Stats(); s.Sent != 0 {
		t.Errorf("it was counted in the budgets (%d sent)", s.Sent)
	}
	held := make(chan struct{})
	go func() {
		get(t, c, "/api/v1/partner/customers")
		close(held)
	}()
	select {
	case <-held:
		t.Error("a request passing the key step went out in the minute a whole-tenant probe owns")
	case <-time.After(200 * time.Millisecond):
	}
	p.Release(whole)
	<-held
}

// TestAWaitingCheckLendsItsFailedAuthReservation: a check whose request
// waits for a probe's release gives its failed-auth reservation back to
// the run meanwhile (on a real clock checks holding reservations waited
// behind GET /me's owners while the failed-auth windows went unused), and
// reserves it again before the request goes out: here in the next
// window, since another check took the window's budget meanwhile.
func TestAWaitingCheckLendsItsFailedAuthReservation(t *testing.T) {
	r := newRig(time.Date(2026, 1, 1, 10, 0, 10, 0, time.UTC))
	p := r.p
	c := r.serve(&fakeTarget{budget: RouteBudget})
	owner := &Claim{Who: "probe", Buckets: []Bucket{bucket("/api/v1/partner/me")}, Tenant: 10}
	if !p.TryClaim(owner) {
		t.Fatal("not granted")
	}
	mine := p.Ticket("waiting")
	if !mine.TryReserve(15) {
		t.Fatal("no room")
	}
	ctx := WithTicket(context.Background(), mine, func() int { return 15 })
	done := make(chan int)
	go func() {
		done <- getCtx(t, ctx, c, "/api/v1/partner/me")
	}()
	other := p.Ticket("other")
	lent := false
	for range 200 {
		if other.TryReserve(15) {
			lent = true
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if !lent {
		p.Release(owner)
		<-done
		t.Fatal("the waiting check kept its 15 failed authentications reserved: no other check could take them")
	}
	p.Release(owner)
	<-done
	at := r.at()
	if at.Minute() != 1 {
		t.Errorf("the request went out at %s, in the window the other check holds 15 of; want it in the next, reserved there", at.Format("15:04:05"))
	}
	other.Close()
	mine.Close()
}
