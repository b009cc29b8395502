package load

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Measure is one documented value with the value measured beside it.
type Measure struct {
	What       string `json:"what"`
	Documented string `json:"documented"`
	Measured   string `json:"measured"`
}

// Latencies are percentiles read from an HDR histogram (exact to 0.1 %): a
// probe's over every answer (its mean exact), or a time bin's.
type Latencies struct {
	Mean time.Duration `json:"mean_ns"`
	P50  time.Duration `json:"p50_ns"`
	P90  time.Duration `json:"p90_ns"`
	P95  time.Duration `json:"p95_ns"`
	P99  time.Duration `json:"p99_ns"`
	P999 time.Duration `json:"p999_ns"`
	Max  time.Duration `json:"max_ns"`
}

// Limit is a documented limit a probe's answers are drawn against.
type Limit struct {
	// Value is the documented number per clock-minute window (0: the
	// document gives no number).
	Value int `json:"value"`
	// What it counts, in the document's words.
	What string `json:"what"`
	// TenantWide marks the tenant-wide ceiling: it counts every budget.
	TenantWide bool `json:"tenant_wide,omitempty"`
}

// Answers count answers by class.
type Answers struct {
	Admitted int `json:"admitted"` // 2xx/3xx
	Limited  int `json:"limited_429"`
	Other    int `json:"other"` // any other status, or no answer
}

func (a *Answers) add(class int) {
	switch class {
	case classAdmitted:
		a.Admitted++
	case classLimited:
		a.Limited++
	default:
		a.Other++
	}
}

func (a *Answers) merge(b Answers) {
	a.Admitted, a.Limited, a.Other = a.Admitted+b.Admitted, a.Limited+b.Limited, a.Other+b.Other
}

// Total is the number of answers.
func (a Answers) Total() int { return a.Admitted + a.Limited + a.Other }

// Window is what one budget answered in one clock-minute window of the
// server's clock.
type Window struct {
	Start time.Time `json:"start"`
	// Budget is the method, route template and key role the requests
	// spent ("" when the engine was not told).
	Budget string `json:"budget"`
	Answers
}

// Summary is a probe's JSON summary: verdict, measures, metrics, shape.
type Summary struct {
	Probe  string   `json:"probe"`
	Check  string   `json:"check"`
	Rules  []string `json:"rules"`
	Passed bool     `json:"passed"`
	// Outcome is the check's status: passed, failed, skipped or error (no
	// verdict: the harness could not tell).
	Outcome  string        `json:"outcome,omitempty"`
	Failures []string      `json:"failures,omitempty"`
	Virtual  bool          `json:"virtual_clock"`
	Started  time.Time     `json:"started"`
	Duration time.Duration `json:"duration_ns"`
	// ClockOffset is the server's clock minus this machine's, estimated
	// from Date (0 on a virtual clock; the first shard's in a merge).
	ClockOffset time.Duration `json:"clock_offset_ns"`
	// Shards is the number of shards merged (0: one run).
	Shards   int       `json:"shards,omitempty"`
	Measures []Measure `json:"measures,omitempty"`
	Requests uint64    `json:"requests"`
	// RequestedRate is the rate the probe asked for (the latency probe's;
	// 0 for a burst).
	RequestedRate float64 `json:"requested_rate,omitempty"`
	Rate          float64 `json:"rate"`       // requests per second sent (N / span of send times, as vegeta report)
	Throughput    float64 `json:"throughput"` // 2xx/3xx per second (as vegeta report)
	// Limited counts the 429 answers.
	Limited int `json:"limited_429"`
	// ErrorRate is the share of answers that are errors for the probe:
	// neither 2xx/3xx nor sent, and 429 too for the latency probe (which
	// keeps under every budget: a 429 there is an error); for a rate-limit
	// probe a 429 is what it measures.
	ErrorRate float64        `json:"error_rate"`
	Status    map[string]int `json:"status_codes"`
	Latency   Latencies      `json:"latency"`
	// HDR holds each answer class's latency histogram ("all", "admitted",
	// "429", "other"): HdrHistogram V2 compressed, base64, microseconds;
	// any HdrHistogram implementation reads it.
	HDR map[string]string `json:"hdr"`
	// Limits are the documented limits the windows are drawn against.
	Limits []Limit `json:"documented_limits,omitempty"`
	// Windows are the answers per clock-minute window and budget.
	Windows  []Window  `json:"windows"`
	Timeline *Timeline `json:"timeline,omitempty"`
	// Boundaries are the clock-minute boundaries the probe moved or waited
	// across (server clock).
	Boundaries []time.Time `json:"boundaries,omitempty"`
	// AccessRequestsBudget is the measured budget of POST V2/access-requests.
	AccessRequestsBudget int `json:"access_requests_budget,omitempty"`
}

// limitedIsError tells whether a 429 is an error for probe: only for the
// latency probe, whose budgets are its own and never reached.
func limitedIsError(probe string) bool { return probe == "latency" }

// fill copies the recorder's aggregates.
func (s *Summary) fill(r *Recorder) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	s.Requests = r.requests
	s.Status = map[string]int{}
	for k, v := range r.status {
		s.Status[k] = v
	}
	s.Rate, s.Throughput = 0, 0
	if dur := r.latest.Sub(r.earliest); dur > 0 {
		s.Rate = float64(r.requests) / dur.Seconds()
		s.Throughput = float64(r.success) / (dur + r.end.Sub(r.latest)).Seconds()
	}
	s.Limited = s.Status["429"]
	bad := int(r.requests - r.success)
	if !limitedIsError(s.Probe) {
		bad -= s.Limited
	}
	s.ErrorRate = 0
	if r.requests > 0 {
		s.ErrorRate = float64(bad) / float64(r.requests)
	}
	s.Latency = latenciesOf(r.hist[classAll])
	if r.requests > 0 {
		s.Latency.Mean = r.latTotal / time.Duration(r.requests) // exact
	}
	s.HDR = map[string]string{}
	for i, h := range r.hist {
		if h.TotalCount() == 0 && i != classAll {
			continue
		}
		b, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
		if err != nil {
			return fmt.Errorf("encode HDR histogram: %v", err)
		}
		s.HDR[classNames[i]] = string(b)
	}
	return nil
}

// Histogram decodes the HDR histogram of answer class ("all", "admitted",
// "429", "other"); nil when the probe had no such answer.
func (s *Summary) Histogram(class string) (*hdrhistogram.Histogram, error) {
	enc, ok := s.HDR[class]
	if !ok {
		return nil, nil
	}
	h, err := hdrhistogram.Decode([]byte(enc))
	if err != nil {
		return nil, fmt.Errorf("%s: HDR histogram %q: %v", s.Probe, class, err)
	}
	return h, nil
}

// ReadSummary reads a probe's JSON summary.
func ReadSummary(path string) (*Summary, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var s Summary
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return &s, nil
}
