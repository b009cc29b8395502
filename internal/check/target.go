package check

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/control"
	"github.com/touchstone-harness/touchstone/internal/openapicheck"
	"github.com/touchstone-harness/touchstone/internal/profile"
	"github.com/touchstone-harness/touchstone/internal/redact"
	"github.com/touchstone-harness/touchstone/internal/traffic"
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
	// Options are the run's choices the checks read (as values: no check
	// reads the environment or a package global); Bounds its limits.
	Options Options
	Bounds  Bounds

	virtual   bool
	rolesOnce sync.Once
	roles     client.KeyRoles
	stall     stall // the run's count of checks ending on transport failures
	planOnce  sync.Once
	idsOnce   sync.Once
	ids       []string
	plan      *traffic.Plan
	valMu     sync.Mutex
	values    map[any]any // see Value
}

// Options are the run's choices that reach checks, properties and probes.
type Options struct {
	// PropertyChecks is how many cases each property draws (deep runs);
	// 0 keeps each property's default, sized to the target's clock.
	PropertyChecks int
	// PropertySeed seeds the properties' draws; 0 is the fixed default, so
	// a default run draws the same cases every time.
	PropertySeed uint64
}

// NewTarget prepares a target from a profile: HTTP client, control client,
// OpenAPI documents.
func NewTarget(ctx context.Context, p *profile.Profile, allowLive bool) (*Target, error) {
	return NewTargetWith(ctx, p, allowLive, DefaultBounds())
}

// NewTargetWith is NewTarget with the run's bounds.
func NewTargetWith(ctx context.Context, p *profile.Profile, allowLive bool, b Bounds) (*Target, error) {
	hc, err := client.Transport(p.CABundle, b.Request, b.MaxBody)
	if err != nil {
		return nil, err
	}
	t := &Target{Profile: p, HTTP: hc, AllowLive: allowLive, Redactor: redact.New(p.Secrets()...), Bounds: b}
	if p.ControlURL != "" {
		t.Control = &control.Client{URL: p.ControlURL, HTTP: hc}
		if err := t.initControl(ctx); err != nil {
			return nil, err
		}
	}
	// Every request of the run passes the traffic plan (inside the
	// live-key guard, so a refused write spends nothing).
	var advance func(context.Context) error
	if t.VirtualClock() {
		advance = func(ctx context.Context) error {
			_, err := t.Control.NextMinute(ctx, time.Second)
			return err
		}
	}
	t.plan = traffic.New(advance)
	// Keys that pass the key step: the profile's, less those in a state
	// the target refuses there (their requests spend no route or tenant
	// budget, like a key the target never issued).
	issued := map[string]bool{}
	for role, k := range p.KeyMap() {
		if k != "" && !profile.RefusedAtKeyStep[role] {
			issued[k] = true
		}
	}
	t.plan.ValidKey = func(k string) bool { return issued[k] }
	client.Plan(hc, t.plan)
	t.Schemas, t.SchemaError = openapicheck.Load(ctx, hc, p.BaseURL)
	return t, nil
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
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
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
	return t.Plan().Fresh(ctx)
}

// Plan is the run's traffic plan (see internal/traffic): every request to
// the target passes it.
func (t *Target) Plan() *traffic.Plan {
	t.planOnce.Do(func() {
		if t.plan == nil { // a target built by hand (tests)
			t.plan = traffic.New(nil)
		}
	})
	return t.plan
}

// Value is the target's value under key, made by init the first time it
// is asked for (or set by SetValue): state a package outside check keeps
// per run, carried by the run's target instead of a package global (load
// keeps its Session there). Keys compare like map keys; as with context
// keys, a package uses a key of an unexported type of its own. Safe for
// concurrent use; init runs at most once per key, under the target's lock,
// so it must not call Value or SetValue itself.
func (t *Target) Value(key any, init func() any) any {
	t.valMu.Lock()
	defer t.valMu.Unlock()
	if v, ok := t.values[key]; ok {
		return v
	}
	v := init()
	if t.values == nil {
		t.values = map[any]any{}
	}
	t.values[key] = v
	return v
}

// SetValue sets (or replaces) the target's value under key (see Value).
func (t *Target) SetValue(key, v any) {
	t.valMu.Lock()
	defer t.valMu.Unlock()
	if t.values == nil {
		t.values = map[any]any{}
	}
	t.values[key] = v
}

// fixtureIDs are the ids of the profile's shared fixtures (customers,
// beneficiaries, crypto wallets and whitelist entries).
func (t *Target) fixtureIDs() []string {
	t.idsOnce.Do(func() {
		p := t.Profile
		for _, m := range []map[string]string{p.CustomerMap(), p.BeneficiaryMap(), p.CryptoMap()} {
			for _, id := range m {
				if id != "" {
					t.ids = append(t.ids, id)
				}
			}
		}
	})
	return t.ids
}

// keyRoles indexes the profile's keys for reproduction lines.
func (t *Target) keyRoles() client.KeyRoles {
	t.rolesOnce.Do(func() { t.roles = client.NewKeyRoles(t.Profile.KeyMap()) })
	return t.roles
}
