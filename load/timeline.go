package load

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"slices"
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
// vegeta results. A pause longer than the timeline's Gap (a probe waiting
// for a clock second or a minute boundary) is cut out: the activity falls
// into segments, each binned from its own start, so that a 30 ms burst
// after a 34 s wait is drawn at the resolution of the burst.
type Timeline struct {
	Axis string `json:"axis"`
	// Origin is x = 0 on the axis: the first request's send time.
	Origin time.Time     `json:"origin"`
	Span   time.Duration `json:"span_ns"`
	// Active is the span less the pauses cut out.
	Active time.Duration `json:"active_ns"`
	// Gap is the shortest pause cut out.
	Gap time.Duration `json:"gap_ns"`
	// BinWidth bins the answers, LatencyWidth (coarser: enough answers
	// per bin for a p99 to mean something) the latency.
	BinWidth     time.Duration `json:"bin_ns"`
	LatencyWidth time.Duration `json:"latency_bin_ns"`
	Segments     []Segment     `json:"segments"`
	// Boundaries are the clock-minute boundaries within the span.
	Boundaries []Boundary `json:"boundaries,omitempty"`
}

// Segment is a stretch of activity: requests sent from Start to End (from
// the origin), binned from Start.
type Segment struct {
	Start       time.Duration `json:"start_ns"`
	End         time.Duration `json:"end_ns"`
	Bins        []Answers     `json:"bins"` // the answers to the requests sent in each bin
	LatencyBins []LatencyBin  `json:"latency_bins"`
}

// LatencyBin is the latency of the N requests sent in one bin.
type LatencyBin struct {
	N int `json:"n"`
	Latencies
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
// latency chart aims at latencySamples answers per bin, in 4 to 30 bins. A
// pause is cut out when it is longer than a second and than 20 times the
// median interval between sends (a slow steady rate is not cut up).
const (
	rateBins       = 60
	latencySamples = 100
	minGap         = time.Second
	gapIntervals   = 20
)

// buildTimeline bins the results of srcs sent between first and last (axis
// time) in two passes over the files: the send times, to find the pauses;
// then per segment the answers per class, and latency percentiles from an
// HDR histogram per bin (2 significant digits).
func buildTimeline(axis string, first, last time.Time, n uint64, srcs []binSource, bounds []Boundary) (*Timeline, error) {
	span := last.Sub(first)
	at := func(r *vegeta.Result, src binSource) time.Duration {
		return min(max(r.Timestamp.Add(src.offset).Sub(first), 0), span)
	}
	sent := make([]time.Duration, 0, n)
	for _, src := range srcs {
		if err := eachResult(src.path, func(r *vegeta.Result) { sent = append(sent, at(r, src)) }); err != nil {
			return nil, err
		}
	}
	if len(sent) == 0 {
		return nil, nil
	}
	slices.Sort(sent)
	intervals := make([]time.Duration, 0, len(sent))
	for i := 1; i < len(sent); i++ {
		intervals = append(intervals, sent[i]-sent[i-1])
	}
	gap := minGap
	if len(intervals) > 0 {
		iv := slices.Clone(intervals)
		slices.Sort(iv)
		gap = max(gap, gapIntervals*iv[len(iv)/2])
	}
	t := &Timeline{Axis: axis, Origin: first.UTC(), Span: span, Gap: gap}
	seg := Segment{Start: sent[0]}
	for i, d := range intervals {
		if d > gap {
			seg.End = sent[i]
			t.Segments = append(t.Segments, seg)
			seg = Segment{Start: sent[i+1]}
		}
	}
	seg.End = sent[len(sent)-1]
	t.Segments = append(t.Segments, seg)
	for _, sg := range t.Segments {
		t.Active += sg.End - sg.Start
	}
	t.BinWidth = binWidth(t.Active, rateBins)
	t.LatencyWidth = max(binWidth(t.Active, min(max(len(sent)/latencySamples, 4), 30)), t.BinWidth)
	hists := make([][]*hdrhistogram.Histogram, len(t.Segments))
	for i := range t.Segments {
		sg := &t.Segments[i]
		sg.Bins = make([]Answers, int((sg.End-sg.Start)/t.BinWidth)+1)
		hists[i] = make([]*hdrhistogram.Histogram, int((sg.End-sg.Start)/t.LatencyWidth)+1)
	}
	for _, src := range srcs {
		err := eachResult(src.path, func(r *vegeta.Result) {
			x := at(r, src)
			i, _ := slices.BinarySearchFunc(t.Segments, x, func(sg Segment, x time.Duration) int { return cmp.Compare(sg.End, x) })
			sg := &t.Segments[min(i, len(t.Segments)-1)]
			sg.Bins[(x-sg.Start)/t.BinWidth].add(classOf(r.Code))
			hs := hists[min(i, len(t.Segments)-1)]
			j := (x - sg.Start) / t.LatencyWidth
			if hs[j] == nil {
				hs[j] = newHist(2)
			}
			recordLatency(hs[j], r.Latency)
		})
		if err != nil {
			return nil, err
		}
	}
	for i, hs := range hists {
		sg := &t.Segments[i]
		sg.LatencyBins = make([]LatencyBin, len(hs))
		for j, h := range hs {
			if h != nil {
				sg.LatencyBins[j] = LatencyBin{N: int(h.TotalCount()), Latencies: latenciesOf(h)}
			}
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
