// Package load probes the documented rate limits and the target's latency
// with vegeta used as a library (document 2, Limits), and writes the load
// report. Each probe is a check (ids "load/...") so that `touchstone run`
// and the fault-mode proof run it like any other; `touchstone load` runs
// them with their artefacts on disk.
package load

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

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
// set, is called per hit (e.g. for a new Idempotency-Key).
func Targets(ts []vegeta.Target, fresh func(*vegeta.Target)) vegeta.Targeter {
	var mu sync.Mutex
	i := 0
	return func(t *vegeta.Target) error {
		mu.Lock()
		tt := ts[i%len(ts)]
		i++
		mu.Unlock()
		tt.Header = tt.Header.Clone()
		if fresh != nil {
			fresh(&tt)
		}
		*t = tt
		return nil
	}
}

// Second is one second of a probe: answers by class.
type Second struct {
	At       time.Time     `json:"at"`
	Admitted int           `json:"admitted"`
	Limited  int           `json:"limited"`
	Other    int           `json:"other"`
	MeanLat  time.Duration `json:"mean_latency_ns"`
	MaxLat   time.Duration `json:"max_latency_ns"`
}

// Recorder streams a probe's results to its vegeta binary file and keeps
// only aggregates: vegeta Metrics (with its histogram) and per-second counts.
type Recorder struct {
	mu      sync.Mutex
	enc     vegeta.Encoder
	closer  io.Closer
	Metrics *vegeta.Metrics
	seconds map[int64]*Second
	sum     map[int64]time.Duration
	// Offset turns local result timestamps into the server's clock.
	Offset time.Duration
	fixed  time.Time
}

// SetFixed files the results that follow at server time at (a virtual
// clock standing still); the zero time goes back to local time + Offset.
func (r *Recorder) SetFixed(at time.Time) {
	r.mu.Lock()
	r.fixed = at
	r.mu.Unlock()
}

// HistogramBuckets are the latency buckets of every probe's histogram.
var HistogramBuckets = vegeta.Buckets{0, time.Millisecond, 2 * time.Millisecond, 5 * time.Millisecond, 10 * time.Millisecond,
	25 * time.Millisecond, 50 * time.Millisecond, 100 * time.Millisecond, 250 * time.Millisecond, 500 * time.Millisecond, time.Second}

// NewRecorder writes results to w (io.Discard when nil) with vegeta's
// binary encoder, so `vegeta report` and `vegeta plot` read the file.
func NewRecorder(w io.Writer) *Recorder {
	if w == nil {
		w = io.Discard
	}
	r := &Recorder{enc: vegeta.NewEncoder(w), seconds: map[int64]*Second{}, sum: map[int64]time.Duration{},
		Metrics: &vegeta.Metrics{Histogram: &vegeta.Histogram{Buckets: HistogramBuckets}}}
	if c, ok := w.(io.Closer); ok {
		r.closer = c
	}
	return r
}

// Add records one result.
func (r *Recorder) Add(res *vegeta.Result) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.enc.Encode(res); err != nil {
		return fmt.Errorf("write results: %w", err)
	}
	r.Metrics.Add(res)
	sec := res.Timestamp.Add(r.Offset).Truncate(time.Second)
	if !r.fixed.IsZero() {
		sec = r.fixed.Truncate(time.Second)
	}
	s := r.seconds[sec.Unix()]
	if s == nil {
		s = &Second{At: sec.UTC()}
		r.seconds[sec.Unix()] = s
	}
	switch {
	case res.Code == http.StatusTooManyRequests:
		s.Limited++
	case res.Code >= 200 && res.Code < 400:
		s.Admitted++
	default:
		s.Other++
	}
	r.sum[sec.Unix()] += res.Latency
	s.MeanLat = r.sum[sec.Unix()] / time.Duration(s.Admitted+s.Limited+s.Other)
	s.MaxLat = max(s.MaxLat, res.Latency)
	return nil
}

// Close finishes the metrics and the file.
func (r *Recorder) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.Metrics.Close()
	if r.closer != nil {
		return r.closer.Close()
	}
	return nil
}

// Seconds returns the per-second counts in time order.
func (r *Recorder) Seconds() []Second {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]Second, 0, len(r.seconds))
	for _, s := range r.seconds {
		out = append(out, *s)
	}
	sortSeconds(out)
	return out
}
