package load_test

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/load"
)

// Benchmarks (not timed tests); figures in the README with their commands:
//
//	go test ./load -run '^$' -bench 'Throughput' -benchtime 20000x
//	go test ./load -run '^$' -bench 'Throughput/paired' -benchtime 50000x
//	go test ./load -run '^$' -bench 'ConstantRate' -benchtime 1x
//	go test ./load -run '^$' -bench 'Memory/n=100000' -benchtime 1x

func meTarget(tgt *check.Target) vegeta.Target {
	return vegeta.Target{Method: http.MethodGet, URL: tgt.Profile.BaseURL + "/api/v1/partner/me",
		Header: http.Header{"X-Api-Key": {tgt.Profile.Key("tenant")}}}
}

// BenchmarkThroughput compares the probe engine (harness client, recorder:
// HDR histograms, windows) with a raw vegeta attack on the same sandbox
// route, 16 workers each: one op is one request. The paired form
// alternates them in ten rounds of b.N/10 requests each, so that a busy
// machine slows all alike, also with each streaming its results to a file
// with vegeta's encoder (raw: as `vegeta attack > r.bin`; the engine: its
// <probe>.bin), and reports the ratios of their rates (engine / raw) and
// the process's CPU time per request (client and sandbox).
func BenchmarkThroughput(b *testing.B) {
	tgt := startSandbox(b, "")
	tt := meTarget(tgt)
	const workers = 16
	file := func() *os.File {
		f, err := os.Create(filepath.Join(b.TempDir(), "r.bin"))
		if err != nil {
			b.Fatal(err)
		}
		return f
	}
	raw := func(n int, toFile bool) time.Duration {
		atk := vegeta.NewAttacker(vegeta.Workers(workers), vegeta.MaxWorkers(workers), vegeta.KeepAlive(true))
		var enc vegeta.Encoder
		if toFile {
			f := file()
			defer f.Close()
			enc = vegeta.NewEncoder(f)
		}
		start := time.Now()
		got := 0
		for r := range atk.Attack(vegeta.NewStaticTargeter(tt), load.Count{N: uint64(n)}, 0, "raw") {
			if enc != nil {
				if err := enc.Encode(r); err != nil {
					b.Fatal(err)
				}
			}
			got++
		}
		if got != n {
			b.Fatalf("raw vegeta: %d results, want %d", got, n)
		}
		return time.Since(start)
	}
	engine := func(n int, toFile bool) time.Duration {
		eng := &load.Engine{HTTP: tgt.HTTP}
		rec := load.NewRecorder(nil)
		if toFile {
			rec = load.NewRecorder(file())
		}
		start := time.Now()
		if err := eng.Run(b.Context(), load.Attack{Name: "engine", Targeter: load.Targets([]vegeta.Target{tt}, nil), Pacer: load.Count{N: uint64(n)}, Workers: workers}, rec, nil); err != nil {
			b.Fatal(err)
		}
		rec.Close()
		if rec.Requests() != uint64(n) {
			b.Fatalf("engine: %d results, want %d", rec.Requests(), n)
		}
		return time.Since(start)
	}
	b.Run("raw-vegeta", func(b *testing.B) {
		b.ReportMetric(float64(b.N)/raw(b.N, false).Seconds(), "req/s")
	})
	b.Run("engine", func(b *testing.B) {
		b.ReportMetric(float64(b.N)/engine(b.N, false).Seconds(), "req/s")
	})
	b.Run("paired", func(b *testing.B) {
		n := max(b.N/10, 1)
		legs := []struct {
			name   string
			run    func(int, bool) time.Duration
			toFile bool
		}{{"raw", raw, false}, {"engine", engine, false}, {"raw+file", raw, true}, {"engine+file", engine, true}}
		wall := make([]time.Duration, len(legs))
		cpu := make([]time.Duration, len(legs))
		for range 10 {
			for i, l := range legs {
				c := cpuTime()
				wall[i] += l.run(n, l.toFile)
				cpu[i] += cpuTime() - c
			}
		}
		for i, l := range legs {
			b.ReportMetric(float64(10*n)/wall[i].Seconds(), l.name+"-req/s")
			b.ReportMetric(float64(cpu[i].Microseconds())/float64(10*n), l.name+"-cpu-µs/req")
		}
		b.ReportMetric(wall[0].Seconds()/wall[1].Seconds(), "engine/raw")
		b.ReportMetric(wall[2].Seconds()/wall[3].Seconds(), "engine+file/raw+file")
	})
}

// BenchmarkRecorderAdd is the recorder's cost per result (the engine's
// only work beside vegeta's): encoding to the results file (io.Discard
// here), HDR histograms, windows.
func BenchmarkRecorderAdd(b *testing.B) {
	body := []byte(strings.Repeat("x", 720))
	h := http.Header{"Content-Type": {"application/json"}, "Date": {"Wed, 25 Nov 2026 10:00:00 GMT"}, "X-Correlation-Id": {"load/latency#abcd"}}
	rec := load.NewRecorder(nil)
	start := time.Now()
	b.ResetTimer()
	for i := range b.N {
		r := vegeta.Result{Attack: "bench", Seq: uint64(i), Code: 200, Timestamp: start.Add(time.Duration(i) * time.Microsecond), Latency: time.Millisecond, Body: body, Headers: h, Method: "GET", URL: "http://127.0.0.1/api/v1/partner/me"}
		if err := rec.Add(&r); err != nil {
			b.Fatal(err)
		}
	}
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

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
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
