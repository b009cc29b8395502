package load_test

import (
	"fmt"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/load"
)

// Benchmarks (not timed tests); figures in the README with their commands:
//
//	go test ./load -run '^$' -bench 'Throughput' -benchtime 20000x
//	go test ./load -run '^$' -bench 'ConstantRate' -benchtime 1x
//	go test ./load -run '^$' -bench 'Memory/n=100000' -benchtime 1x

func meTarget(tgt *check.Target) vegeta.Target {
	return vegeta.Target{Method: http.MethodGet, URL: tgt.Profile.BaseURL + "/api/v1/partner/me",
		Header: http.Header{"X-Api-Key": {tgt.Profile.Key("tenant")}}}
}

// BenchmarkThroughput compares the probe engine (harness client, recorder
// with vegeta's encoder, metrics and per-second counts) with a raw vegeta
// attack on the same sandbox route: one op is one request.
func BenchmarkThroughput(b *testing.B) {
	tgt := startSandbox(b, "")
	tt := meTarget(tgt)
	const workers = 16
	b.Run("raw-vegeta", func(b *testing.B) {
		atk := vegeta.NewAttacker(vegeta.Workers(workers), vegeta.MaxWorkers(workers), vegeta.KeepAlive(true))
		n := 0
		start := time.Now()
		for range atk.Attack(vegeta.NewStaticTargeter(tt), load.Count{N: uint64(b.N)}, 0, "raw") {
			n++
		}
		b.ReportMetric(float64(n)/time.Since(start).Seconds(), "req/s")
	})
	b.Run("engine", func(b *testing.B) {
		eng := &load.Engine{HTTP: tgt.HTTP}
		rec := load.NewRecorder(nil)
		start := time.Now()
		err := eng.Run(b.Context(), load.Attack{Name: "engine", Targeter: load.Targets([]vegeta.Target{tt}, nil), Pacer: load.Count{N: uint64(b.N)}, Workers: workers}, rec, nil)
		if err != nil {
			b.Fatal(err)
		}
		rec.Close()
		if rec.Requests() != uint64(b.N) {
			b.Fatalf("%d results, want %d", rec.Requests(), b.N)
		}
		b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "req/s")
	})
}

// BenchmarkConstantRate measures the achieved rate of a constant pacer
// through the engine: (N-1) / (last - first hit).
func BenchmarkConstantRate(b *testing.B) {
	tgt := startSandbox(b, "")
	tt := meTarget(tgt)
	for _, rate := range []int{10, 50, 100, 250, 500} {
		b.Run("rps="+strconv.Itoa(rate), func(b *testing.B) {
			dur := 3 * time.Second
			if rate <= 10 {
				dur = 5 * time.Second
			}
			for i := 0; i < b.N; i++ {
				eng := &load.Engine{HTTP: tgt.HTTP}
				rec := load.NewRecorder(nil)
				var first, last time.Time
				n := 0
				err := eng.Run(b.Context(), load.Attack{Name: "rate", Targeter: load.Targets([]vegeta.Target{tt}, nil), Pacer: vegeta.Rate{Freq: rate, Per: time.Second}, Duration: dur, Workers: 64},
					rec, func(r *vegeta.Result) {
						if first.IsZero() || r.Timestamp.Before(first) {
							first = r.Timestamp
						}
						if r.Timestamp.After(last) {
							last = r.Timestamp
						}
						n++
					})
				if err != nil {
					b.Fatal(err)
				}
				achieved := float64(n-1) / last.Sub(first).Seconds()
				b.ReportMetric(achieved, "achieved-rps")
				b.ReportMetric(100*(achieved-float64(rate))/float64(rate), "deviation-%")
			}
		})
	}
}

// BenchmarkMemory runs probes of growing size through the engine,
// streaming to a results file, and reports the process's peak RSS and the
// live heap after the run: flat as N grows because results are never
// kept. Run one size per process for a clean peak.
func BenchmarkMemory(b *testing.B) {
	tgt := startSandbox(b, "")
	tt := meTarget(tgt)
	for _, n := range []int{10000, 50000, 100000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				f, err := os.Create(b.TempDir() + "/mem.bin")
				if err != nil {
					b.Fatal(err)
				}
				eng := &load.Engine{HTTP: tgt.HTTP}
				rec := load.NewRecorder(f)
				err = eng.Run(b.Context(), load.Attack{Name: "mem", Targeter: load.Targets([]vegeta.Target{tt}, nil), Pacer: load.Count{N: uint64(n)}, Workers: 16}, rec, nil)
				if err != nil {
					b.Fatal(err)
				}
				rec.Close()
				runtime.GC()
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heap-MB")
				b.ReportMetric(peakRSS()/(1<<20), "peak-rss-MB")
			}
		})
	}
}

// peakRSS reads VmHWM (bytes) from /proc/self/status (0 elsewhere).
func peakRSS() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			return kb * 1024
		}
	}
	return 0
}
