package traffic

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"
)

var (
	meBucket        = Bucket{Key: "svc_alpha", Method: http.MethodGet, Template: "/api/v1/partner/me"}
	customersBucket = Bucket{Key: "svc_alpha", Method: http.MethodGet, Template: "/api/v1/partner/customers/{id}"}
	payoutsBucket   = Bucket{Key: "svc_beta", Method: http.MethodPost, Template: "/api/v1/partner/payouts"}
)

func TestBuildPacksTheProbes(t *testing.T) {
	first := time.Date(2026, 1, 1, 10, 0, 42, 0, time.UTC)
	me := &Slot{Who: "me", Routes: []Bucket{meBucket}, Tenant: 600}
	customers := &Slot{Who: "customers", Routes: []Bucket{customersBucket}, Tenant: 600}
	me2 := &Slot{Who: "me again", Routes: []Bucket{meBucket}, Tenant: 600}
	whole := &Slot{Who: "whole", Whole: true, Tenant: TenantBudget}
	auth := &Slot{Who: "auth", Auth: true}
	auth2 := &Slot{Who: "auth again", Auth: true, Routes: []Bucket{payoutsBucket}}
	payouts := &Slot{Who: "payouts", Routes: []Bucket{payoutsBucket}, Tenant: 600}
	long := &Slot{Who: "long", Routes: []Bucket{customersBucket}, Tenant: 600, Minutes: 3}
	big1 := &Slot{Who: "big1", Tenant: ProbeTenant - 600}
	big2 := &Slot{Who: "big2", Tenant: 2500}
	var tt Timetable
	tt.Build(first, []*Slot{me, customers, me2, whole, auth, auth2, payouts, long, big1, big2})
	at := func(s *Slot) int {
		return int(s.Start().Sub(time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)) / Window)
	}
	want := map[*Slot]int{
		me:        1, // the first whole minute after first
		customers: 1, // disjoint routes share a minute
		me2:       2, // the same route does not
		whole:     3, // a whole-tenant probe has minutes of its own
		auth:      1, // an Auth probe beside route probes
		auth2:     2, // two Auth probes never share
		payouts:   1,
		long:      4, // customers in 1, whole in 3: 4, 5, 6
		big1:      2, // minute 1 holds 1,800 of the probes' tenant: 1,800 + 3,400 > 4,000
		big2:      4, // minute 1: 1,800 + 2,500; minute 2 full (me2 and big1: 4,000)
	}
	for s, m := range want {
		if got := at(s); got != m {
			t.Errorf("%s: minute %d, want %d\n%s", s.Who, got, m, tt.String())
		}
	}
	if e := long.End(); !e.Equal(long.Start().Add(3 * Window)) {
		t.Errorf("a three-minute probe ends %s after its start", e.Sub(long.Start()))
	}
	if n := len(tt.Owners()); n != 6 {
		t.Errorf("%d minutes, want 6 (long owns 4-6)", n)
	}
	// The tenant of each minute's probes stays within ProbeTenant (a
	// whole-tenant probe alone).
	all := []*Slot{me, customers, me2, whole, auth, auth2, payouts, long, big1, big2}
	for m := 1; m <= len(tt.Owners()); m++ {
		sum, who := 0, []string{}
		for _, s := range all {
			if m >= at(s) && m < at(s)+s.minutes() {
				sum += s.Tenant
				who = append(who, s.Who)
			}
		}
		if len(who) > 1 && sum > ProbeTenant {
			t.Errorf("minute %d: %v send %d together, more than %d", m, who, sum, ProbeTenant)
		}
		if strings.Contains(strings.Join(who, ","), "whole") && len(who) > 1 {
			t.Errorf("minute %d: %v share the whole-tenant probe's minute", m, who)
		}
	}
	if s := tt.String(); !strings.HasPrefix(s, "minute 1: auth, me, customers, payouts\n") { // those causing failed authentications placed first
		t.Errorf("String() =\n%s", s)
	}
}

func TestHeldUntil(t *testing.T) {
	first := time.Date(2026, 1, 1, 10, 0, 42, 0, time.UTC)
	route := &Slot{Who: "route", Routes: []Bucket{meBucket}, Tenant: 600}
	auth := &Slot{Who: "auth", Auth: true}
	whole := &Slot{Who: "whole", Whole: true, Tenant: TenantBudget}
	var tt Timetable
	tt.Build(first, []*Slot{route, auth, whole})
	m1 := time.Date(2026, 1, 1, 10, 1, 0, 0, time.UTC) // route and auth
	m2 := m1.Add(Window)                               // whole

	me := Kind{Bucket: meBucket, Budgets: true}
	other := Kind{Bucket: customersBucket, Budgets: true}
	failed := Kind{Bucket: Bucket{Key: "-", Method: http.MethodGet, Template: "/api/v1/partner/me"}, FailedAuth: true}
	for _, c := range []struct {
		name  string
		k     Kind
		now   time.Time
		known bool
		want  time.Time
		who   string
	}{
		{"before the margin", me, m1.Add(-Margin - time.Millisecond), true, time.Time{}, ""},
		{"within the margin before", me, m1.Add(-Margin), true, m1.Add(Window + Margin), "route"},
		{"in the minute", me, m1.Add(30 * time.Second), true, m1.Add(Window + Margin), "route"},
		{"within the margin after", me, m1.Add(Window + Margin - time.Millisecond), true, m1.Add(Window + Margin), "route"},
		{"the clock unknown", me, m1.Add(30 * time.Second), false, time.Time{}, ""},
		{"another route", other, m1.Add(30 * time.Second), true, time.Time{}, ""},
		{"a failed authentication in a route probe's minute... held by the auth probe", failed, m1.Add(30 * time.Second), true, m1.Add(Window + Margin), "auth"},
		{"a valid request in the whole-tenant minute", other, m2.Add(10 * time.Second), true, m2.Add(Window + Margin), "whole"},
	} {
		end, who := tt.heldUntil(c.k, c.now, c.known)
		if !end.Equal(c.want) || who != c.who {
			t.Errorf("%s: held until %s (%q), want %s (%q)", c.name, end.Format("15:04:05.000"), who, c.want.Format("15:04:05.000"), c.who)
		}
	}

	// A failed authentication in the whole-tenant minute passes (the Auth
	// probe of minute 1 ended).
	tt.End(auth)
	if end, who := tt.heldUntil(failed, m2.Add(10*time.Second), true); !end.IsZero() {
		t.Errorf("a failed authentication in the whole-tenant minute held until %s (%q)", end, who)
	}

	// A route probe's minute alone: a failed authentication and a valid
	// request to another route pass.
	var only Timetable
	r := &Slot{Who: "route", Routes: []Bucket{meBucket}}
	only.Build(first, []*Slot{r})
	if end, _ := only.heldUntil(failed, m1.Add(30*time.Second), true); !end.IsZero() {
		t.Errorf("a failed authentication held by a route probe until %s", end)
	}
	// An Auth probe's minute alone: a valid request passes.
	var authOnly Timetable
	a := &Slot{Who: "auth", Auth: true}
	authOnly.Build(first, []*Slot{a})
	if end, _ := authOnly.heldUntil(me, m1.Add(30*time.Second), true); !end.IsZero() {
		t.Errorf("a valid request held by an Auth probe until %s", end)
	}

	// A probe running past its minutes keeps what it owns until it ends,
	// once it began (one that never began holds nothing past them).
	late := m1.Add(Window + Margin + 5*time.Second)
	if end, _ := only.heldUntil(me, late, true); !end.IsZero() {
		t.Errorf("past the minutes of a probe that never began: held until %s", end)
	}
	r.begun.Store(true)
	if end, who := only.heldUntil(me, late, true); !end.Equal(late.Add(time.Second)) || who != "route" {
		t.Errorf("past the minutes of a probe still running: held until %s (%q), want a second on", end, who)
	}
	only.End(r)
	if end, _ := only.heldUntil(me, late, true); !end.IsZero() {
		t.Errorf("after End: held until %s", end)
	}
	// Ended inside its minute, the probe still owns the rest of it: the
	// target counts what it spent until the minute ends (a whole-tenant
	// probe that ended at :40 let requests meet the spent tenant's 429).
	if end, _ := only.heldUntil(me, m1.Add(40*time.Second), true); !end.Equal(r.End().Add(Margin)) {
		t.Errorf("ended inside its minute: held until %s, want the minute's end and the margin", end)
	}
}

// Through the transport: an ordinary request that spends what a probe
// owns waits from the margin before the probe's minute to the margin
// after its end, and while the probe runs past it until End; the
// probe's own requests go at once; others pass.
func TestOrdinaryRequestsWaitOutAProbesMinute(t *testing.T) {
	start := time.Date(2026, 1, 1, 10, 0, 30, 0, time.UTC)
	c := &fakeClock{now: start}
	p := planOn(c)
	// The target runs 7.5 s ahead: its Date (truncated to the second) then
	// gives the plan the offset exactly.
	const off = 7500 * time.Millisecond
	tgt := &fakeTarget{now: c.Now, offset: off}
	tr := &Transport{Plan: p, Next: tgt}
	// The target's clock is learnt from the first answer.
	if s := send(t, tr, meRequest()); s != http.StatusOK {
		t.Fatalf("answered %d", s)
	}
	slot := &Slot{Who: "probe", Routes: []Bucket{meBucket}}
	p.Table.Build(tgt.clock(), []*Slot{slot})
	if want := time.Date(2026, 1, 1, 10, 1, 0, 0, time.UTC); !slot.Start().Equal(want) {
		t.Fatalf("the probe's minute starts %s on the target's clock, want %s", slot.Start(), want)
	}
	// The probe ends as soon as its minute does.
	c.onSleep = func(int) {
		if !tgt.clock().Before(slot.End()) {
			p.Table.End(slot)
		}
	}
	// 10:00:58.5 on the target's clock: inside the margin.
	c.set(slot.Start().Add(-1500 * time.Millisecond).Add(-off))
	if s := send(t, tr, meRequest()); s != http.StatusOK {
		t.Fatalf("answered %d", s)
	}
	if got, want := tgt.clock(), slot.End().Add(Margin); !got.Equal(want) {
		t.Errorf("the held request went out at %s on the target's clock, want %s (the margin after the probe's minute)", got.Format("15:04:05.000"), want.Format("15:04:05.000"))
	}
	// 10:00:57.5: before the margin, it goes at once.
	c.set(slot.Start().Add(-2500 * time.Millisecond).Add(-off))
	slot.ended.Store(false) // the same probe again, not yet ended
	n := len(c.slept())
	send(t, tr, meRequest())
	if s := c.slept()[n:]; len(s) != 0 {
		t.Errorf("a request before the margin waited %v", s)
	}
	// Others pass in the probe's minute; the probe's own requests too.
	c.set(slot.Start().Add(10 * time.Second).Add(-off))
	n = len(c.slept())
	send(t, tr, request(context.Background(), http.MethodGet, "/api/v1/partner/customers/1", alphaKey))
	send(t, tr, request(context.Background(), http.MethodGet, "/api/v1/partner/me", ""))
	send(t, tr, request(AsProbe(context.Background(), slot), http.MethodGet, "/api/v1/partner/me", alphaKey))
	if s := c.slept()[n:]; len(s) != 0 {
		t.Errorf("requests that spend nothing the probe owns, or the probe's own, waited %v", s)
	}

	// A probe that began and runs past its minutes: held until it ends.
	slot.begun.Store(true)
	c.set(slot.End().Add(Margin + time.Second).Add(-off))
	n = len(c.slept())
	c.onSleep = func(k int) {
		if k == n+3 {
			p.Table.End(slot)
		}
	}
	send(t, tr, meRequest())
	if s := c.slept()[n:]; len(s) != 3 || s[0] != time.Second {
		t.Errorf("held %v while the probe ran past its minutes, want three one-second waits then End", s)
	}
}

func TestAwaitWaitsForTheProbesSecond(t *testing.T) {
	c := &fakeClock{now: t0}
	p := planOn(c)
	var tt Timetable
	s := &Slot{Who: "probe", Routes: []Bucket{meBucket}}
	tt.Build(t0, []*Slot{s})
	if err := p.Await(context.Background(), s, 2*time.Second); err != nil {
		t.Fatal(err)
	}
	if want := s.Start().Add(2 * time.Second); !c.Now().Equal(want) {
		t.Errorf("Await returned at %s, want %s", c.Now(), want)
	}
}

// Probes that cause a few failed authentications share a minute while
// together they stay within the budget of 20: one that spends the whole
// window shares its first minute with no other that causes any, and its
// second, where it causes one, with probes causing up to 19.
func TestAuthProbesShareAMinuteWithinTheBudget(t *testing.T) {
	first := time.Date(2026, 1, 1, 10, 0, 42, 0, time.UTC)
	whole := &Slot{Who: "whole", Auth: true, Minutes: 2, Later: 1}
	few := &Slot{Who: "few", Auth: true, Failures: 10}
	one := &Slot{Who: "one", Auth: true, Failures: 1}
	more := &Slot{Who: "more", Auth: true, Failures: 10}
	var tt Timetable
	tt.Build(first, []*Slot{whole, few, one, more})
	if whole.minute != 1 || few.minute != 2 || one.minute != 2 || more.minute != 3 {
		t.Errorf("minutes: whole %d, few %d, one %d, more %d; want 1, 2, 2, 3", whole.minute, few.minute, one.minute, more.minute)
	}
	if n := len(tt.Owners()); n != 3 {
		t.Errorf("%d minutes with failed authentications of probes, want 3", n)
	}
}
