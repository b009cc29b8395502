package load

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
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
		what := "rules " + strings.Join(s.Rules, ", ")
		if len(s.Rules) == 0 {
			what = "measurement (no rule fixes latency)"
		}
		out = append(out, Verdict{Probe: s.Probe, What: what, Passed: s.Passed,
			NoVerdict: s.Outcome == "error" || s.Outcome == "skipped", Message: conformance(s)})
		if s.Probe == "latency" {
			if g.MaxP99 > 0 {
				out = append(out, Verdict{Probe: s.Probe, What: "p99", Passed: s.Latency.P99 <= g.MaxP99, Message: fmt.Sprintf("p99 %s, threshold %s", s.Latency.P99.Round(time.Microsecond), g.MaxP99)})
			}
			if g.MaxErrorRate >= 0 {
				out = append(out, Verdict{Probe: s.Probe, What: "error rate", Passed: s.ErrorRate <= g.MaxErrorRate,
					Message: fmt.Sprintf("error rate %.3f%% (%s), threshold %.3f%%", 100*s.ErrorRate, errorsOf(s), 100*g.MaxErrorRate)})
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

// errorsOf says which answers count as the probe's errors: "40 × 429 of
// 400 answers", "none of 400 answers".
func errorsOf(s *Summary) string {
	var codes []string
	for code := range s.Status {
		c, _ := strconv.Atoi(code)
		if c >= 200 && c < 400 || (c == http.StatusTooManyRequests && !limitedIsError(s.Probe)) {
			continue
		}
		codes = append(codes, code)
	}
	sort.Strings(codes)
	var parts []string
	for _, code := range codes {
		name := code
		if code == "0" {
			name = "no answer"
		}
		parts = append(parts, fmt.Sprintf("%d × %s", s.Status[code], name))
	}
	if len(parts) == 0 {
		return fmt.Sprintf("none of %d answers", s.Requests)
	}
	return fmt.Sprintf("%s of %d answers", strings.Join(parts, ", "), s.Requests)
}

func conformance(s *Summary) string {
	var parts []string
	for _, m := range s.Measures {
		if len(s.Rules) == 0 {
			parts = append(parts, fmt.Sprintf("%s: %s, %s", m.What, m.Documented, m.Measured))
			continue
		}
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
// the windows summed, the verdict is the conjunction, the measures are kept
// per shard. Shards of one probe on a virtual and on a real clock do not
// merge: their time axes and windows mean different things (an error).
func Merge(dirs []string) ([]*Summary, error) {
	byProbe := map[string][]*Summary{}
	binFiles := map[string][]string{}
	var names []string
	for _, d := range dirs {
		sums, err := ReadDir(d)
		if err != nil {
			return nil, err
		}
		for _, s := range sums {
			if _, ok := byProbe[s.Probe]; !ok {
				names = append(names, s.Probe)
			} else if first := byProbe[s.Probe][0]; first.Virtual != s.Virtual {
				return nil, fmt.Errorf("%s: shard %s ran on a %s and shard %s on a %s: they do not merge (their time axes and windows differ); merge shards of one kind",
					s.Probe, binFiles[s.Probe][0][:len(binFiles[s.Probe][0])-len(s.Probe+".bin")-1], clockName(first.Virtual), d, clockName(s.Virtual))
			}
			byProbe[s.Probe] = append(byProbe[s.Probe], s)
			binFiles[s.Probe] = append(binFiles[s.Probe], filepath.Join(d, s.Probe+".bin"))
		}
	}
	var out []*Summary
	for _, name := range names {
		shards := byProbe[name]
		m := &Summary{Probe: name, Check: shards[0].Check, Rules: shards[0].Rules, Passed: true, Virtual: shards[0].Virtual, Started: shards[0].Started,
			Limits: shards[0].Limits, RequestedRate: shards[0].RequestedRate, ClockOffset: shards[0].ClockOffset, Outcome: shards[0].Outcome}
		if len(shards) > 1 {
			m.Shards = len(shards)
		}
		rec := NewRecorder(nil)
		var srcs []binSource
		var bounds []Boundary
		windows := map[windowKey]*Window{}
		for i, s := range shards {
			m.Passed = m.Passed && s.Passed
			if outcomeRank[s.Outcome] > outcomeRank[m.Outcome] {
				m.Outcome = s.Outcome // the worst shard's
			}
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
			for _, w := range s.Windows {
				k := windowKey{w.Start.Unix(), w.Budget}
				if windows[k] == nil {
					windows[k] = &Window{Start: w.Start, Budget: w.Budget}
				}
				windows[k].merge(w.Answers)
			}
			if s.Timeline != nil && s.Virtual {
				bounds = append(bounds, s.Timeline.Boundaries...)
			}
			// Each shard's send times go on the axis with its own offset.
			rec.Offset = s.ClockOffset
			if err := eachResult(binFiles[name][i], func(r *vegeta.Result) { _ = rec.Add(r) }); err != nil {
				return nil, err
			}
			srcs = append(srcs, binSource{path: binFiles[name][i], offset: s.ClockOffset})
		}
		rec.Close()
		if err := m.fill(rec); err != nil {
			return nil, err
		}
		for _, w := range windows {
			m.Windows = append(m.Windows, *w)
		}
		sortWindows(m.Windows)
		tl, err := rec.timeline(m.Virtual, srcs, bounds)
		if err != nil {
			return nil, err
		}
		m.Timeline = tl
		out = append(out, m)
	}
	sort.SliceStable(out, func(i, j int) bool { return order(out[i].Probe) < order(out[j].Probe) })
	return out, nil
}

// outcomeRank orders outcomes from best to worst.
var outcomeRank = map[string]int{"passed": 1, "skipped": 2, "failed": 3, "error": 4}

func clockName(virtual bool) string {
	if virtual {
		return "virtual clock"
	}
	return "real clock"
}

// WriteReport writes summary.json (every probe and verdict) and load.html,
// one self-contained page: inline SVG charts drawn with gonum/plot, no
// script, no network. The gates' thresholds are drawn where they apply.
func WriteReport(dir string, sums []*Summary, verdicts []Verdict, g Gates) error {
	sort.SliceStable(sums, func(i, j int) bool { return order(sums[i].Probe) < order(sums[j].Probe) })
	b, err := json.MarshalIndent(map[string]any{"probes": sums, "verdicts": verdicts}, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "summary.json"), b, 0o644); err != nil {
		return err
	}
	type section struct {
		S      *Summary
		Clock  string
		Charts []template.HTML
	}
	var secs []section
	for _, s := range sums {
		sec := section{S: s, Clock: "virtual clock (time on the charts: this machine's send time)"}
		if !s.Virtual {
			sec.Clock = fmt.Sprintf("real clock (time on the charts: the server's, estimated from Date; offset %s to this machine)", s.ClockOffset.Round(time.Microsecond))
			if s.Shards > 1 {
				sec.Clock = fmt.Sprintf("real clock (time on the charts: the server's, estimated from Date by each of %d shards)", s.Shards)
			}
		}
		var gate time.Duration
		if s.Probe == "latency" {
			gate = g.MaxP99
		}
		for _, draw := range []func() (template.HTML, error){
			func() (template.HTML, error) { return answersChart(s) },
			func() (template.HTML, error) { return windowsChart(s) },
			func() (template.HTML, error) { return latencyChart(s, gate) },
			func() (template.HTML, error) { return tailChart(s, gate) },
		} {
			c, err := draw()
			if err != nil {
				return fmt.Errorf("%s: chart: %v", s.Probe, err)
			}
			if c != "" {
				sec.Charts = append(sec.Charts, c)
			}
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

var page = template.Must(template.New("load").Funcs(template.FuncMap{
	"d":   func(d time.Duration) string { return d.Round(time.Microsecond).String() },
	"pct": func(f float64) string { return fmt.Sprintf("%.3f%%", 100*f) },
	"f1":  func(f float64) string { return fmt.Sprintf("%.1f", f) },
	"codes": func(m map[string]int) string {
		var ks []string
		for k := range m {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		var parts []string
		for _, k := range ks {
			parts = append(parts, fmt.Sprintf("%s: %d", k, m[k]))
		}
		return strings.Join(parts, ", ")
	},
}).Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Touchstone load report</title>
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<style>
body{font-family:system-ui,sans-serif;margin:1.5em 2em;color:#222}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:.25em .6em;text-align:left;vertical-align:top}
td.n{text-align:right;font-variant-numeric:tabular-nums}
.pass{color:#070;font-weight:bold}.fail{color:#b00;font-weight:bold}.nv{color:#a60;font-weight:bold}
section{margin-top:2.5em;border-top:1px solid #ddd}.meta{color:#555}
.charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(620px,1fr));gap:.5em 1.5em;align-items:start}
.charts svg{display:block;max-width:100%;height:auto}
</style></head><body>
<h1>Touchstone load report</h1>
<p>Generated {{.Generated}}. Raw results: <code>&lt;probe&gt;.bin</code> beside this page (<code>go tool vegeta report &lt; latency.bin</code>, <code>go tool vegeta plot *.bin</code>); numbers: <code>summary.json</code>. Percentiles come from an HDR histogram per probe (exact to 0.1 %; <code>vegeta report</code> estimates them with a t-digest).</p>
<h2>Verdicts</h2>
<table><tr><th>probe</th><th>gate</th><th>verdict</th><th>measured</th></tr>
{{range .Verdicts}}<tr><td>{{.Probe}}</td><td>{{.What}}</td><td>{{if .Passed}}<span class="pass">pass</span>{{else if .NoVerdict}}<span class="nv">no verdict</span>{{else}}<span class="fail">FAIL</span>{{end}}</td><td>{{.Message}}</td></tr>
{{end}}</table>
<h2>Latency</h2>
<table><tr><th>probe</th><th>requests</th><th>rate/s</th><th>throughput/s</th><th>429</th><th>errors¹</th><th>p50</th><th>p90</th><th>p99</th><th>p99.9</th><th>max</th><th>status codes</th></tr>
{{range .Sections}}{{with .S}}<tr><td>{{.Probe}}</td><td class="n">{{.Requests}}</td><td class="n">{{f1 .Rate}}</td><td class="n">{{f1 .Throughput}}</td><td class="n">{{.Limited}}</td><td class="n">{{pct .ErrorRate}}</td><td class="n">{{d .Latency.P50}}</td><td class="n">{{d .Latency.P90}}</td><td class="n">{{d .Latency.P99}}</td><td class="n">{{d .Latency.P999}}</td><td class="n">{{d .Latency.Max}}</td><td>{{codes .Status}}</td></tr>{{end}}
{{end}}</table>
<p class="meta">¹ answers neither 2xx/3xx nor 429, and for the latency probe 429 too: its budgets are its own and kept under every limit, so a 429 there is an error. Rate and throughput as <code>vegeta report</code> computes them (a rate-limit probe's include its waits).</p>
{{range .Sections}}<section id="probe-{{.S.Probe}}"><h2>{{.S.Probe}} {{if .S.Passed}}<span class="pass">pass</span>{{else if eq .S.Outcome "error" "skipped"}}<span class="nv">no verdict</span>{{else}}<span class="fail">FAIL</span>{{end}}</h2>
<p class="meta">{{.S.Check}}{{if .S.Rules}} · rules {{range .S.Rules}}{{.}} {{end}}{{end}} · {{.Clock}} · {{d .S.Duration}}</p>
{{if .S.Measures}}<table><tr><th>measure</th><th>{{if .S.Rules}}documented{{else}}asked{{end}}</th><th>measured</th></tr>{{range .S.Measures}}<tr><td>{{.What}}</td><td>{{.Documented}}</td><td>{{.Measured}}</td></tr>{{end}}</table>{{end}}
{{range .S.Failures}}<p class="fail">{{.}}</p>{{end}}
<div class="charts">{{range .Charts}}{{.}}{{end}}</div>
</section>
{{end}}</body></html>
`))
