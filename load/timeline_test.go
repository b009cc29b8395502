package load

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// writeBin writes results to a vegeta binary file through a recorder, as
// a probe does, and returns the recorder.
func writeBin(t *testing.T, path string, offset time.Duration, fixed func(i int) time.Time, rs []vegeta.Result) *Recorder {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	rec := NewRecorder(f)
	rec.Offset = offset
	for i := range rs {
		if fixed != nil {
			rec.SetFixed(fixed(i))
		}
		if err := rec.Add(&rs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	return rec
}

// A real clock's timeline is on the server's clock (send time + offset):
// bins of a width that cuts the span into at most 60, answers by class,
// the clock-minute boundaries where they fall, latency percentiles per
// bin from an HDR histogram.
func TestTimelineOnTheServersClock(t *testing.T) {
	start := time.Date(2026, 11, 25, 10, 0, 58, 0, time.UTC) // local clock
	const offset = 1500 * time.Millisecond                   // the server is 1.5 s ahead
	var rs []vegeta.Result
	for i := range 400 { // 4 s at 100/s, from 10:00:59.5 server time
		code := uint16(200)
		if i%10 == 9 {
			code = 429
		}
		rs = append(rs, vegeta.Result{Attack: "x", Seq: uint64(i), Code: code, Timestamp: start.Add(time.Duration(i) * 10 * time.Millisecond), Latency: time.Duration(1+i%100) * 100 * time.Microsecond})
	}
	path := filepath.Join(t.TempDir(), "x.bin")
	rec := writeBin(t, path, offset, nil, rs)
	tl, err := rec.timeline(false, []binSource{{path, offset}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tl.Axis != AxisServer || !tl.Origin.Equal(start.Add(offset)) || tl.Span != 3990*time.Millisecond {
		t.Fatalf("axis %s origin %s span %s; want server, %s, 3.99s", tl.Axis, tl.Origin, tl.Span, start.Add(offset))
	}
	if len(tl.Segments) != 1 {
		t.Fatalf("%d segments, want one: a steady rate has no pause", len(tl.Segments))
	}
	sg := tl.Segments[0]
	if tl.BinWidth != 100*time.Millisecond || len(sg.Bins) != 40 {
		t.Errorf("bins of %s × %d, want 100ms × 40", tl.BinWidth, len(sg.Bins))
	}
	adm, lim := 0, 0
	for i, b := range sg.Bins {
		if b.Admitted+b.Limited != 10 {
			t.Errorf("bin %d holds %d answers, want 10 (100/s)", i, b.Admitted+b.Limited)
		}
		adm, lim = adm+b.Admitted, lim+b.Limited
	}
	if adm != 360 || lim != 40 {
		t.Errorf("%d admitted, %d 429 in the bins; want 360 and 40", adm, lim)
	}
	if len(tl.Boundaries) != 1 || !tl.Boundaries[0].At.Equal(time.Date(2026, 11, 25, 10, 1, 0, 0, time.UTC)) {
		t.Errorf("boundaries %v, want the one at 10:01:00 server time", tl.Boundaries)
	}
	if tl.LatencyWidth != time.Second || len(sg.LatencyBins) != 4 {
		t.Errorf("latency bins of %s × %d, want 1s × 4 (≈100 answers each)", tl.LatencyWidth, len(sg.LatencyBins))
	}
	b := sg.LatencyBins[0] // latencies 0.1 to 10 ms
	if b.N != 100 || b.P50 < 4900*time.Microsecond || b.P50 > 5100*time.Microsecond || b.Max < 10*time.Millisecond || b.Max > 10100*time.Microsecond {
		t.Errorf("first latency bin %+v, want 100 answers, p50 ≈ 5ms, max ≈ 10ms", b)
	}
	// The windows are the server's minutes: 50 requests before 10:01:00.
	ws := rec.Windows()
	if len(ws) != 2 || ws[0].Admitted+ws[0].Limited != 50 || ws[1].Admitted+ws[1].Limited != 350 {
		t.Errorf("windows %+v, want 50 answers in 10:00 and 350 in 10:01", ws)
	}
}

// On a virtual clock the axis is this machine's send time and each window
// boundary sits where the clock was moved: between the last request of a
// window and the first of the next.
func TestTimelineOnAVirtualClock(t *testing.T) {
	start := time.Date(2026, 11, 25, 20, 0, 0, 0, time.UTC)
	virtual := time.Date(2026, 1, 1, 10, 1, 1, 0, time.UTC)
	var rs []vegeta.Result
	for i := range 606 { // a 30 ms burst, a 4 ms pause (the clock moves), one more
		at := start.Add(time.Duration(i) * 50 * time.Microsecond)
		if i == 605 {
			at = start.Add(34 * time.Millisecond)
		}
		code := uint16(200)
		if i >= 600 && i < 605 {
			code = 429
		}
		rs = append(rs, vegeta.Result{Attack: "x", Seq: uint64(i), Code: code, Timestamp: at, Latency: time.Millisecond})
	}
	fixed := func(i int) time.Time {
		if i == 605 {
			return virtual.Truncate(time.Minute).Add(time.Minute + 200*time.Millisecond)
		}
		return virtual
	}
	path := filepath.Join(t.TempDir(), "x.bin")
	rec := writeBin(t, path, 0, fixed, rs)
	tl, err := rec.timeline(true, []binSource{{path, 0}}, rec.clientBoundaries())
	if err != nil {
		t.Fatal(err)
	}
	if tl.Axis != AxisClient || len(tl.Segments) != 1 || tl.BinWidth != time.Millisecond || len(tl.Segments[0].Bins) != 35 {
		t.Fatalf("axis %s, %d segments, bins of %s; want client, one segment (a 4 ms pause is not cut), 1ms × 35", tl.Axis, len(tl.Segments), tl.BinWidth)
	}
	nonEmpty := 0
	for _, b := range tl.Segments[0].Bins {
		if b.Admitted+b.Limited+b.Other > 0 {
			nonEmpty++
		}
	}
	if nonEmpty < 30 {
		t.Errorf("%d non-empty bins: the burst is not spread over its 30 ms", nonEmpty)
	}
	want := Boundary{At: start.Add(32100 * time.Microsecond), Window: time.Date(2026, 1, 1, 10, 2, 0, 0, time.UTC)}
	if len(tl.Boundaries) != 1 || !tl.Boundaries[0].At.Equal(want.At) || !tl.Boundaries[0].Window.Equal(want.Window) {
		t.Errorf("boundaries %+v, want %+v", tl.Boundaries, want)
	}
	ws := rec.Windows()
	if len(ws) != 2 || ws[0].Admitted != 600 || ws[0].Limited != 5 || ws[1].Admitted != 1 || !ws[0].Start.Equal(virtual.Truncate(time.Minute)) {
		t.Errorf("windows %+v, want 600 admitted + 5 × 429 at 10:01 (virtual), 1 admitted at 10:02", ws)
	}
}

// A burst after a long wait: the pause is cut out, so the 30 ms burst is
// binned at its own resolution (not one bar of a 35 s axis), and the
// minute boundary falls in the pause.
func TestTimelineCutsThePauses(t *testing.T) {
	start := time.Date(2026, 11, 25, 10, 0, 26, 0, time.UTC)
	var rs []vegeta.Result
	for i := range 605 {
		rs = append(rs, vegeta.Result{Seq: uint64(i), Code: 200, Timestamp: start.Add(time.Duration(i) * 50 * time.Microsecond), Latency: time.Millisecond})
	}
	rs = append(rs, vegeta.Result{Seq: 605, Code: 200, Timestamp: start.Add(34200 * time.Millisecond), Latency: time.Millisecond})
	path := filepath.Join(t.TempDir(), "x.bin")
	rec := writeBin(t, path, 0, nil, rs)
	tl, err := rec.timeline(false, []binSource{{path, 0}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tl.Segments) != 2 || tl.Segments[1].Start != 34200*time.Millisecond || tl.Active != 30200*time.Microsecond {
		t.Fatalf("segments %+v (active %s), want the burst and the request 34.2 s later", tl.Segments, tl.Active)
	}
	if tl.BinWidth != time.Millisecond || len(tl.Segments[0].Bins) != 31 || len(tl.Segments[1].Bins) != 1 {
		t.Errorf("bins of %s: %d + %d, want 1ms: 31 + 1", tl.BinWidth, len(tl.Segments[0].Bins), len(tl.Segments[1].Bins))
	}
	if len(tl.Boundaries) != 1 {
		t.Fatalf("boundaries %v, want 10:01:00", tl.Boundaries)
	}
	l := newLayout(tl)
	if bx := l.x(tl.Boundaries[0].At.Sub(tl.Origin)); bx <= l.pos[0]+l.d(l.length(tl.Segments[0])) || bx >= l.pos[1] {
		t.Errorf("the boundary is drawn at %.2f, not in the cut pause (%.2f to %.2f)", bx, l.pos[0]+l.d(l.length(tl.Segments[0])), l.pos[1])
	}
}

func TestBinWidth(t *testing.T) {
	for _, c := range []struct {
		span time.Duration
		n    int
		want time.Duration
	}{{0, 60, 100 * time.Microsecond}, {30 * time.Millisecond, 60, time.Millisecond}, {2 * time.Second, 60, 50 * time.Millisecond}, {59 * time.Second, 60, time.Second}, {10 * time.Second, 20, time.Second}} {
		if got := binWidth(c.span, c.n); got != c.want {
			t.Errorf("binWidth(%s, %d) = %s, want %s", c.span, c.n, got, c.want)
		}
	}
}

func TestNiceTicks(t *testing.T) {
	for _, c := range []struct {
		lo, hi float64
		want   string
	}{{0, 1.8, "0.0 0.2 0.4 0.6 0.8 1.0 1.2 1.4 1.6 1.8"}, {0, 27, "0 5 10 15 20 25"}, {0, 7500, "0 1000 2000 3000 4000 5000 6000 7000"}, {0, 0.05, "0.000 0.005 0.010 0.015 0.020 0.025 0.030 0.035 0.040 0.045 0.050"}} {
		var got []string
		for _, tk := range (niceTicks{}).Ticks(c.lo, c.hi) {
			if tk.Label != "" {
				got = append(got, tk.Label)
			}
		}
		if g := strings.Join(got, " "); g != c.want {
			t.Errorf("ticks of %g..%g: %s, want %s", c.lo, c.hi, g, c.want)
		}
	}
}
