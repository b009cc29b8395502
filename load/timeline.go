package load

import (
	"fmt"
	"io"
	"os"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// Axes of a timeline.
const (
	// AxisServer is the server's clock estimated from its Date header
	// (this machine's send time plus the estimated offset): a real clock.
	AxisServer = "server"
	// AxisClient is this machine's send time: a virtual server clock
	// stands still within a burst and jumps between bursts, so time on it
	// says nothing; the windows are marked where the clock moved.
	AxisClient = "client"
)

// Timeline is a probe's answers and latency over time, binned from its
// vegeta results.
type Timeline struct {
	Axis string `json:"axis"`
	// Origin is x = 0 on the axis: the first request's send time.
	Origin time.Time     `json:"origin"`
	Span   time.Duration `json:"span_ns"`
	// Bins are the answers per BinWidth, by class, from the origin.
	BinWidth time.Duration `json:"bin_ns"`
	Bins     []RateBin     `json:"bins"`
	// LatencyBins are the latency percentiles per LatencyWidth (coarser:
	// enough answers per bin for a p99 to mean something).
	LatencyWidth time.Duration `json:"latency_bin_ns"`
	LatencyBins  []LatencyBin  `json:"latency_bins"`
	// Boundaries are the clock-minute boundaries within the span.
	Boundaries []Boundary `json:"boundaries,omitempty"`
}

// RateBin counts the answers to the requests sent in one bin.
type RateBin struct {
	Admitted int `json:"admitted"`
	Limited  int `json:"limited_429"`
	Other    int `json:"other"`
}

// LatencyBin is the latency of the requests sent in one bin.
type LatencyBin struct {
	N   int           `json:"n"`
	P50 time.Duration `json:"p50_ns"`
	P90 time.Duration `json:"p90_ns"`
	P99 time.Duration `json:"p99_ns"`
	Max time.Duration `json:"max_ns"`
}

// Boundary is a clock-minute boundary on the axis: at At (axis time) the
// server's window Window begins.
type Boundary struct {
	At     time.Time `json:"at"`
	Window time.Time `json:"window"`
}

// binSource is one results file and the offset that puts its send times
// on the axis (the server clock offset of a real-clock shard; 0 on the
// client axis).
type binSource struct {
	path   string
	offset time.Duration
}

// widths are the bin widths a timeline chooses from (1-2-5 steps).
var widths = func() []time.Duration {
	var out []time.Duration
	for d := 100 * time.Microsecond; d <= time.Hour; d *= 10 {
		out = append(out, d, 2*d, 5*d)
	}
	return out
}()

// binWidth is the narrowest width that cuts span into at most n bins.
func binWidth(span time.Duration, n int) time.Duration {
	for _, w := range widths {
		if int(span/w)+1 <= n {
			return w
		}
	}
	return widths[len(widths)-1]
}

// Timeline bin counts: the rate chart has at most rateBins bars; the
// latency chart aims at latencySamples answers per bin, in 4 to 30 bins.
const (
	rateBins       = 60
	latencySamples = 100
)

// buildTimeline bins the results of srcs sent between first and last (axis
// time) in one pass over the files: answers per class, and latency
// percentiles from an HDR histogram per bin (2 significant digits).
func buildTimeline(axis string, first, last time.Time, n uint64, srcs []binSource, bounds []Boundary) (*Timeline, error) {
	span := last.Sub(first)
	t := &Timeline{Axis: axis, Origin: first.UTC(), Span: span, BinWidth: binWidth(span, rateBins)}
	t.LatencyWidth = max(binWidth(span, min(max(int(n)/latencySamples, 4), 30)), t.BinWidth)
	t.Bins = make([]RateBin, int(span/t.BinWidth)+1)
	hists := make([]*hdrhistogram.Histogram, int(span/t.LatencyWidth)+1)
	for _, src := range srcs {
		err := eachResult(src.path, func(r *vegeta.Result) {
			x := r.Timestamp.Add(src.offset).Sub(first)
			if x < 0 || x > span {
				return
			}
			b := &t.Bins[x/t.BinWidth]
			switch classOf(r.Code) {
			case classAdmitted:
				b.Admitted++
			case classLimited:
				b.Limited++
			default:
				b.Other++
			}
			i := x / t.LatencyWidth
			if hists[i] == nil {
				hists[i] = newHist(2)
			}
			recordLatency(hists[i], r.Latency)
		})
		if err != nil {
			return nil, err
		}
	}
	t.LatencyBins = make([]LatencyBin, len(hists))
	for i, h := range hists {
		if h != nil {
			t.LatencyBins[i] = LatencyBin{N: int(h.TotalCount()), P50: quantile(h, 50), P90: quantile(h, 90), P99: quantile(h, 99), Max: quantile(h, 100)}
		}
	}
	for _, b := range bounds {
		if !b.At.Before(first) && !b.At.After(last) {
			t.Boundaries = append(t.Boundaries, Boundary{At: b.At.UTC(), Window: b.Window.UTC()})
		}
	}
	return t, nil
}

// minuteBoundaries are the clock-minute boundaries after first up to last
// (a real clock's axis is the server's clock: they are where they are).
func minuteBoundaries(first, last time.Time) []Boundary {
	var out []Boundary
	for m := first.Truncate(time.Minute).Add(time.Minute); !m.After(last); m = m.Add(time.Minute) {
		out = append(out, Boundary{At: m, Window: m})
	}
	return out
}

// eachResult decodes a vegeta results file (any of vegeta's encodings).
func eachResult(path string, each func(*vegeta.Result)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	dec := vegeta.DecoderFor(f)
	if dec == nil {
		return fmt.Errorf("%s: not vegeta results", path)
	}
	for {
		var r vegeta.Result
		if err := dec.Decode(&r); err != nil {
			if err == io.EOF {
				return nil
			}
			return fmt.Errorf("%s: %v", path, err)
		}
		each(&r)
	}
}
