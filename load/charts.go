package load

import (
	"bytes"
	"fmt"
	"html/template"
	"image/color"
	"math"
	"strconv"
	"strings"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The charts of one probe, each an inline SVG drawn with gonum/plot.
//
//   - answers: answers per second over time, stacked admitted / 429 /
//     other, the clock-minute boundaries dashed (and, for the latency probe,
//     the requested rate);
//   - windows: per clock-minute window and budget, the answers beside the
//     documented limits;
//   - latency: p50 / p90 / p99 (and max) over time;
//   - tail: latency by percentile from the HDR histograms, per class.
//
// The time axis is the server's clock when it is real (estimated from
// Date); on a virtual clock, which stands still within a burst, it is this
// machine's send time, the windows marked where the clock moved. Each
// chart says which.

var (
	colAdmitted = color.RGBA{R: 46, G: 139, B: 87, A: 255}
	colLimited  = color.RGBA{R: 214, G: 39, B: 40, A: 255}
	colOther    = color.RGBA{R: 140, G: 140, B: 140, A: 255}
	colBoundary = color.RGBA{R: 90, G: 90, B: 90, A: 255}
	colCut      = color.RGBA{R: 235, G: 235, B: 235, A: 255}
	colP50      = color.RGBA{R: 31, G: 119, B: 180, A: 255}
	colP90      = color.RGBA{R: 255, G: 127, B: 14, A: 255}
	colP99      = color.RGBA{R: 214, G: 39, B: 40, A: 255}
	colMax      = color.RGBA{R: 120, G: 120, B: 120, A: 255}
	colLimits   = []color.Color{color.RGBA{R: 148, G: 103, B: 189, A: 255}, color.RGBA{R: 23, G: 190, B: 207, A: 255}, color.RGBA{R: 188, G: 189, B: 34, A: 255}}
	dashed      = []vg.Length{vg.Points(4), vg.Points(3)}
	sans        = font.Font{Typeface: "Liberation", Variant: "Sans"}
)

// chartW and chartH are a chart's size (two side by side on the page).
const (
	chartW = 6.4 * vg.Inch
	chartH = 3.4 * vg.Inch
)

// newPlot is a plot in a sans-serif face.
func newPlot(title string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = font.From(sans, 11)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(sans, 9)
		a.Tick.Label.Font = font.From(sans, 8)
		a.Tick.Marker = niceTicks{}
	}
	p.Legend.TextStyle.Font = font.From(sans, 8)
	p.Legend.Top = true
	p.Legend.ThumbnailWidth = vg.Points(14)
	return p
}

// niceTicks are 4 to 10 labelled ticks at 1, 2 or 5 times a power of
// ten, labelled without trailing zeros, and a minor tick between each.
type niceTicks struct{}

func (niceTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) {
		return []plot.Tick{{Value: lo, Label: strconv.FormatFloat(lo, 'f', -1, 64)}}
	}
	step := math.Pow(10, math.Floor(math.Log10(hi-lo)))
	for _, m := range []float64{0.1, 0.2, 0.5, 1} {
		if (hi-lo)/(step*m) <= 10 {
			step *= m
			break
		}
	}
	digits := max(0, int(-math.Floor(math.Log10(step)+1e-9)))
	var out []plot.Tick
	for i := math.Ceil(lo / step); i*step <= hi+step*1e-9; i++ {
		v := i * step
		out = append(out, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', digits, 64)})
		if m := v + step/2; m < hi {
			out = append(out, plot.Tick{Value: m})
		}
	}
	return out
}

// svg renders p as an inline SVG element.
func svg(p *plot.Plot, w, h vg.Length) (template.HTML, error) {
	wt, err := p.WriterTo(w, h, "svg")
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

// layout places axis time on a chart: each segment of activity at the
// axis unit's scale from its own position, the pauses between segments cut
// to a fixed width (drawn grey, saying how long they were).
type layout struct {
	t        *Timeline
	unit     time.Duration
	unitName string
	pos      []float64 // where each segment starts on the chart
	cut      float64   // the width of a cut pause on the chart
}

func newLayout(t *Timeline) layout {
	l := layout{t: t, unit: time.Second, unitName: "s"}
	if t.Active < 2*time.Second {
		l.unit, l.unitName = time.Millisecond, "ms"
	}
	if len(t.Segments) > 1 {
		l.cut = max(l.d(t.Active)*0.08, l.d(t.BinWidth)*3)
	}
	x := 0.0
	for _, sg := range t.Segments {
		l.pos = append(l.pos, x)
		x += l.d(l.length(sg)) + l.cut
	}
	return l
}

// d is a duration in the axis unit.
func (l layout) d(d time.Duration) float64 { return float64(d) / float64(l.unit) }

// length is a segment's length on the chart: its span and its last bin.
func (l layout) length(sg Segment) time.Duration {
	return time.Duration(len(sg.Bins)) * l.t.BinWidth
}

// end is the chart's right end.
func (l layout) end() float64 {
	k := len(l.t.Segments) - 1
	return l.pos[k] + l.d(l.length(l.t.Segments[k]))
}

// x places axis time at (from the origin): within its segment, or in the
// middle of the cut pause it falls in.
func (l layout) x(at time.Duration) float64 {
	for k, sg := range l.t.Segments {
		if at < sg.Start {
			return l.pos[k] - l.cut/2
		}
		if at <= sg.Start+l.length(sg) {
			return l.pos[k] + l.d(at-sg.Start)
		}
	}
	return l.end()
}

// label says what the x axis is, on two lines.
func (l layout) label(s *Summary) string {
	var clock string
	if l.t.Axis == AxisServer {
		clock = fmt.Sprintf("the server's clock, estimated from Date (offset %s to this machine)", s.ClockOffset.Round(time.Microsecond))
		if s.Shards > 1 {
			clock = fmt.Sprintf("the server's clock, estimated from Date by each of %d shards", s.Shards)
		}
	} else {
		clock = "this machine's send time (the virtual server clock stands still while the probe sends)"
	}
	if len(l.t.Segments) == 1 {
		return fmt.Sprintf("%s since %s\non %s", l.unitName, l.t.Origin.Add(l.t.Segments[0].Start).Format("15:04:05.000"), clock)
	}
	return fmt.Sprintf("%s from the start of each stretch (its time below it); pauses over %s cut out (grey)\non %s", l.unitName, l.t.Gap.Round(time.Millisecond), clock)
}

// ticks are nice ticks within each segment, from its start; with several
// segments each start is labelled with its clock time.
func (l layout) ticks() plot.Ticker {
	if len(l.t.Segments) == 1 {
		return niceTicks{}
	}
	return plot.TickerFunc(func(lo, hi float64) []plot.Tick {
		var out []plot.Tick
		for k, sg := range l.t.Segments {
			w := l.d(l.length(sg))
			out = append(out, plot.Tick{Value: l.pos[k], Label: l.t.Origin.Add(sg.Start).Format("15:04:05.000")})
			// Relative ticks only where they leave room for the start's label.
			if w < (l.end()-l.pos[0])/4 {
				continue
			}
			for _, tk := range (niceTicks{}).Ticks(0, w) {
				if tk.Value <= w/5 {
					continue
				}
				if tk.Label != "" {
					tk.Label = "+" + tk.Label
				}
				tk.Value += l.pos[k]
				out = append(out, tk)
			}
		}
		return out
	})
}

// frame sets the x axis of p and draws the cut pauses up to top.
func (l layout) frame(p *plot.Plot, s *Summary, top float64) error {
	p.X.Label.Text = l.label(s)
	p.X.Tick.Marker = l.ticks()
	p.X.Min, p.X.Max = 0, l.end()
	if len(l.t.Segments) < 2 {
		return nil
	}
	var pts plotter.XYs
	var texts []string
	for k := 1; k < len(l.t.Segments); k++ {
		x0, x1 := l.pos[k]-l.cut, l.pos[k]
		band, err := plotter.NewPolygon(plotter.XYs{{X: x0, Y: 0}, {X: x1, Y: 0}, {X: x1, Y: top}, {X: x0, Y: top}})
		if err != nil {
			return err
		}
		band.Color, band.LineStyle.Width = colCut, 0
		p.Add(band)
		waited := l.t.Segments[k].Start - l.t.Segments[k-1].End
		pts = append(pts, plotter.XY{X: x0 + (x1-x0)*0.3, Y: top * 0.3})
		texts = append(texts, waited.Round(100*time.Millisecond).String()+" paused")
	}
	lb, err := plotter.NewLabels(plotter.XYLabels{XYs: pts, Labels: texts})
	if err != nil {
		return err
	}
	for i := range lb.TextStyle {
		lb.TextStyle[i].Font = font.From(sans, 7)
		lb.TextStyle[i].XAlign, lb.TextStyle[i].YAlign = draw.XCenter, draw.YCenter
		lb.TextStyle[i].Rotation = math.Pi / 2
	}
	p.Add(lb)
	return nil
}

// stackedBars draws, per bin, the layers stacked from 0 (empty bins and
// layers draw nothing).
type stackedBars struct {
	x0, w  float64
	layers [][]float64
	colors []color.Color
}

func (s *stackedBars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for i := range s.layers[0] {
		y := 0.0
		for l, layer := range s.layers {
			if layer[i] == 0 {
				continue
			}
			x0, x1 := trX(s.x0+float64(i)*s.w), trX(s.x0+float64(i+1)*s.w)
			y0, y1 := trY(y), trY(y+layer[i])
			c.FillPolygon(s.colors[l], c.ClipPolygonXY([]vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}}))
			y += layer[i]
		}
	}
}

func (s *stackedBars) DataRange() (xmin, xmax, ymin, ymax float64) {
	for i := range s.layers[0] {
		y := 0.0
		for _, l := range s.layers {
			y += l[i]
		}
		ymax = max(ymax, y)
	}
	return s.x0, s.x0 + float64(len(s.layers[0]))*s.w, 0, ymax
}

// swatch is a legend thumbnail of a filled colour.
type swatch struct{ c color.Color }

func (s swatch) Thumbnail(c *draw.Canvas) {
	c.FillPolygon(s.c, []vg.Point{{X: c.Min.X, Y: c.Min.Y}, {X: c.Max.X, Y: c.Min.Y}, {X: c.Max.X, Y: c.Max.Y}, {X: c.Min.X, Y: c.Max.Y}})
}

// rule is a straight dashed line from a to b.
func rule(a, b plotter.XY, c color.Color) *plotter.Line {
	l, _ := plotter.NewLine(plotter.XYs{a, b}) // two finite points: never an error
	l.Color, l.Dashes, l.Width = c, dashed, vg.Points(1)
	return l
}

// boundaries draws the timeline's clock-minute boundaries as dashed
// vertical lines up to top, each labelled with the window it opens.
func boundaries(p *plot.Plot, s *Summary, l layout, top float64) error {
	if len(l.t.Boundaries) == 0 {
		return nil
	}
	var pts plotter.XYs
	var names []string
	for _, b := range l.t.Boundaries {
		bx := l.x(b.At.Sub(l.t.Origin))
		p.Add(rule(plotter.XY{X: bx, Y: 0}, plotter.XY{X: bx, Y: top}, colBoundary))
		pts = append(pts, plotter.XY{X: bx, Y: top})
		name := " " + b.Window.Format("15:04")
		if s.Virtual {
			name += " (virtual)"
		}
		names = append(names, name)
	}
	lb, err := plotter.NewLabels(plotter.XYLabels{XYs: pts, Labels: names})
	if err != nil {
		return err
	}
	for i := range lb.TextStyle {
		lb.TextStyle[i].Font = font.From(sans, 7)
		lb.TextStyle[i].Color = colBoundary
	}
	p.Add(lb)
	p.Legend.Add("clock-minute boundary (window it opens)", rule(plotter.XY{}, plotter.XY{}, colBoundary))
	return nil
}

// answersChart: answers per second over time, stacked admitted / 429 /
// other, per bin of the timeline.
func answersChart(s *Summary) (template.HTML, error) {
	t := s.Timeline
	if t == nil || len(t.Segments) == 0 {
		return "", nil
	}
	l := newLayout(t)
	p := newPlot(fmt.Sprintf("%s: answers per second (bins of %s)", s.Probe, t.BinWidth))
	p.Y.Label.Text = "answers / s"
	per := t.BinWidth.Seconds()
	top, other := 1.0, false
	var bars []*stackedBars
	for k, sg := range t.Segments {
		adm, lim, oth := make([]float64, len(sg.Bins)), make([]float64, len(sg.Bins)), make([]float64, len(sg.Bins))
		for i, b := range sg.Bins {
			adm[i], lim[i], oth[i] = float64(b.Admitted)/per, float64(b.Limited)/per, float64(b.Other)/per
			other = other || b.Other > 0
		}
		b := &stackedBars{x0: l.pos[k], w: l.d(t.BinWidth), layers: [][]float64{adm, lim, oth}, colors: []color.Color{colAdmitted, colLimited, colOther}}
		_, _, _, y := b.DataRange()
		top = max(top, y)
		bars = append(bars, b)
	}
	if s.RequestedRate > 0 {
		top = max(top, s.RequestedRate)
	}
	if err := l.frame(p, s, top*1.05); err != nil {
		return "", err
	}
	for _, b := range bars {
		p.Add(b)
	}
	p.Legend.Add("admitted (2xx/3xx)", swatch{colAdmitted})
	p.Legend.Add("429", swatch{colLimited})
	if other {
		p.Legend.Add("other", swatch{colOther})
	}
	if s.RequestedRate > 0 {
		r := rule(plotter.XY{X: 0, Y: s.RequestedRate}, plotter.XY{X: l.end(), Y: s.RequestedRate}, colP50)
		p.Add(r)
		p.Legend.Add(fmt.Sprintf("requested rate (%.0f/s)", s.RequestedRate), r)
	}
	if err := boundaries(p, s, l, top*1.05); err != nil {
		return "", err
	}
	p.Y.Min, p.Y.Max = 0, top*1.45 // room for the legend
	return svg(p, chartW, chartH)
}

// windowRow is one bar of the windows chart.
type windowRow struct {
	label string
	Answers
}

// windowsChart: per clock-minute window and budget, the answers (stacked
// admitted / 429 / other) beside the documented limits; with a tenant-wide
// limit, one more bar per window sums every budget.
func windowsChart(s *Summary) (template.HTML, error) {
	if len(s.Windows) == 0 {
		return "", nil
	}
	tenantWide := false
	for _, l := range s.Limits {
		tenantWide = tenantWide || l.TenantWide
	}
	var rows []windowRow
	var total *windowRow
	for i, w := range s.Windows {
		when := w.Start.Format("15:04")
		if s.Virtual {
			when += " (virtual)"
		}
		budget := w.Budget
		if budget == "" {
			budget = "(budget not recorded)"
		}
		rows = append(rows, windowRow{when + " · " + budget, w.Answers})
		if tenantWide {
			if total == nil {
				total = &windowRow{label: when + " · all budgets (tenant-wide)"}
			}
			total.merge(w.Answers)
			if i+1 == len(s.Windows) || !s.Windows[i+1].Start.Equal(w.Start) {
				rows = append(rows, *total)
				total = nil
			}
		}
	}
	p := newPlot(s.Probe + ": answers per clock-minute window and budget vs the documented limits")
	p.X.Label.Text = "answers in the window"
	n := len(rows)
	adm, lim, oth := make(plotter.Values, n), make(plotter.Values, n), make(plotter.Values, n)
	names := make([]string, n)
	top := 1.0
	for i, r := range rows {
		j := n - 1 - i // the first row at the top
		adm[j], lim[j], oth[j], names[j] = float64(r.Admitted), float64(r.Limited), float64(r.Other), r.label
		top = max(top, float64(r.Total()))
	}
	barW := vg.Points(11)
	var prev *plotter.BarChart
	for _, layer := range []struct {
		v    plotter.Values
		c    color.Color
		name string
	}{{adm, colAdmitted, "admitted (2xx/3xx)"}, {lim, colLimited, "429"}, {oth, colOther, "other (failed auth: 401/403)"}} {
		bc, err := plotter.NewBarChart(layer.v, barW)
		if err != nil {
			return "", err
		}
		bc.Horizontal, bc.Color, bc.LineStyle.Width = true, layer.c, 0
		if prev != nil {
			bc.StackOn(prev)
		}
		prev = bc
		p.Add(bc)
		if layer.name != "other (failed auth: 401/403)" || sum(oth) > 0 {
			if layer.name == "other (failed auth: 401/403)" && s.Probe != "failed-auth" {
				layer.name = "other"
			}
			p.Legend.Add(layer.name, swatch{layer.c})
		}
	}
	for i, l := range s.Limits {
		if l.Value == 0 {
			continue
		}
		v := float64(l.Value)
		line := rule(plotter.XY{X: v, Y: -0.5}, plotter.XY{X: v, Y: float64(n) - 0.5}, colLimits[i%len(colLimits)])
		line.Width = vg.Points(1.5)
		p.Add(line)
		p.Legend.Add(fmt.Sprintf("documented: %d %s", l.Value, l.What), line)
		top = max(top, v)
	}
	// Each bar says its numbers at its end.
	var at plotter.XYs
	var texts []string
	for j := range names {
		at = append(at, plotter.XY{X: adm[j] + lim[j] + oth[j], Y: float64(j)})
		texts = append(texts, " "+counts(adm[j], lim[j], oth[j]))
	}
	lb, err := plotter.NewLabels(plotter.XYLabels{XYs: at, Labels: texts})
	if err != nil {
		return "", err
	}
	for i := range lb.TextStyle {
		lb.TextStyle[i].Font = font.From(sans, 7)
		lb.TextStyle[i].YAlign = draw.YCenter
	}
	p.Add(lb)
	p.NominalY(names...)
	p.X.Min, p.X.Max = 0, top*1.3
	p.Y.Min, p.Y.Max = -0.5, float64(n)-0.5+float64(len(s.Limits)+3)*0.55 // room for the legend
	h := vg.Length(n)*vg.Points(16) + vg.Length(len(s.Limits)+3)*vg.Points(10) + vg.Inch
	return svg(p, chartW, max(h, 2.2*vg.Inch))
}

// counts is a bar's label: "600 admitted + 5 × 429".
func counts(admitted, limited, other float64) string {
	var parts []string
	if admitted > 0 {
		parts = append(parts, fmt.Sprintf("%.0f admitted", admitted))
	}
	if limited > 0 {
		parts = append(parts, fmt.Sprintf("%.0f × 429", limited))
	}
	if other > 0 {
		parts = append(parts, fmt.Sprintf("%.0f other", other))
	}
	return strings.Join(parts, " + ")
}

func sum(v plotter.Values) float64 {
	t := 0.0
	for _, x := range v {
		t += x
	}
	return t
}

// latencyChart: p50 / p90 / p99 per latency bin over time, max as marks;
// lines break at empty bins and between segments.
func latencyChart(s *Summary, gate time.Duration) (template.HTML, error) {
	t := s.Timeline
	if t == nil || len(t.Segments) == 0 {
		return "", nil
	}
	l := newLayout(t)
	n, nonEmpty := 0, 0
	for _, sg := range t.Segments {
		for _, b := range sg.LatencyBins {
			if b.N > 0 {
				n += b.N
				nonEmpty++
			}
		}
	}
	p := newPlot(fmt.Sprintf("%s: latency over time (bins of %s, ≈%d answers each)", s.Probe, t.LatencyWidth, n/max(nonEmpty, 1)))
	p.Y.Label.Text = "ms"
	w := l.d(t.LatencyWidth)
	// Points at the middle of their bin; a segment's last bin is cut at the
	// segment's end.
	mid := func(k, i int) float64 {
		return min(l.pos[k]+(float64(i)+0.5)*w, l.pos[k]+l.d(l.length(t.Segments[k])))
	}
	top := 0.0
	var mx plotter.XYs
	for k, sg := range t.Segments {
		for i, b := range sg.LatencyBins {
			if b.N > 0 {
				mx = append(mx, plotter.XY{X: mid(k, i), Y: ms(b.Max)})
				top = max(top, ms(b.Max))
			}
		}
	}
	if gate > 0 {
		top = max(top, ms(gate))
	}
	top = max(top, 0.001)
	if err := l.frame(p, s, top*1.05); err != nil {
		return "", err
	}
	series := []struct {
		name string
		c    color.Color
		get  func(LatencyBin) time.Duration
	}{{"p50", colP50, func(b LatencyBin) time.Duration { return b.P50 }}, {"p90", colP90, func(b LatencyBin) time.Duration { return b.P90 }},
		{"p99", colP99, func(b LatencyBin) time.Duration { return b.P99 }}}
	for _, sr := range series {
		var runs []plotter.XYs
		for k, sg := range t.Segments {
			var cur plotter.XYs
			for i, b := range sg.LatencyBins {
				if b.N == 0 {
					if len(cur) > 0 {
						runs = append(runs, cur)
					}
					cur = nil
					continue
				}
				cur = append(cur, plotter.XY{X: mid(k, i), Y: ms(sr.get(b))})
			}
			if len(cur) > 0 {
				runs = append(runs, cur)
			}
		}
		for k, run := range runs {
			ln, sc, err := plotter.NewLinePoints(run)
			if err != nil {
				return "", err
			}
			ln.Color, ln.Width = sr.c, vg.Points(1.5)
			sc.Color, sc.Radius = sr.c, vg.Points(1.6)
			p.Add(ln, sc)
			if k == 0 {
				p.Legend.Add(sr.name, ln, sc)
			}
		}
	}
	if len(mx) > 0 {
		sc, err := plotter.NewScatter(mx)
		if err != nil {
			return "", err
		}
		sc.Color, sc.Shape, sc.Radius = colMax, draw.PlusGlyph{}, vg.Points(2.5)
		p.Add(sc)
		p.Legend.Add("max", sc)
	}
	if gate > 0 {
		g := ms(gate)
		r := rule(plotter.XY{X: 0, Y: g}, plotter.XY{X: l.end(), Y: g}, colP99)
		p.Add(r)
		p.Legend.Add(fmt.Sprintf("--max-p99 %s", gate), r)
	}
	if err := boundaries(p, s, l, top*1.05); err != nil {
		return "", err
	}
	p.Y.Min, p.Y.Max = 0, top*1.5
	return svg(p, chartW, chartH)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// percentileTicks label the tail chart's axis, x = 1/(1-q).
var percentileTicks = []struct {
	x     float64
	label string
}{{1, "0%"}, {2, "50%"}, {10, "90%"}, {100, "99%"}, {1e3, "99.9%"}, {1e4, "99.99%"}, {1e5, "99.999%"}, {1e6, "99.9999%"}}

// tailChart: latency by percentile from the HDR histograms, one line per
// answer class, on HdrHistogram's usual axis (x = 1/(1-percentile), log).
func tailChart(s *Summary, gate time.Duration) (template.HTML, error) {
	p := newPlot(s.Probe + ": tail latency by percentile (HDR histogram)")
	p.X.Label.Text = "percentile (log scale of 1/(1−p))"
	p.Y.Label.Text = "ms"
	p.X.Scale = plot.LogScale{}
	xmax, top := 10.0, 0.0
	drawn := 0
	for _, c := range []struct {
		class, name string
		col         color.Color
	}{{"admitted", "admitted (2xx/3xx)", colAdmitted}, {"429", "429", colLimited}, {"other", "other", colOther}} {
		h, err := s.Histogram(c.class)
		if err != nil {
			return "", err
		}
		if h == nil || h.TotalCount() == 0 {
			continue
		}
		pts := tail(h)
		xmax = max(xmax, pts[len(pts)-1].X)
		l, err := plotter.NewLine(pts)
		if err != nil {
			return "", err
		}
		l.Color, l.Width = c.col, vg.Points(1.5)
		p.Add(l)
		p.Legend.Add(fmt.Sprintf("%s: %d answers, p99 %s, max %s", c.name, h.TotalCount(), quantile(h, 99).Round(time.Microsecond), quantile(h, 100).Round(time.Microsecond)), l)
		for _, pt := range pts {
			top = max(top, pt.Y)
		}
		drawn++
	}
	if drawn == 0 {
		return "", nil
	}
	if gate > 0 {
		g := ms(gate)
		l := rule(plotter.XY{X: 1, Y: g}, plotter.XY{X: xmax, Y: g}, colP99)
		p.Add(l)
		p.Legend.Add(fmt.Sprintf("--max-p99 %s", gate), l)
		top = max(top, g)
	}
	var ticks []plot.Tick
	for _, t := range percentileTicks {
		if t.x <= xmax*1.0001 {
			ticks = append(ticks, plot.Tick{Value: t.x, Label: t.label})
		}
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.X.Min, p.X.Max = 1, xmax
	p.Y.Min, p.Y.Max = 0, max(top, 0.001)*1.6
	return svg(p, chartW, chartH)
}

// tail is h's percentile distribution as points (1/(1-q), ms), HDR's own
// iteration (5 ticks per half distance); the 100th percentile is drawn at
// 1/(1-q) = 2N.
func tail(h *hdrhistogram.Histogram) plotter.XYs {
	n := float64(h.TotalCount())
	var pts plotter.XYs
	for _, b := range h.CumulativeDistributionWithTicks(5) {
		left := 1 - b.Quantile/100
		left = max(left, 1/(2*n))
		pts = append(pts, plotter.XY{X: 1 / left, Y: float64(b.ValueAt) / 1000})
	}
	if len(pts) == 0 || math.IsInf(pts[len(pts)-1].X, 0) {
		return plotter.XYs{{X: 1, Y: 0}}
	}
	return pts
}
