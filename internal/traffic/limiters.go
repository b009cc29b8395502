package traffic

import (
	"context"
	"math"
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
	routeBurst, routeSpan   = 500, 590
	tenantBurst, TenantSpan = 1500, 1900
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
	last      time.Time // the latest time a request was taken at
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

// take counts one request of kind k on its limiters when every one of
// them has a token at now, and tells how long to wait before asking again
// otherwise (0: taken). Taking from all of them at once, or from none,
// counts the request when it goes out on each (reserving ahead on each,
// a route limiter counted at once a request the tenant's held, and later
// requests that went out together looked spaced to it).
func (l *limiters) take(k Kind, now time.Time) (wait time.Duration, minute int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	minute = l.minutes
	// The limiters' time only moves forward (callers read the clock
	// before taking the lock).
	if now.Before(l.last) {
		now = l.last
	}
	l.last = now
	var ls []*rate.Limiter
	if k.FailedAuth {
		ls = append(ls, l.auth)
	}
	if k.Budgets {
		r := l.route[k.Bucket]
		if r == nil {
			r = l.make(routeBurst, routeSpan, RouteBudget-10)
			l.route[k.Bucket] = r
		}
		ls = append(ls, r, l.tenant)
	}
	for _, lim := range ls {
		if short := 1 - lim.TokensAt(now); short > 0 {
			d := time.Duration(math.Ceil(short / float64(lim.Limit()) * float64(time.Second)))
			wait = max(wait, d, time.Millisecond)
		}
	}
	if wait > 0 {
		return wait, minute
	}
	for _, lim := range ls {
		lim.AllowN(now, 1)
	}
	return 0, minute
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

// advance moves a virtual clock from minute seen to its next minute with
// move, or waits for the move another request began (or does nothing when
// one has moved it since).
func (l *limiters) advance(ctx context.Context, move func(context.Context) error, seen int) error {
	l.mu.Lock()
	if l.minutes != seen {
		l.mu.Unlock()
		return nil
	}
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

// minute is how many minutes a virtual clock has been moved.
func (l *limiters) minute() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.minutes
}
