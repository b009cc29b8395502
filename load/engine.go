// Package load probes the documented rate limits and the target's latency
// with vegeta used as a library (document 2, Limits), and writes the load
// report. Each probe is a check (ids "load/...") so that `touchstone run`
// and the fault-mode proof run it like any other; `touchstone load` runs
// them with their artefacts on disk.
package load

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/touchstone-harness/touchstone/internal/client"
	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// Count is a vegeta Pacer that sends exactly N hits back to back (vegeta's
// PacerFunc is not a Pacer: it lacks Rate).
type Count struct{ N uint64 }

// Pace implements vegeta.Pacer.
func (p Count) Pace(_ time.Duration, hits uint64) (time.Duration, bool) { return 0, hits >= p.N }

// Rate implements vegeta.Pacer.
func (p Count) Rate(time.Duration) float64 { return 0 }

// Attack is one vegeta attack: what to send, how fast, within what bounds.
type Attack struct {
	Name     string
	Targeter vegeta.Targeter
	Pacer    vegeta.Pacer
	// Duration bounds a paced attack (0: until the pacer stops).
	Duration time.Duration
	Workers  uint64
}

// Engine runs attacks through the harness's HTTP client (TLS verification,
// CA bundle, proxy) with a new vegeta Attacker per attack.
type Engine struct {
	HTTP *http.Client
	// MaxRequests and MaxDuration bound every attack (0: no bound of that kind).
	MaxRequests uint64
	MaxDuration time.Duration
	// Budget names the rate-limit budget a request spends (method, route
	// template, key role; see Probe.budget); nil leaves results unnamed.
	// It sees each request as it leaves, so the recorder can file every
	// result under its budget although vegeta keeps no request headers.
	Budget func(*http.Request) string
}

// engineTransport is the transport of the engine's copy of the harness
// client: when told, it notes the budget of each request under its vegeta
// sequence number (one attack, one Attacker: the numbers are unique). The
// client's timeout bounds each request through its context
// (client.AttemptBound: net/http does the same for its own transport; for
// any other, and the harness's is wrapped, it starts a goroutine per
// request, which cost the engine about 10 % of raw vegeta's rate).
type engineTransport struct {
	next http.RoundTripper
	name func(*http.Request) string
	seen sync.Map // uint64 → string
}

func (t *engineTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if t.name != nil {
		if seq, err := strconv.ParseUint(r.Header.Get("X-Vegeta-Seq"), 10, 64); err == nil {
			t.seen.Store(seq, t.name(r))
		}
	}
	return t.next.RoundTrip(r)
}

func (t *engineTransport) take(seq uint64) string {
	v, _ := t.seen.LoadAndDelete(seq)
	s, _ := v.(string)
	return s
}

// bounded stops a pacer after n hits.
type bounded struct {
	vegeta.Pacer
	n uint64
}

func (b bounded) Pace(el time.Duration, hits uint64) (time.Duration, bool) {
	if hits >= b.n {
		return 0, true
	}
	return b.Pacer.Pace(el, hits)
}

// Run sends the attack and hands every result to rec (and each), in the
// order they arrive. It never keeps results in memory.
func (e *Engine) Run(ctx context.Context, a Attack, rec *Recorder, each func(*vegeta.Result)) error {
	workers := a.Workers
	if workers == 0 {
		workers = 16
	}
	pacer := a.Pacer
	if e.MaxRequests > 0 {
		pacer = bounded{pacer, e.MaxRequests}
	}
	dur := a.Duration
	if e.MaxDuration > 0 && (dur == 0 || dur > e.MaxDuration) {
		dur = e.MaxDuration
	}
	// vegeta.Client replaces vegeta's own client (pitfall 4): transport
	// options must not follow it.
	hc := *e.HTTP
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	next := hc.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	et := &engineTransport{next: &client.AttemptBound{Next: next, Timeout: hc.Timeout}, name: e.Budget}
	hc.Transport, hc.Timeout = et, 0 // the transport bounds each request
	rec.setBudgets(nil)
	if e.Budget != nil {
		rec.setBudgets(et.take)
		defer rec.setBudgets(nil)
	}
	atk := vegeta.NewAttacker(vegeta.Client(&hc), vegeta.Workers(workers), vegeta.MaxWorkers(workers), vegeta.MaxBody(64<<10))
	results := atk.Attack(a.Targeter, pacer, dur, a.Name)
	done := ctx.Done()
	var deadline <-chan time.Time
	if e.MaxDuration > 0 {
		tm := time.NewTimer(e.MaxDuration + 10*time.Second)
		defer tm.Stop()
		deadline = tm.C
	}
	for {
		select {
		case r, ok := <-results:
			if !ok {
				return nil
			}
			if err := rec.Add(r); err != nil {
				atk.Stop()
				return err
			}
			if each != nil {
				each(r)
			}
		case <-done:
			atk.Stop()
			done = nil
		case <-deadline:
			atk.Stop()
			deadline = nil
		}
	}
}

// Targets builds a Targeter cycling through fixed targets; fresh, when
// set, is called per hit (e.g. for a new Idempotency-Key) on a copy of the
// target's headers. Without it the hits share the headers: vegeta only
// reads them (Target.Request copies them into each request).
func Targets(ts []vegeta.Target, fresh func(*vegeta.Target)) vegeta.Targeter {
	var i atomic.Uint64
	return func(t *vegeta.Target) error {
		tt := ts[(i.Add(1)-1)%uint64(len(ts))]
		if fresh != nil {
			tt.Header = tt.Header.Clone()
			fresh(&tt)
		}
		*t = tt
		return nil
	}
}
