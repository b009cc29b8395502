// Package launch is where the harness meets the embedded sandbox: it
// resolves what a run targets: a profile file the user
// names, or the embedded sandbox started on loopback. It is the only
// harness package that starts the sandbox; checks reach it over HTTP.
package launch

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/touchstone-harness/touchstone/fixtures/sandbox"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/profile"
)

// ProfileEnv names a profile file for `go test` and the ginkgo CLI.
const ProfileEnv = "TOUCHSTONE_PROFILE"

// Options say what to target.
type Options struct {
	// ProfilePath names a target profile; empty starts the embedded sandbox.
	ProfilePath string
	// Seed and Fault configure an embedded sandbox.
	Seed  int64
	Fault string
	// AllowLive lets mutating checks use a live key.
	AllowLive bool
	// ReceiverAddr is where the profile's webhook_url is forwarded (other
	// targets): the webhook checks receive deliveries there.
	ReceiverAddr string
	// Bounds are the run's limits (zero: check.DefaultBounds, with the
	// environment's overrides: BoundsFromEnv).
	Bounds check.Bounds
}

// BoundsFromEnv is check.DefaultBounds with the environment's overrides:
// TOUCHSTONE_REQUEST_TIMEOUT and TOUCHSTONE_CHECK_TIMEOUT (durations, the
// latter for slow checks too) and TOUCHSTONE_MAX_BODY (bytes). The runner
// reads them here, once; the packages below get the values.
func BoundsFromEnv() check.Bounds {
	b := check.DefaultBounds()
	dur := func(name string, d *time.Duration) {
		if v, err := time.ParseDuration(os.Getenv(name)); err == nil && v > 0 {
			*d = v
		}
	}
	dur("TOUCHSTONE_REQUEST_TIMEOUT", &b.Request)
	dur("TOUCHSTONE_CHECK_TIMEOUT", &b.Check)
	dur("TOUCHSTONE_CHECK_TIMEOUT", &b.SlowCheck)
	if n, err := strconv.ParseInt(os.Getenv("TOUCHSTONE_MAX_BODY"), 10, 64); err == nil && n > 0 {
		b.MaxBody = n
	}
	return b
}

// Launched is a ready target and how to stop what was started for it.
type Launched struct {
	Target   *check.Target
	Embedded *sandbox.Running // nil for a user's target
}

// Close stops an embedded sandbox.
func (l *Launched) Close() {
	if l.Embedded != nil {
		_ = l.Embedded.Close()
	}
}

// ConfigError is a problem with the user's input (exit 2).
type ConfigError struct{ Err error }

func (e *ConfigError) Error() string { return e.Err.Error() }

// UnreachableError means the target gave no HTTP answer (exit 3).
type UnreachableError struct{ Err error }

func (e *UnreachableError) Error() string { return e.Err.Error() }

// Start resolves the target.
func Start(ctx context.Context, o Options) (*Launched, error) {
	l := &Launched{}
	var p *profile.Profile
	if o.ProfilePath != "" {
		var err error
		if p, err = profile.Load(o.ProfilePath); err != nil {
			return nil, &ConfigError{err}
		}
	} else {
		if o.Fault != "" {
			if _, err := sandbox.LookupFault(o.Fault); err != nil {
				return nil, &ConfigError{err}
			}
		}
		run, err := sandbox.StartVirtual(o.Seed, o.Fault)
		if err != nil {
			return nil, fmt.Errorf("start embedded sandbox: %v", err)
		}
		l.Embedded, p = run, run.Profile
	}
	if o.Bounds == (check.Bounds{}) {
		o.Bounds = BoundsFromEnv()
	}
	t, err := check.NewTargetWith(ctx, p, o.AllowLive, o.Bounds)
	if err != nil {
		l.Close()
		return nil, &UnreachableError{err}
	}
	if err := t.Reachable(ctx); err != nil {
		l.Close()
		return nil, &UnreachableError{err}
	}
	if l.Embedded != nil {
		// The embedded sandbox is the harness's own loopback server: no
		// key of it reaches a real system, so the live-key write guard
		// does not apply (its "live" key is refused by the sandbox itself).
		t.AllowLive = true
	}
	client.AllowLive(t.HTTP, t.AllowLive)
	t.ReceiverAddr = o.ReceiverAddr
	l.Target = t
	return l, nil
}

// FromEnv starts the target named by TOUCHSTONE_PROFILE, or the embedded
// sandbox when it is unset.
func FromEnv(ctx context.Context) (*Launched, error) {
	return Start(ctx, Options{ProfilePath: os.Getenv(ProfileEnv), Seed: 1, AllowLive: os.Getenv("TOUCHSTONE_ALLOW_LIVE") == "1"})
}
