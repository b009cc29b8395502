package traffic

import (
	"context"
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// What ordinary traffic may spend of each budget in any 60-second span of
// a real clock. A bucket of burst b and rate r lets at most b + 60 s × r
// through in any 60 s, so in any clock minute of the target, wherever it
// starts. The rest of a budget is headroom and, for the tenant, the probes'
// share (ProbeTenant). The failed-auth bucket lets one through every
// 60/19 s: at most 20 in 60 s, 19 a minute over a run.
const (
	RouteBurst, RouteSpan   = 500, 590
	TenantBurst, TenantSpan = 1500, 1900
	// ProbeTenant is what the probes sharing a clock minute may send
	// together (with TenantSpan and a headroom of 100, the tenant's 6,000).
	ProbeTenant = TenantBudget - 100 - TenantSpan
)

// limiters are the three budgets as token buckets. On a virtual clock
// their time is the minutes the plan moved the target's clock, and a whole
// minute's budget is the burst.
type limiters struct {
	mu           sync.Mutex
	last         time.Time // the latest time a request was taken at
	virtual      bool
	minutes      int           // virtual: minutes moved
	advancing    chan struct{} // virtual: closed when the move under way ends
	route        map[Bucket]*rate.Limiter
	tenant, auth *rate.Limiter
}

func (l *limiters) init(virtual bool) {
	l.virtual = virtual
	l.route = map[Bucket]*rate.Limiter{}
	l.tenant = l.bucket(TenantBurst, TenantSpan, TenantBudget-100)
	l.auth = l.bucket(1, FailedAuthBudget, FailedAuthBudget)
}

// bucket lets span through in any 60 s with burst b on a real clock; on a
// virtual one, whole a minute, all at once.
func (l *limiters) bucket(b, span, whole int) *rate.Limiter {
	switch {
	case l.virtual:
		return rate.NewLimiter(rate.Limit(float64(whole)/Window.Seconds()), whole)
	case b == 1: // evenly spaced: span in a closed 60-second span
		return rate.NewLimiter(rate.Every(Window/time.Duration(span-1)), 1)
	}
	return rate.NewLimiter(rate.Limit(float64(span-b)/Window.Seconds()), b)
}

// take counts a request of kind k on each of its buckets when all have a
// token, or says how long to wait (0: taken), and the virtual minute seen.
// All at once or none: reserving ahead on each let a route bucket count at
// once a request the tenant's held, so later ones looked spaced to it.
func (l *limiters) take(k Kind, now time.Time) (wait time.Duration, minute int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.virtual {
		now = time.Unix(0, 0).Add(time.Duration(l.minutes) * Window)
	}
	if now.Before(l.last) { // x/time/rate must not see time go back
		now = l.last
	}
	l.last = now
	var ls []*rate.Limiter
	if k.FailedAuth {
		ls = append(ls, l.auth)
	}
	if k.Budgets {
		if l.route[k.Bucket] == nil {
			l.route[k.Bucket] = l.bucket(RouteBurst, RouteSpan, RouteBudget-10)
		}
		ls = append(ls, l.route[k.Bucket], l.tenant)
	}
	for _, lim := range ls {
		if short := 1 - lim.TokensAt(now); short > 0 {
			wait = max(wait, time.Millisecond, time.Duration(math.Ceil(short/float64(lim.Limit())*float64(time.Second))))
		}
	}
	if wait == 0 {
		for _, lim := range ls {
			lim.AllowN(now, 1)
		}
	}
	return wait, l.minutes
}

// advance moves a virtual clock from minute seen (-1: the current one) to
// its next minute with move, or waits for the move another request began,
// or does nothing when one has moved it since.
func (l *limiters) advance(ctx context.Context, move func(context.Context) error, seen int) error {
	l.mu.Lock()
	if seen >= 0 && l.minutes != seen {
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
