package load

import (
	"encoding/json"
	"fmt"
	"os"
	"time"
)

// Measure is one documented value with the value measured beside it.
type Measure struct {
	What       string `json:"what"`
	Documented string `json:"documented"`
	Measured   string `json:"measured"`
}

// Latencies are a probe's latency percentiles (vegeta's t-digest).
type Latencies struct {
	Mean time.Duration `json:"mean_ns"`
	P50  time.Duration `json:"p50_ns"`
	P90  time.Duration `json:"p90_ns"`
	P95  time.Duration `json:"p95_ns"`
	P99  time.Duration `json:"p99_ns"`
	Max  time.Duration `json:"max_ns"`
}

// Bucket is one bar of the latency histogram: answers faster than Upper
// (and at least the previous bucket's Upper).
type Bucket struct {
	Lower time.Duration `json:"lower_ns"`
	Upper time.Duration `json:"upper_ns"` // 0: no upper bound
	Count uint64        `json:"count"`
}

// Summary is a probe's JSON summary: verdict, measures, metrics, shape.
type Summary struct {
	Probe  string   `json:"probe"`
	Check  string   `json:"check"`
	Rules  []string `json:"rules"`
	Passed bool     `json:"passed"`
	// Outcome is the check's status: passed, failed, skipped or error (no
	// verdict: the harness could not tell).
	Outcome    string         `json:"outcome,omitempty"`
	Failures   []string       `json:"failures,omitempty"`
	Virtual    bool           `json:"virtual_clock"`
	Started    time.Time      `json:"started"`
	Duration   time.Duration  `json:"duration_ns"`
	Measures   []Measure      `json:"measures,omitempty"`
	Requests   uint64         `json:"requests"`
	Rate       float64        `json:"rate"`       // requests per second sent (N / span)
	Throughput float64        `json:"throughput"` // 2xx/3xx per second
	ErrorRate  float64        `json:"error_rate"` // share of answers that are neither 2xx/3xx nor 429, nor sent
	Status     map[string]int `json:"status_codes"`
	Latency    Latencies      `json:"latency"`
	Histogram  []Bucket       `json:"histogram"`
	Seconds    []Second       `json:"seconds"`
	Boundaries []time.Time    `json:"boundaries,omitempty"`
	// AccessRequestsBudget is the measured budget of POST V2/access-requests.
	AccessRequestsBudget int `json:"access_requests_budget,omitempty"`
}

// fill copies the recorder's aggregates.
func (s *Summary) fill(r *Recorder) {
	m := r.Metrics
	s.Requests = m.Requests
	s.Rate, s.Throughput = m.Rate, m.Throughput
	s.Status = m.StatusCodes
	s.Latency = Latencies{Mean: m.Latencies.Mean, P50: m.Latencies.P50, P90: m.Latencies.P90, P95: m.Latencies.P95, P99: m.Latencies.P99, Max: m.Latencies.Max}
	var bad int
	for code, n := range m.StatusCodes {
		if code != "429" && (len(code) != 3 || (code[0] != '2' && code[0] != '3')) {
			bad += n
		}
	}
	if m.Requests > 0 {
		s.ErrorRate = float64(bad) / float64(m.Requests)
	}
	s.Histogram = nil
	if h := m.Histogram; h != nil {
		for i, n := range h.Counts {
			b := Bucket{Lower: h.Buckets[i], Count: n}
			if i+1 < len(h.Buckets) {
				b.Upper = h.Buckets[i+1]
			}
			s.Histogram = append(s.Histogram, b)
		}
	}
	s.Seconds = r.Seconds()
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
