package load

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/touchstone-harness/touchstone/internal/check"
)

// Options configure the probes of one run (a Session: touchstone load sets
// them; touchstone run and go test use the defaults).
type Options struct {
	// OutDir receives <probe>.bin and <probe>.json; empty writes nothing.
	OutDir string
	// MaxRequests and MaxDuration bound every attack.
	MaxRequests uint64
	MaxDuration time.Duration
	// LatencyRate and LatencyDuration shape the latency probe.
	LatencyRate     int
	LatencyDuration time.Duration
	// Workers bounds the concurrency of every attack (0: 16).
	Workers uint64
}

// DefaultOptions bound each attack to 10,000 requests and 2 minutes.
func DefaultOptions() Options {
	return Options{MaxRequests: 10000, MaxDuration: 2 * time.Minute, LatencyRate: 200, LatencyDuration: 10 * time.Second, Workers: 16}
}

// Session is one run's load state: its options and what its probes
// measured (by probe). The runner attaches one to the run's target (Attach)
// and the probes find it there: two runs in one process, each on its own
// target, share none of it. Safe for concurrent use.
type Session struct {
	opts Options

	mu        sync.Mutex
	summaries map[string]*Summary
}

// sessionKey is the key of a target's Session (check.Target.Value).
type sessionKey struct{}

func newSession(o Options) *Session {
	if o.Workers == 0 {
		o.Workers = 16
	}
	return &Session{opts: o, summaries: map[string]*Summary{}}
}

// Attach starts a session with options o on target: the probes run on
// target from now on use o and file their summaries in it. A session
// attached earlier to target is replaced (its summaries are no longer the
// target's).
func Attach(target *check.Target, o Options) *Session {
	s := newSession(o)
	target.SetValue(sessionKey{}, s)
	return s
}

// sessionOf is target's session: the one attached, else (go test of a
// probe, touchstone run) one with DefaultOptions, kept on the target for
// the probes run on it after.
func sessionOf(target *check.Target) *Session {
	return target.Value(sessionKey{}, func() any { return newSession(DefaultOptions()) }).(*Session)
}

// Options are the session's options.
func (s *Session) Options() Options { return s.opts }

// Summaries returns what the session's probes measured, by probe.
func (s *Session) Summaries() map[string]*Summary {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]*Summary, len(s.summaries))
	for k, v := range s.summaries {
		out[k] = v
	}
	return out
}

// file keeps a probe's summary and, with OutDir, writes <probe>.json.
func (s *Session) file(sum *Summary) {
	s.mu.Lock()
	s.summaries[sum.Probe] = sum
	s.mu.Unlock()
	s.write(sum)
}

func (s *Session) write(sum *Summary) {
	if s.opts.OutDir == "" {
		return
	}
	b, _ := json.MarshalIndent(sum, "", "  ")
	_ = os.WriteFile(filepath.Join(s.opts.OutDir, sum.Probe+".json"), b, 0o644)
}

// Judged files the runner's verdict on a probe (r: its failures, a skip
// or no-verdict reason) in the probe's summary, rewrites <probe>.json and
// returns the summary, or nil when the probe filed none in this session.
func (s *Session) Judged(r *check.Result) *Summary {
	s.mu.Lock()
	sum := s.summaries[strings.TrimPrefix(r.ID, "load/")]
	s.mu.Unlock()
	if sum == nil {
		return nil
	}
	var failures []string
	for _, x := range r.Failures {
		failures = append(failures, "["+x.Rule+"] "+x.Message)
	}
	switch r.Status {
	case check.Error:
		failures = append(failures, "no verdict: "+r.Error)
	case check.Skipped:
		failures = append(failures, "skipped: "+r.SkipReason)
	}
	sum.Passed, sum.Outcome, sum.Failures = r.Status == check.Passed, string(r.Status), failures
	s.write(sum)
	return sum
}
