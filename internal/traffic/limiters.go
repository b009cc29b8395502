package traffic

import (
	"context"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// What ordinary traffic may spend of each budget in any 60-second span
// on a real clock. A limiter of burst b and rate r lets at most b + 60 s ×
// r through in any 60-second span, so in any clock minute of the target,
// wherever it starts. The rest of each budget is left to what the plan
// cannot see (a target counting a preflight) and, for the tenant, to the
// budget probes, which share minutes with ordinary traffic (ProbeTenant).
// The failed-auth limiter lets one through every 60/19 s: 20 in a
// 60-second span at most, 19 a minute over a run.
const (
	routeBurst, routeSpan   = 90, 590
	tenantBurst, TenantSpan = 300, 1900
	authBurst, authSpan     = 1, 20
	// ProbeTenant is what the probes that share one clock minute may send
	// together (with ordinary traffic's TenantSpan and a headroom of 100,
	// the tenant's 6,000).
	ProbeTenant = TenantBudget - 100 - TenantSpan
)

// virtualStart is where a virtual clock's limiter time begins.
var virtualStart = time.Unix(0, 0)

// limiters are the three documented budgets as token buckets. On a
// virtual clock their time moves a whole minute each time the plan moves
// the target to its next minute (a fresh window on the target), and a
// whole minute's budget is the burst.
type limiters struct {
	mu        sync.Mutex
	virtual   bool
	minutes   int           // virtual: minutes moved
	advancing chan struct{} // virtual: closed when the move under way ends
	route     map[Bucket]*rate.Limiter
	tenant    *rate.Limiter
	auth      *rate.Limiter
}

func (l *limiters) init(virtual bool) {
	l.virtual = virtual
	l.route = map[Bucket]*rate.Limiter{}
	l.tenant = l.make(tenantBurst, TenantSpan, TenantBudget-100)
	l.auth = l.make(authBurst, authSpan, FailedAuthBudget)
}

// make is a limiter of burst b letting span through in any 60 s on a real
// clock; on a virtual one, whole a minute, all of it at once.
func (l *limiters) make(b, span, whole int) *rate.Limiter {
	if l.virtual {
		return rate.NewLimiter(rate.Limit(float64(whole)/Window.Seconds()), whole)
	}
	if b == 1 {
		// Evenly spaced: one each 60 s / (span − 1), span in a closed
		// 60-second span.
		return rate.NewLimiter(rate.Every(Window/time.Duration(span-1)), 1)
	}
	return rate.NewLimiter(rate.Limit(float64(span-b)/Window.Seconds()), b)
}

// reserve reserves one request of kind k at now on its limiters and tells
// when it may go out; cancel gives the reservations back.
func (l *limiters) reserve(k Kind, now time.Time) (at time.Time, cancel func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var rs []*rate.Reservation
	if k.FailedAuth {
		rs = append(rs, l.auth.ReserveN(now, 1))
	}
	if k.Budgets {
		r := l.route[k.Bucket]
		if r == nil {
			r = l.make(routeBurst, routeSpan, RouteBudget-10)
			l.route[k.Bucket] = r
		}
		rs = append(rs, r.ReserveN(now, 1), l.tenant.ReserveN(now, 1))
	}
	at = now
	for _, r := range rs {
		if t := now.Add(r.DelayFrom(now)); t.After(at) {
			at = t
		}
	}
	return at, func() {
		for _, r := range rs {
			r.CancelAt(now)
		}
	}
}

// virtualNow is the limiters' time on a virtual clock.
func (l *limiters) virtualNow() time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	return virtualStart.Add(time.Duration(l.minutes) * Window)
}

// bump moves the limiters' time a minute (the target's clock was moved to
// its next minute).
func (l *limiters) bump() {
	l.mu.Lock()
	l.minutes++
	l.mu.Unlock()
}

// advance moves a virtual clock to its next minute with move, or waits
// for the move another request began.
func (l *limiters) advance(ctx context.Context, move func(context.Context) error) error {
	l.mu.Lock()
	if ch := l.advancing; ch != nil {
		l.mu.Unlock()
		select {
		case <-ch:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	ch := make(chan struct{})
	l.advancing = ch
	l.mu.Unlock()
	err := move(ctx)
	l.mu.Lock()
	if err == nil {
		l.minutes++
	}
	l.advancing = nil
	close(ch)
	l.mu.Unlock()
	return err
}
