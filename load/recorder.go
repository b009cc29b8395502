package load

import (
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"sync"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// Answer classes: every result is admitted (2xx/3xx), limited (429) or
// other (any other status, or no answer).
const (
	classAll = iota
	classAdmitted
	classLimited
	classOther
	nClasses
)

// classNames are the classes' names in summaries (Summary.HDR).
var classNames = [nClasses]string{"all", "admitted", "429", "other"}

func classOf(code uint16) int {
	switch {
	case code == http.StatusTooManyRequests:
		return classLimited
	case code >= 200 && code < 400:
		return classAdmitted
	}
	return classOther
}

// HDR histograms of latency in microseconds, from 1 µs to 10 min (longer
// answers are filed at 10 min) with 3 significant digits: every quantile
// is exact to 0.1 % (vegeta's own quantiles are a t-digest estimate).
const (
	hdrLowest  = 1
	hdrHighest = int64(10 * time.Minute / time.Microsecond)
	hdrDigits  = 3
)

func newHist(digits int) *hdrhistogram.Histogram {
	return hdrhistogram.New(hdrLowest, hdrHighest, digits)
}

func recordLatency(h *hdrhistogram.Histogram, d time.Duration) {
	_ = h.RecordValue(min(max(int64(d/time.Microsecond), hdrLowest), hdrHighest)) // in range: never an error
}

// quantile is the latency at q (0..100) of h.
func quantile(h *hdrhistogram.Histogram, q float64) time.Duration {
	return time.Duration(h.ValueAtQuantile(q)) * time.Microsecond
}

// latenciesOf reads the percentiles of h (and its mean, to its precision).
func latenciesOf(h *hdrhistogram.Histogram) Latencies {
	return Latencies{Mean: time.Duration(h.Mean() * float64(time.Microsecond)), P50: quantile(h, 50), P90: quantile(h, 90), P95: quantile(h, 95),
		P99: quantile(h, 99), P999: quantile(h, 99.9), Max: quantile(h, 100)}
}

// windowKey is one budget in one clock-minute window of the server.
type windowKey struct {
	minute int64 // unix seconds of the window's start
	budget string
}

// span is when (this machine's send time) a window's requests went out.
type span struct{ first, last time.Time }

// Recorder streams a probe's results to its vegeta binary file and keeps
// only aggregates: counts by status, an HDR latency histogram per answer
// class, and per server-clock window and budget, the answers. Its memory
// does not grow with the number of results.
type Recorder struct {
	mu     sync.Mutex
	enc    vegeta.Encoder
	closer io.Closer
	// Offset turns local result timestamps into the server's clock.
	Offset   time.Duration
	fixed    time.Time
	budgetOf func(seq uint64) string

	requests, success uint64
	status            map[string]int
	// earliest and latest send times, latest answer (local clock).
	earliest, latest, end time.Time
	// axisFirst and axisLast are the earliest and latest send times plus
	// Offset: on the server's clock when it is real.
	axisFirst, axisLast time.Time
	latTotal            time.Duration
	hist                [nClasses]*hdrhistogram.Histogram
	windows             map[windowKey]*Window
	spans               map[int64]*span
}

// NewRecorder writes results to w with vegeta's binary encoder, so
// `vegeta report` and `vegeta plot` read the file; with a nil w it keeps
// the aggregates only.
func NewRecorder(w io.Writer) *Recorder {
	r := &Recorder{status: map[string]int{}, windows: map[windowKey]*Window{}, spans: map[int64]*span{}}
	if w != nil {
		r.enc = vegeta.NewEncoder(w)
	}
	for i := range r.hist {
		r.hist[i] = newHist(hdrDigits)
	}
	if c, ok := w.(io.Closer); ok {
		r.closer = c
	}
	return r
}

// SetFixed files the results that follow at server time at (a virtual
// clock standing still); the zero time goes back to local time + Offset.
func (r *Recorder) SetFixed(at time.Time) {
	r.mu.Lock()
	r.fixed = at
	r.mu.Unlock()
}

func (r *Recorder) setBudgets(f func(seq uint64) string) {
	r.mu.Lock()
	r.budgetOf = f
	r.mu.Unlock()
}

// serverTime is when the server received res, on its clock: the fixed
// time of a virtual clock, else the middle of the exchange.
func (r *Recorder) serverTime(sent time.Time, latency time.Duration) time.Time {
	if !r.fixed.IsZero() {
		return r.fixed
	}
	return sent.Add(latency / 2).Add(r.Offset)
}

// Add records one result.
func (r *Recorder) Add(res *vegeta.Result) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.enc != nil {
		if err := r.enc.Encode(res); err != nil {
			return fmt.Errorf("write results: %w", err)
		}
	}
	r.requests++
	r.status[strconv.Itoa(int(res.Code))]++
	// The file keeps wall-clock times only: so do the extents, or a time
	// read back from it could fall outside them by the monotonic clock's
	// drift from the wall clock.
	ts := res.Timestamp.Round(0)
	if r.earliest.IsZero() || ts.Before(r.earliest) {
		r.earliest = ts
	}
	if ts.After(r.latest) {
		r.latest = ts
	}
	if end := ts.Add(res.Latency); end.After(r.end) {
		r.end = end
	}
	if at := ts.Add(r.Offset); r.axisFirst.IsZero() || at.Before(r.axisFirst) {
		r.axisFirst = at
	}
	if at := ts.Add(r.Offset); at.After(r.axisLast) {
		r.axisLast = at
	}
	r.latTotal += res.Latency
	class := classOf(res.Code)
	if class == classAdmitted {
		r.success++
	}
	recordLatency(r.hist[classAll], res.Latency)
	recordLatency(r.hist[class], res.Latency)

	minute := r.serverTime(ts, res.Latency).Truncate(time.Minute)
	budget := ""
	if r.budgetOf != nil {
		budget = r.budgetOf(res.Seq)
	}
	k := windowKey{minute.Unix(), budget}
	w := r.windows[k]
	if w == nil {
		w = &Window{Start: minute.UTC(), Budget: budget}
		r.windows[k] = w
	}
	w.add(class)
	sp := r.spans[k.minute]
	if sp == nil {
		r.spans[k.minute] = &span{ts, ts}
	} else {
		if ts.Before(sp.first) {
			sp.first = ts
		}
		if ts.After(sp.last) {
			sp.last = ts
		}
	}
	return nil
}

// Close finishes the file.
func (r *Recorder) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closer != nil {
		return r.closer.Close()
	}
	return nil
}

// Requests is the number of results recorded.
func (r *Recorder) Requests() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.requests
}

// Windows are the answers per server-clock window and budget, in time
// order then by budget.
func (r *Recorder) Windows() []Window {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]Window, 0, len(r.windows))
	for _, w := range r.windows {
		out = append(out, *w)
	}
	sortWindows(out)
	return out
}

func sortWindows(ws []Window) {
	sort.Slice(ws, func(i, j int) bool {
		if !ws[i].Start.Equal(ws[j].Start) {
			return ws[i].Start.Before(ws[j].Start)
		}
		return ws[i].Budget < ws[j].Budget
	})
}

// clientBoundaries places each window boundary a virtual clock crossed on
// this machine's send-time axis: half-way between the last request of a
// window and the first of the next (the clock was moved between them).
func (r *Recorder) clientBoundaries() []Boundary {
	r.mu.Lock()
	defer r.mu.Unlock()
	minutes := make([]int64, 0, len(r.spans))
	for m := range r.spans {
		minutes = append(minutes, m)
	}
	sort.Slice(minutes, func(i, j int) bool { return minutes[i] < minutes[j] })
	var out []Boundary
	for i := 1; i < len(minutes); i++ {
		a, b := r.spans[minutes[i-1]], r.spans[minutes[i]]
		out = append(out, Boundary{At: a.last.Add(b.first.Sub(a.last) / 2).UTC(), Window: time.Unix(minutes[i], 0).UTC()})
	}
	return out
}

// timeline bins the results of srcs (see buildTimeline) on the recorder's
// axis: the server's clock when it is real; on a virtual one, this
// machine's send time with the window boundaries bounds.
func (r *Recorder) timeline(virtual bool, srcs []binSource, bounds []Boundary) (*Timeline, error) {
	r.mu.Lock()
	first, last, n := r.axisFirst, r.axisLast, r.requests
	r.mu.Unlock()
	if n == 0 {
		return nil, nil
	}
	if virtual {
		return buildTimeline(AxisClient, first, last, n, srcs, bounds)
	}
	return buildTimeline(AxisServer, first, last, n, srcs, minuteBoundaries(first, last))
}
