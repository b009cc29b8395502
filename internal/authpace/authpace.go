// Package authpace keeps a run's failed authentications within the
// target's per-IP budget (document 2, Limits: 20 failed attempts per 60
// seconds per source IP; beyond it 429 instead of 401/403).
//
// It has one job, in the spirit of vegeta's Pacer: say when the next
// failed attempts may be sent. A check holds a Ticket; it reserves the
// failures it is about to cause (Reserve), every answer it gets is
// classified by status and problem code (Observe), and what it reserved
// but never caused goes back to the window when it ends (Close). When a
// reservation does not fit in the current window, Reserve waits for the
// next one: on a virtual clock by advancing it, on a real clock by
// sleeping, with the wait visible through Waiting.
package authpace

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Documented budget: 20 failed attempts per clock-minute window per IP.
const (
	Budget = 20
	Window = time.Minute
)

// Codes of the answers that spend the budget (document 2, Authentication 9).
const (
	CodeAuthenticationFailed = "api_key_authentication_failed"
	CodeNotAuthorized        = "api_key_not_authorized"
)

// IsFailedAuth classifies one answer by its status and problem code: any
// 401 (whatever its code: a target that says 401 counted a failure), and a
// 403 whose code is api_key_not_authorized (missing scope, IP outside the
// allowlist). Other 403s (policy gates, forbidden resources) are not
// authentication failures.
func IsFailedAuth(status int, code string) bool {
	switch status {
	case 401:
		return true
	case 403:
		return code == CodeNotAuthorized
	}
	return false
}

// Minimum is the least wall time a run needing n failed attempts can take
// on a real clock: the failures of one window are free, each further
// window costs a whole window.
func Minimum(n int) time.Duration {
	if n <= Budget {
		return 0
	}
	return time.Duration((n+Budget-1)/Budget-1) * Window
}

// Pacer is the ledger of one source IP's current window.
type Pacer struct {
	// Advance moves a virtual clock to the next window; nil means the
	// clock is real and the pacer sleeps until the next window.
	Advance func(context.Context) error
	// Now and Sleep are the wall clock (tests replace them).
	Now   func() time.Time
	Sleep func(context.Context, time.Duration) error
	// Margin is waited past a window's start, and a window ending within
	// it counts as over (the target's clock may differ a little).
	Margin time.Duration

	mu        sync.Mutex
	start     time.Time // current window (real clock)
	epoch     int       // bumps at each new window
	used      int       // failures seen in the window
	held      int       // reserved, not yet seen, by open tickets
	total     int       // failures seen in the run
	windows   int       // windows moved to by waiting
	waitWhat  string
	waitUntil time.Time
}

// New returns a pacer on the wall clock; advance is nil for a real clock.
func New(advance func(context.Context) error) *Pacer {
	return &Pacer{Advance: advance, Now: time.Now, Sleep: sleep, Margin: 2 * time.Second}
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// roll starts a new ledger when a real clock has entered a new window.
// Callers hold mu.
func (p *Pacer) roll() {
	if p.Advance != nil {
		return
	}
	if w := p.Now().Truncate(Window); !w.Equal(p.start) {
		p.start = w
		p.newWindow()
	}
}

func (p *Pacer) newWindow() { p.epoch++; p.used, p.held = 0, 0 }

// Reset starts a fresh ledger: the caller moved a virtual clock to a new
// window itself.
func (p *Pacer) Reset() {
	p.mu.Lock()
	p.newWindow()
	p.mu.Unlock()
}

// Spent marks the current window full: the target refused a failed
// authentication as over budget, spent by someone the pacer does not see
// (another run from the same address).
func (p *Pacer) Spent() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.roll()
	p.used = Budget
}

// Total is how many failed attempts the run has caused so far.
func (p *Pacer) Total() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.total
}

// Windows is how many times the pacer waited for a fresh window.
func (p *Pacer) Windows() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.windows
}

// Waiting says what the run is waiting for and for how long, or "" when
// it is not waiting.
func (p *Pacer) Waiting() (what string, left time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.waitWhat == "" {
		return "", 0
	}
	return p.waitWhat, max(0, p.waitUntil.Sub(p.Now()))
}

// Ticket is one check's account with the pacer.
type Ticket struct {
	p     *Pacer
	who   string
	mu    sync.Mutex
	epoch int
	left  int // reserved in the current window, not yet seen
	seen  int // failures this ticket caused
	extra int // of them, not reserved
	peak  int // the most it asked to hold at once
}

// Ticket opens an account for who (a check id, for the progress line).
func (p *Pacer) Ticket(who string) *Ticket { return &Ticket{p: p, who: who} }

// Seen is how many failed attempts the ticket's holder caused; Unreserved
// how many of them it had not reserved.
func (t *Ticket) Seen() int       { t.mu.Lock(); defer t.mu.Unlock(); return t.seen }
func (t *Ticket) Unreserved() int { t.mu.Lock(); defer t.mu.Unlock(); return t.extra }

// Peak is the most failed attempts the holder asked to hold at once.
func (t *Ticket) Peak() int { t.mu.Lock(); defer t.mu.Unlock(); return t.peak }

// Reserve makes sure the holder has n failed attempts reserved in the
// current window (what it already holds there counts), waiting for the
// next window when they do not fit.
func (t *Ticket) Reserve(ctx context.Context, n int) error {
	if n > Budget {
		return fmt.Errorf("cannot reserve %d failed authentications in one window (the budget is %d per %s)", n, Budget, Window)
	}
	p := t.p
	t.mu.Lock()
	t.peak = max(t.peak, n)
	t.mu.Unlock()
	for {
		p.mu.Lock()
		t.mu.Lock()
		p.roll()
		if t.epoch != p.epoch {
			t.epoch, t.left = p.epoch, 0
		}
		need := n - t.left
		ending := p.Advance == nil && p.start.Add(Window).Sub(p.Now()) < p.Margin
		if need <= 0 || (p.used+p.held+need <= Budget && !ending) {
			if need > 0 {
				p.held += need
				t.left += need
			}
			t.mu.Unlock()
			p.mu.Unlock()
			return nil
		}
		t.mu.Unlock()
		if p.Advance != nil {
			if err := p.advanceVirtual(ctx); err != nil {
				return err
			}
			continue
		}
		until := p.start.Add(Window + p.Margin)
		p.waitWhat = fmt.Sprintf("a fresh failed-auth window for %s (%d more; %d of %d spent)", t.who, need, p.used+p.held, Budget)
		p.waitUntil = until
		d := until.Sub(p.Now())
		p.windows++
		p.mu.Unlock()
		err := p.Sleep(ctx, d)
		p.mu.Lock()
		p.waitWhat = ""
		p.mu.Unlock()
		if err != nil {
			return err
		}
	}
}

// Observe classifies one answer the holder got (status and problem code)
// and counts it when it is a failed authentication. It reports whether
// it was.
func (t *Ticket) Observe(status int, code string) bool {
	if !IsFailedAuth(status, code) {
		return false
	}
	p := t.p
	p.mu.Lock()
	defer p.mu.Unlock()
	t.mu.Lock()
	defer t.mu.Unlock()
	p.roll()
	p.used++
	p.total++
	t.seen++
	if t.epoch == p.epoch && t.left > 0 {
		t.left--
		p.held--
	} else {
		t.extra++
	}
	return true
}

// Close gives back what the holder reserved and did not cause.
func (t *Ticket) Close() {
	p := t.p
	p.mu.Lock()
	defer p.mu.Unlock()
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.epoch == p.epoch {
		p.held -= t.left
	}
	t.left = 0
}

// Available is how many failed attempts the current window still takes
// (0 when a real-clock window ends within the margin).
func (p *Pacer) Available() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.roll()
	if p.Advance == nil && p.start.Add(Window).Sub(p.Now()) < p.Margin {
		return 0
	}
	return max(0, Budget-p.used-p.held)
}

// advanceVirtual moves a virtual clock to the next window and starts it
// there. p.mu is held on entry and released on return.
func (p *Pacer) advanceVirtual(ctx context.Context) error {
	p.mu.Unlock()
	if err := p.Advance(ctx); err != nil {
		return err
	}
	p.mu.Lock()
	p.newWindow()
	p.windows++
	p.mu.Unlock()
	return nil
}

// NextWindow waits for the next window (advances a virtual clock), showing
// what through Waiting meanwhile.
func (p *Pacer) NextWindow(ctx context.Context, what string) error {
	p.mu.Lock()
	p.roll()
	if p.Advance != nil {
		return p.advanceVirtual(ctx)
	}
	until := p.start.Add(Window + p.Margin)
	p.waitWhat, p.waitUntil = what, until
	d := until.Sub(p.Now())
	p.windows++
	p.mu.Unlock()
	err := p.Sleep(ctx, d)
	p.mu.Lock()
	p.waitWhat = ""
	p.roll()
	p.mu.Unlock()
	return err
}
