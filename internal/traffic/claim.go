package traffic

// Claims: how checks that probe a budget on purpose share real-clock
// windows with each other and with the rest of the run.
//
// On a virtual clock such a check runs alone and owns the whole plan (Own).
// On a real clock that would cost a whole clock minute per probe, so each
// probe takes a Claim instead: the route buckets it exhausts (owned: no
// other request is admitted to them while the claim is held), the tenant
// requests it sends (reserved: the rest of the run leaves them unspent), or
// the whole tenant (Whole: a window of its own, from the start of the next
// clock minute, with every other request held until it is released).
// Several claims on disjoint buckets run in the same minute; a claim is
// granted only when its buckets are untouched in the current window, so
// the probe finds them fresh. A claim that cannot be granted because its
// buckets were touched books them: from then on no one else touches them,
// and the claim is granted at the next window. The failed-authentication
// budget stays with tickets (failedauth.go in this package): a probe that spends the
// whole window declares 20 and the scheduler starts it when 20 fit.
//
// A request carrying a claim in its context (WithClaim) is never held, and
// a 429 it gets is its sender's to judge, never waited out.

import (
	"context"
	"fmt"
	"time"
)

// Claim is one probe's hold on budgets. Its exported fields are set before
// TryClaim and not changed after.
type Claim struct {
	// Who names the holder (a check id) in the progress line.
	Who string
	// Buckets are the route budgets the holder exhausts.
	Buckets []Bucket
	// Uses are route budgets the holder sends a few requests to (within
	// the plan's headroom) and needs unspent: the claim is not granted
	// while another claim owns one or its window is spent.
	Uses []Bucket
	// Tenant is the most requests the holder sends while it holds the
	// claim (its buckets' and any other), reserved from the tenant's
	// budget.
	Tenant int
	// Whole asks for the tenant's whole budget in a window of its own.
	Whole bool
	// Span is how many windows the holder may hold it across (0 or 1:
	// it ends within the window it starts in).
	Span int

	state  claimState
	epoch  int // Whole: the window it owns
	sent   int // requests sent under the claim
	handle int
}

type claimState int

const (
	claimIdle claimState = iota
	claimBooked
	claimHeld
)

type claimKey struct{}

// WithClaim marks ctx's requests as sent under claim c.
func WithClaim(ctx context.Context, c *Claim) context.Context {
	return context.WithValue(ctx, claimKey{}, c)
}

// ClaimOf is the claim ctx's requests are sent under, or nil.
func ClaimOf(ctx context.Context) *Claim {
	c, _ := ctx.Value(claimKey{}).(*Claim)
	return c
}

// TryClaim grants c when it fits now and reports whether it did. A claim
// whose buckets are free of other claims but were touched in this window
// (or that may not start now) is booked instead: no one else is admitted
// to its buckets from then on, and a later TryClaim in a fresh window
// grants it. A Whole claim is granted when no other Whole claim is, for
// the next window (postponed window by window while other claims are
// still held when it begins: AwaitWindow); while it waits, only claims
// that end within the current window start. On a virtual clock every
// claim is granted (the holder runs alone there).
func (p *Plan) TryClaim(c *Claim) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.roll()
	if c.state == claimHeld {
		return true
	}
	if p.Advance != nil {
		p.hold(c)
		return true
	}
	if c.Whole {
		if w := p.whole(); w != nil && w != c {
			return false
		}
		c.epoch = p.epoch + 1
		p.hold(c)
		return true
	}
	for _, b := range c.Buckets {
		if o := p.owner(b); o != nil && o != c {
			return false
		}
	}
	for _, b := range c.Uses {
		if o := p.owner(b); (o != nil && o != c) || p.full[b] || p.routes[b] >= RouteBudget-routeHeadroom {
			return false
		}
	}
	grant := p.tenant+p.reservedLeft(c)+c.Tenant <= TenantBudget-tenantHeadroom
	// The minute the run began in may carry what an earlier run (or any
	// other caller) spent: the plan's ledger of it is not the target's.
	// A probe that needs its budgets fresh starts from the first whole
	// minute of the run (a second run back to back met 429s within its
	// first 600).
	grant = grant && (!p.UntrustedFirstWindow || p.epoch > 1)
	if w := p.whole(); w != nil {
		// The tenant is (about to be) a Whole claim's: only a claim that
		// ends well inside this window may start.
		left := p.start.Add(Window).Sub(p.targetNow())
		grant = grant && w.epoch > p.epoch && c.Span <= 1 && left >= QuickLead
	}
	for _, b := range c.Buckets {
		if p.routes[b] > 0 || p.full[b] {
			grant = false
		}
	}
	if !grant {
		if c.state == claimIdle && len(c.Buckets) > 0 {
			c.state = claimBooked
			p.addClaim(c)
		}
		return false
	}
	p.hold(c)
	return true
}

// QuickLead is the least time left in the window for a claim to start
// while a Whole claim waits for the next one.
const QuickLead = 30 * time.Second

// AwaitWindow waits until c's window begins (a Whole claim: the tenant is
// its own from then on) and returns its start in the target's time; on a
// virtual clock, or for another claim, it returns the current window's.
func (p *Plan) AwaitWindow(ctx context.Context, c *Claim) (time.Time, error) {
	for {
		p.mu.Lock()
		p.roll()
		if p.Advance != nil || !c.Whole || c.epoch <= p.epoch {
			start := p.start
			if p.waitWhat == "the clock minute "+c.Who+" owns" {
				p.waitWhat = ""
			}
			p.mu.Unlock()
			return start, nil
		}
		p.waitWhat, p.waitUntil = "the clock minute "+c.Who+" owns", p.Now().Add(p.start.Add(Window).Sub(p.targetNow()))
		d := p.start.Add(Window).Sub(p.targetNow()) + 50*time.Millisecond
		p.mu.Unlock()
		w := waitsOf(ctx)
		w.begin()
		err := p.Sleep(ctx, d)
		w.end()
		if err != nil {
			return time.Time{}, err
		}
	}
}

// hold marks c held. Callers hold mu.
func (p *Plan) hold(c *Claim) {
	if c.state == claimIdle {
		p.addClaim(c)
	}
	c.state = claimHeld
}

func (p *Plan) addClaim(c *Claim) {
	if p.claims == nil {
		p.claims = map[int]*Claim{}
	}
	p.nextClaim++
	c.handle = p.nextClaim
	p.claims[c.handle] = c
}

// Release ends c (held or booked): its buckets and reservation go back to
// the run, and requests held off them are admitted again.
func (p *Plan) Release(c *Claim) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if c.state == claimIdle {
		return
	}
	delete(p.claims, c.handle)
	c.state = claimIdle
	if p.released != nil {
		close(p.released)
		p.released = nil
	}
}

// owner is the claim (held or booked) that owns bucket b, or nil. Callers
// hold mu.
func (p *Plan) owner(b Bucket) *Claim {
	for _, c := range p.claims {
		for _, cb := range c.Buckets {
			if cb == b {
				return c
			}
		}
	}
	return nil
}

// whole is the Whole claim held (waiting for its window or in it), or nil.
// Callers hold mu.
func (p *Plan) whole() *Claim {
	for _, c := range p.claims {
		if c.Whole {
			return c
		}
	}
	return nil
}

// postpone moves a Whole claim whose window has just begun to the next
// one while other claims are still held (they would spend in it). Called
// by roll at each new window. Callers hold mu.
func (p *Plan) postpone() {
	w := p.whole()
	if w == nil || w.epoch != p.epoch {
		return
	}
	for _, c := range p.claims {
		if c != w && c.state == claimHeld {
			w.epoch++
			return
		}
	}
}

// wholeNow is the Whole claim that owns the current window, or nil.
// Callers hold mu.
func (p *Plan) wholeNow() *Claim {
	for _, c := range p.claims {
		if c.Whole && c.state == claimHeld && c.epoch <= p.epoch {
			return c
		}
	}
	return nil
}

// WholeMinute tells whether the current window is a Whole claim's (now:
// only requests refused at the key step go out in it besides the
// holder's), or a Whole claim is held for a window not begun yet (ahead).
func (p *Plan) WholeMinute() (now, ahead bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.roll()
	now = p.wholeNow() != nil
	return now, !now && p.whole() != nil
}

// reservedLeft is what held claims other than except may still send.
// Callers hold mu.
func (p *Plan) reservedLeft(except *Claim) int {
	n := 0
	for _, c := range p.claims {
		if c != except && c.state == claimHeld && !c.Whole {
			n += max(0, c.Tenant-c.sent)
		}
	}
	return n
}

// heldOff tells why a request to b outside any claim must wait, or ""
// when it need not: a Whole claim's window (or its last seconds before,
// so that nothing of ours lands in it), or a claim owning b. Callers hold
// mu.
func (p *Plan) heldOff(b Bucket) string {
	if c := p.wholeNow(); c != nil {
		return fmt.Sprintf("%s, which owns the tenant's budget this minute", c.Who)
	}
	if c := p.whole(); c != nil && c.epoch == p.epoch+1 && p.ending() {
		return fmt.Sprintf("%s, which owns the tenant's budget from the next minute", c.Who)
	}
	if c := p.owner(b); c != nil {
		return fmt.Sprintf("%s, which owns %s", c.Who, b)
	}
	return ""
}

// releasedChan is closed at the next Release. Callers hold mu.
func (p *Plan) releasedChan() chan struct{} {
	if p.released == nil {
		p.released = make(chan struct{})
	}
	return p.released
}

// Claims is how many claims are held or booked (for tests and the
// progress line).
func (p *Plan) Claims() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.claims)
}
