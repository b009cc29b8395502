package check

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/touchstone-harness/touchstone/internal/control"
	"github.com/touchstone-harness/touchstone/internal/openapicheck"
	"github.com/touchstone-harness/touchstone/internal/profile"
	"github.com/touchstone-harness/touchstone/internal/redact"
)

// Target is everything a check may use to reach the server under test.
type Target struct {
	Profile *profile.Profile
	HTTP    *http.Client
	// Control is nil for targets without a control API.
	Control *control.Client
	// Schemas validates every response against the target's served OpenAPI
	// documents; nil when they could not be loaded (a check reports that).
	Schemas *openapicheck.Validator
	// SchemaError is why Schemas is nil.
	SchemaError error
	// AllowLive lets mutating checks run with a live key.
	AllowLive bool
	Redactor  *redact.Redactor
	// ReceiverAddr is where webhook deliveries to the profile's webhook_url
	// are forwarded for a target without the control API (run
	// --receiver-addr); the webhook checks listen there.
	ReceiverAddr string

	virtual   bool
	authMu    sync.Mutex
	authSpent int // reserved by checks in the current window
	authSeen  int // 401s and scope/IP 403s seen in the current window
	authWin   time.Time
}

// NewTarget prepares a target from a profile: HTTP client, control client,
// OpenAPI documents.
func NewTarget(ctx context.Context, p *profile.Profile, allowLive bool) (*Target, error) {
	hc, err := clientFor(p)
	if err != nil {
		return nil, err
	}
	t := &Target{Profile: p, HTTP: hc, AllowLive: allowLive, Redactor: redact.New(p.Secrets()...)}
	if p.ControlURL != "" {
		t.Control = &control.Client{URL: p.ControlURL, HTTP: hc}
		clk, err := t.Control.Clock(ctx)
		if err != nil {
			return nil, fmt.Errorf("control API at %s: %v", p.ControlURL, err)
		}
		t.virtual = clk.Virtual
	}
	t.Schemas, t.SchemaError = openapicheck.Load(ctx, hc, p.BaseURL)
	return t, nil
}

func clientFor(p *profile.Profile) (*http.Client, error) {
	return httpClient(p.CABundle)
}

// Reachable sends one unauthenticated GET to the base URL and reports a
// transport failure as an error (any HTTP answer counts as reachable).
func (t *Target) Reachable(ctx context.Context) error {
	u, _ := url.Parse(t.Profile.BaseURL)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, t.Profile.BaseURL+"/api/v1/partner/me", nil)
	if err != nil {
		return err
	}
	resp, err := t.HTTP.Do(req)
	if err != nil {
		return fmt.Errorf("target %s is unreachable: %v", u.Host, unwrapURLError(err))
	}
	resp.Body.Close()
	return nil
}

func unwrapURLError(err error) error {
	if ue, ok := err.(*url.Error); ok {
		return ue.Err
	}
	return err
}

// VirtualClock tells whether the target's clock moves only when told.
func (t *Target) VirtualClock() bool { return t.Control != nil && t.virtual }

// FreshWindow starts a new clock-minute window on a virtual clock, so that
// each check begins with untouched rate-limit and failed-auth budgets. It
// does nothing on a real clock.
func (t *Target) FreshWindow(ctx context.Context) error {
	if !t.VirtualClock() {
		return nil
	}
	_, err := t.Control.NextMinute(ctx, time.Second)
	t.authMu.Lock()
	t.authSpent, t.authSeen, t.authWin = 0, 0, time.Time{}
	t.authMu.Unlock()
	return err
}

// failedAuthBudget is the documented per-IP failed-authentication budget.
const failedAuthBudget = 20

// authHeadroom is how many unreserved failures a check may send without
// asking: before each check on a real clock the runner makes sure that
// many are left in the current minute.
const authHeadroom = 8

// rollAuthWindow starts a new ledger at each wall-clock minute on a real
// clock (a virtual clock's windows move only through FreshWindow and
// SpendAuthFailures). Callers hold authMu.
func (t *Target) rollAuthWindow(now time.Time) {
	if !t.VirtualClock() && now.Truncate(time.Minute) != t.authWin {
		t.authWin, t.authSpent, t.authSeen = now.Truncate(time.Minute), 0, 0
	}
}

// observeAuthFailure counts a 401 or scope/IP 403 the target answered,
// whether or not the check reserved it.
func (t *Target) observeAuthFailure() {
	t.authMu.Lock()
	defer t.authMu.Unlock()
	t.rollAuthWindow(time.Now())
	t.authSeen++
}

// SpendAuthFailures reserves n failed-authentication attempts in the current
// window. When they would overrun the documented budget it moves to the
// next window first: on a virtual clock by advancing it, otherwise by
// waiting for the next wall-clock minute.
func (t *Target) SpendAuthFailures(ctx context.Context, n int) error {
	t.authMu.Lock()
	defer t.authMu.Unlock()
	if n > failedAuthBudget {
		return fmt.Errorf("cannot spend %d failed attempts in one window (budget %d)", n, failedAuthBudget)
	}
	t.rollAuthWindow(time.Now())
	spent := max(t.authSpent, t.authSeen)
	if spent+n > failedAuthBudget {
		if err := t.nextAuthWindow(ctx); err != nil {
			return err
		}
		spent = 0
	}
	t.authSpent = spent + n
	return nil
}

// ensureAuthHeadroom runs before each check on a real clock.
func (t *Target) ensureAuthHeadroom(ctx context.Context) error {
	t.authMu.Lock()
	defer t.authMu.Unlock()
	t.rollAuthWindow(time.Now())
	if max(t.authSpent, t.authSeen)+authHeadroom <= failedAuthBudget {
		return nil
	}
	return t.nextAuthWindow(ctx)
}

// nextAuthWindow moves to a fresh failed-auth window. Callers hold authMu.
func (t *Target) nextAuthWindow(ctx context.Context) error {
	if t.VirtualClock() {
		if _, err := t.Control.NextMinute(ctx, time.Second); err != nil {
			return err
		}
	} else {
		now := time.Now()
		select {
		case <-time.After(time.Until(now.Truncate(time.Minute).Add(time.Minute + 2*time.Second))):
		case <-ctx.Done():
			return ctx.Err()
		}
		t.authWin = time.Now().Truncate(time.Minute)
	}
	t.authSpent, t.authSeen = 0, 0
	return nil
}
