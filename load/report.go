package load

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"image/color"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Gates turn measured numbers into the exit code.
type Gates struct {
	MaxP99       time.Duration // 0: no gate
	MaxErrorRate float64       // negative: no gate
	// Baseline holds earlier summaries by probe; MaxRegression is the
	// allowed ratio of p99 (and of 1/throughput for the latency probe).
	Baseline      map[string]*Summary
	MaxRegression float64
}

// Verdict is one gate's outcome.
type Verdict struct {
	Probe  string `json:"probe"`
	What   string `json:"what"`
	Passed bool   `json:"passed"`
	// NoVerdict marks a probe that was skipped or reached no verdict: not
	// passed, and not a finding about the target.
	NoVerdict bool   `json:"no_verdict,omitempty"`
	Message   string `json:"message"`
}

// Judge applies the gates: the latency thresholds to the latency probe,
// the baseline ratios to every probe with a baseline.
func Judge(sums []*Summary, g Gates) []Verdict {
	var out []Verdict
	for _, s := range sums {
		out = append(out, Verdict{Probe: s.Probe, What: "rules " + strings.Join(s.Rules, ", "), Passed: s.Passed,
			NoVerdict: s.Outcome == "error" || s.Outcome == "skipped", Message: conformance(s)})
		if s.Probe == "latency" {
			if g.MaxP99 > 0 {
				out = append(out, Verdict{Probe: s.Probe, What: "p99", Passed: s.Latency.P99 <= g.MaxP99, Message: fmt.Sprintf("p99 %s, threshold %s", s.Latency.P99.Round(time.Microsecond), g.MaxP99)})
			}
			if g.MaxErrorRate >= 0 {
				out = append(out, Verdict{Probe: s.Probe, What: "error rate", Passed: s.ErrorRate <= g.MaxErrorRate, Message: fmt.Sprintf("error rate %.3f%%, threshold %.3f%%", 100*s.ErrorRate, 100*g.MaxErrorRate)})
			}
		}
		if b := g.Baseline[s.Probe]; b != nil && b.Latency.P99 > 0 && g.MaxRegression > 0 {
			ratio := float64(s.Latency.P99) / float64(b.Latency.P99)
			out = append(out, Verdict{Probe: s.Probe, What: "p99 vs baseline", Passed: ratio <= g.MaxRegression,
				Message: fmt.Sprintf("p99 %s vs baseline %s: ratio %.2f (allowed %.2f)", s.Latency.P99.Round(time.Microsecond), b.Latency.P99.Round(time.Microsecond), ratio, g.MaxRegression)})
			if s.Probe == "latency" && s.Throughput > 0 && b.Throughput > 0 {
				r := b.Throughput / s.Throughput
				out = append(out, Verdict{Probe: s.Probe, What: "throughput vs baseline", Passed: r <= g.MaxRegression,
					Message: fmt.Sprintf("throughput %.1f/s vs baseline %.1f/s: slowdown ratio %.2f (allowed %.2f)", s.Throughput, b.Throughput, r, g.MaxRegression)})
			}
		}
	}
	return out
}

func conformance(s *Summary) string {
	var parts []string
	for _, m := range s.Measures {
		parts = append(parts, fmt.Sprintf("%s: documented %s, measured %s", m.What, m.Documented, m.Measured))
	}
	if len(s.Failures) > 0 {
		parts = append(parts, s.Failures...)
	}
	return strings.Join(parts, "; ")
}

// ReadDir reads the probe summaries of one result directory.
func ReadDir(dir string) ([]*Summary, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	var out []*Summary
	for _, f := range files {
		if b := filepath.Base(f); b == "summary.json" {
			continue
		}
		s, err := ReadSummary(f)
		if err != nil {
			return nil, err
		}
		if s.Probe != "" {
			out = append(out, s)
		}
	}
	return out, nil
}

// Merge combines the result directories of several shards: per probe, the
// metrics are recomputed from every shard's <probe>.bin (vegeta's decoder),
// the verdict is the conjunction, the measures are kept per shard.
func Merge(dirs []string) ([]*Summary, error) {
	byProbe := map[string][]*Summary{}
	binFiles := map[string][]string{}
	var order []string
	for _, d := range dirs {
		sums, err := ReadDir(d)
		if err != nil {
			return nil, err
		}
		for _, s := range sums {
			if _, ok := byProbe[s.Probe]; !ok {
				order = append(order, s.Probe)
			}
			byProbe[s.Probe] = append(byProbe[s.Probe], s)
			binFiles[s.Probe] = append(binFiles[s.Probe], filepath.Join(d, s.Probe+".bin"))
		}
	}
	var out []*Summary
	for _, name := range order {
		shards := byProbe[name]
		m := &Summary{Probe: name, Check: shards[0].Check, Rules: shards[0].Rules, Passed: true, Virtual: shards[0].Virtual, Started: shards[0].Started}
		rec := NewRecorder(nil)
		for i, s := range shards {
			m.Passed = m.Passed && s.Passed
			m.Failures = append(m.Failures, s.Failures...)
			m.Duration = max(m.Duration, s.Duration)
			m.Boundaries = append(m.Boundaries, s.Boundaries...)
			m.AccessRequestsBudget = max(m.AccessRequestsBudget, s.AccessRequestsBudget)
			for _, x := range s.Measures {
				if len(shards) > 1 {
					x.What = fmt.Sprintf("shard %d: %s", i, x.What)
				}
				m.Measures = append(m.Measures, x)
			}
			if s.Started.Before(m.Started) {
				m.Started = s.Started
			}
			if err := decodeInto(binFiles[name][i], rec); err != nil {
				return nil, err
			}
		}
		rec.Close()
		m.fill(rec)
		out = append(out, m)
	}
	return out, nil
}

func decodeInto(path string, rec *Recorder) error {
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
		if err := rec.Add(&r); err != nil {
			return err
		}
	}
}

// WriteReport writes summary.json (every probe and verdict) and load.html,
// one self-contained page: inline SVG charts drawn with gonum/plot, no
// script, no network.
func WriteReport(dir string, sums []*Summary, verdicts []Verdict) error {
	sort.SliceStable(sums, func(i, j int) bool { return order(sums[i].Probe) < order(sums[j].Probe) })
	b, err := json.MarshalIndent(map[string]any{"probes": sums, "verdicts": verdicts}, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "summary.json"), b, 0o644); err != nil {
		return err
	}
	type section struct {
		S                           *Summary
		Seconds, Histogram, Latency template.HTML
	}
	var secs []section
	for _, s := range sums {
		sec := section{S: s}
		var err error
		if sec.Seconds, err = secondsChart(s); err != nil {
			return err
		}
		if sec.Histogram, err = histogramChart(s); err != nil {
			return err
		}
		if sec.Latency, err = latencyChart(s); err != nil {
			return err
		}
		secs = append(secs, sec)
	}
	var buf bytes.Buffer
	if err := page.Execute(&buf, map[string]any{"Verdicts": verdicts, "Sections": secs, "Generated": time.Now().UTC().Format(time.RFC3339)}); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "load.html"), buf.Bytes(), 0o644)
}

func order(name string) int {
	for i, p := range Probes {
		if p == name {
			return i
		}
	}
	return len(Probes)
}

// svgFormat is the charts' format (a test renders PNG to look at them).
var svgFormat = "svg"

func svg(p *plot.Plot, w, h vg.Length) (template.HTML, error) {
	wt, err := p.WriterTo(w, h, svgFormat)
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	if _, err := wt.WriteTo(&b); err != nil {
		return "", err
	}
	s := b.String()
	if i := strings.Index(s, "<svg"); i > 0 {
		s = s[i:] // drop the XML prolog: the SVG is inline
	}
	return template.HTML(s), nil
}

// secondsChart is admitted vs 429 per second of server time, with the
// minute boundaries drawn as vertical lines.
func secondsChart(s *Summary) (template.HTML, error) {
	p := plot.New()
	p.Title.Text = s.Probe + ": answers per second (server clock)"
	p.X.Label.Text = "seconds since " + firstSecond(s).Format("15:04:05")
	p.Y.Label.Text = "answers"
	t0 := firstSecond(s)
	var adm, lim, oth plotter.XYs
	// Seconds with no answer are drawn as zeros (bounded: 15 minutes).
	var prev time.Time
	for _, x := range s.Seconds {
		for gap := prev.Add(time.Second); !prev.IsZero() && gap.Before(x.At) && gap.Sub(t0) < 15*time.Minute; gap = gap.Add(time.Second) {
			at := gap.Sub(t0).Seconds()
			adm = append(adm, plotter.XY{X: at})
			lim = append(lim, plotter.XY{X: at})
			oth = append(oth, plotter.XY{X: at})
		}
		prev = x.At
		at := x.At.Sub(t0).Seconds()
		adm = append(adm, plotter.XY{X: at, Y: float64(x.Admitted)})
		lim = append(lim, plotter.XY{X: at, Y: float64(x.Limited)})
		oth = append(oth, plotter.XY{X: at, Y: float64(x.Other)})
	}
	top := 1.0
	for _, x := range s.Seconds {
		top = max(top, float64(max(x.Admitted, x.Limited, x.Other)))
	}
	add := func(xys plotter.XYs, c color.Color, name string) error {
		if len(xys) == 0 {
			return nil
		}
		l, sc, err := plotter.NewLinePoints(xys)
		if err != nil {
			return err
		}
		l.Color, sc.Color = c, c
		p.Add(l, sc)
		p.Legend.Add(name, l)
		return nil
	}
	if err := add(adm, color.RGBA{G: 140, A: 255}, "admitted (2xx/3xx)"); err != nil {
		return "", err
	}
	if err := add(lim, color.RGBA{R: 200, A: 255}, "429"); err != nil {
		return "", err
	}
	if err := add(oth, color.RGBA{B: 200, A: 255}, "other"); err != nil {
		return "", err
	}
	for _, b := range s.Boundaries {
		x := b.Sub(t0).Seconds()
		l, err := plotter.NewLine(plotter.XYs{{X: x, Y: 0}, {X: x, Y: top}})
		if err != nil {
			return "", err
		}
		l.Color, l.Dashes = color.Gray{Y: 90}, []vg.Length{vg.Points(4), vg.Points(3)}
		p.Add(l)
	}
	if len(s.Boundaries) > 0 {
		p.Legend.Add("minute boundary (dashed)")
	}
	p.Legend.Top = true
	p.Y.Max = top * 1.4 // room for the legend
	return svg(p, 7*vg.Inch, 3*vg.Inch)
}

func firstSecond(s *Summary) time.Time {
	var t0 time.Time
	for _, x := range s.Seconds {
		if t0.IsZero() || x.At.Before(t0) {
			t0 = x.At
		}
	}
	for _, b := range s.Boundaries {
		if t0.IsZero() || b.Before(t0) {
			t0 = b
		}
	}
	return t0
}

// histogramChart is the latency histogram (vegeta's Histogram buckets).
func histogramChart(s *Summary) (template.HTML, error) {
	p := plot.New()
	p.Title.Text = s.Probe + ": latency histogram"
	p.Y.Label.Text = "answers"
	vals := make(plotter.Values, len(s.Histogram))
	names := make([]string, len(s.Histogram))
	for i, b := range s.Histogram {
		vals[i] = float64(b.Count)
		if b.Upper == 0 {
			names[i] = "≥" + b.Lower.String()
		} else {
			names[i] = "<" + b.Upper.String()
		}
	}
	if len(vals) == 0 {
		return "", nil
	}
	bc, err := plotter.NewBarChart(vals, vg.Points(22))
	if err != nil {
		return "", err
	}
	bc.Color = color.RGBA{R: 60, G: 90, B: 180, A: 255}
	p.Add(bc)
	p.NominalX(names...)
	return svg(p, 7*vg.Inch, 3*vg.Inch)
}

// latencyChart is mean and max latency per second over the probe.
func latencyChart(s *Summary) (template.HTML, error) {
	p := plot.New()
	p.Title.Text = s.Probe + ": latency over time"
	p.X.Label.Text = "seconds since " + firstSecond(s).Format("15:04:05")
	p.Y.Label.Text = "ms"
	t0 := firstSecond(s)
	var mean, mx plotter.XYs
	for _, x := range s.Seconds {
		at := x.At.Sub(t0).Seconds()
		mean = append(mean, plotter.XY{X: at, Y: ms(x.MeanLat)})
		mx = append(mx, plotter.XY{X: at, Y: ms(x.MaxLat)})
	}
	if len(mean) == 0 {
		return "", nil
	}
	for _, c := range []struct {
		xys  plotter.XYs
		col  color.Color
		name string
	}{{mean, color.RGBA{B: 180, A: 255}, "mean"}, {mx, color.RGBA{R: 200, G: 120, A: 255}, "max"}} {
		l, sc, err := plotter.NewLinePoints(c.xys)
		if err != nil {
			return "", err
		}
		l.Color, sc.Color = c.col, c.col
		p.Add(l, sc)
		p.Legend.Add(c.name, l)
	}
	p.Legend.Top = true
	return svg(p, 7*vg.Inch, 3*vg.Inch)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

var page = template.Must(template.New("load").Funcs(template.FuncMap{
	"d":   func(d time.Duration) string { return d.Round(time.Microsecond).String() },
	"pct": func(f float64) string { return fmt.Sprintf("%.3f%%", 100*f) },
	"f1":  func(f float64) string { return fmt.Sprintf("%.1f", f) },
}).Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Touchstone load report</title>
<style>
body{font-family:system-ui,sans-serif;margin:2em;max-width:1100px;color:#222}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:.25em .6em;text-align:left;vertical-align:top}
.pass{color:#070;font-weight:bold}.fail{color:#b00;font-weight:bold}section{margin-top:2.5em}svg{display:block;margin:.5em 0}
</style></head><body>
<h1>Touchstone load report</h1>
<p>Generated {{.Generated}}. Raw results: <code>&lt;probe&gt;.bin</code> beside this page (<code>vegeta report</code>, <code>vegeta plot</code>); numbers: <code>summary.json</code>.</p>
<h2>Verdicts</h2>
<table><tr><th>probe</th><th>gate</th><th>verdict</th><th>measured</th></tr>
{{range .Verdicts}}<tr><td>{{.Probe}}</td><td>{{.What}}</td><td>{{if .Passed}}<span class="pass">pass</span>{{else if .NoVerdict}}no verdict{{else}}<span class="fail">FAIL</span>{{end}}</td><td>{{.Message}}</td></tr>
{{end}}</table>
<h2>Latency</h2>
<table><tr><th>probe</th><th>requests</th><th>rate/s</th><th>throughput/s</th><th>errors</th><th>p50</th><th>p90</th><th>p95</th><th>p99</th><th>max</th><th>status codes</th></tr>
{{range .Sections}}{{with .S}}<tr><td>{{.Probe}}</td><td>{{.Requests}}</td><td>{{f1 .Rate}}</td><td>{{f1 .Throughput}}</td><td>{{pct .ErrorRate}}</td><td>{{d .Latency.P50}}</td><td>{{d .Latency.P90}}</td><td>{{d .Latency.P95}}</td><td>{{d .Latency.P99}}</td><td>{{d .Latency.Max}}</td><td>{{range $k, $v := .Status}}{{$k}}: {{$v}} {{end}}</td></tr>{{end}}
{{end}}</table>
{{range .Sections}}<section><h2>{{.S.Probe}} {{if .S.Passed}}<span class="pass">pass</span>{{else}}<span class="fail">FAIL</span>{{end}}</h2>
<p>{{.S.Check}} · rules {{range .S.Rules}}{{.}} {{end}}· {{if .S.Virtual}}virtual clock{{else}}real clock{{end}} · {{d .S.Duration}}</p>
{{if .S.Measures}}<table><tr><th>measure</th><th>documented</th><th>measured</th></tr>{{range .S.Measures}}<tr><td>{{.What}}</td><td>{{.Documented}}</td><td>{{.Measured}}</td></tr>{{end}}</table>{{end}}
{{range .S.Failures}}<p class="fail">{{.}}</p>{{end}}
{{.Seconds}}{{.Histogram}}{{.Latency}}
</section>
{{end}}</body></html>
`))
