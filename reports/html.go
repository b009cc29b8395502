package reports

import (
	"bytes"
	_ "embed"
	"html/template"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/touchstone-harness/touchstone/internal/catalogue"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/redact"
)

//go:embed report.html.tmpl
var pageTemplate string

var page = template.Must(template.New("report").Funcs(template.FuncMap{
	"join":        strings.Join,
	"round":       func(d time.Duration) time.Duration { return d.Round(time.Millisecond) },
	"utc":         func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 UTC") },
	"checkStatus": CheckStatus,
	"steps": func(msg string) messageSteps {
		text, steps := SplitSteps(msg)
		return messageSteps{text, steps}
	},
}).Parse(pageTemplate))

// messageSteps is a failure message as the page shows it: its text, then
// a property's numbered steps as a list.
type messageSteps struct {
	Text  string
	Steps []Step
}

// pageData is what report.html shows, all of it derived from results.json.
type pageData struct {
	Doc     *Document
	Verdict Verdict
	// CheckAreas count checks by area (the console's table); Areas count
	// rules by status, by area of the specification.
	CheckAreas []checkArea
	Areas      []AreaStatus
	Statuses   []string
	Meaning    map[string]string
	RuleLine   string
	Rules      []RuleStatus
	Failures   []pageFailure
	Skips      []skipGroup
	Property   []ResultDoc
	Load       []ResultDoc
	LoadPage   string
}

type checkArea struct {
	Area string
	Counts
}

type pageFailure struct {
	ResultDoc
	Rules map[string]*catalogue.Rule
}

type skipGroup struct {
	Reason string
	Checks []string
}

// WriteHTML writes report.html into dir: one self-contained page (inline
// style and script, nothing fetched) rendered from the results document.
func WriteHTML(dir string, doc *Document, cat *catalogue.Catalogue, red *redact.Redactor) error {
	doc, err := Masked(doc, red)
	if err != nil {
		return err
	}
	raw, err := RenderHTML(dir, doc, cat)
	if err != nil {
		return err
	}
	return writeRedacted(filepath.Join(dir, "report.html"), raw, red)
}

// RenderHTML is the page's bytes; dir is where sibling reports (load.html)
// are looked for.
func RenderHTML(dir string, doc *Document, cat *catalogue.Catalogue) ([]byte, error) {
	d := pageData{Doc: doc, Verdict: Certify(doc, cat), Rules: RuleStatuses(doc, cat), Statuses: RuleStatusOrder, Meaning: RuleStatusMeaning}
	d.Areas = AreaStatuses(d.Rules)
	d.RuleLine = RuleCountsLine(RuleCounts(d.Rules))
	for area, c := range doc.ByArea {
		d.CheckAreas = append(d.CheckAreas, checkArea{area, *c})
	}
	sort.Slice(d.CheckAreas, func(i, j int) bool { return d.CheckAreas[i].Area < d.CheckAreas[j].Area })
	skips := map[string][]string{}
	for _, rd := range doc.Results {
		switch {
		case rd.Status == check.Failed || rd.Status == check.Error && !rd.NotRun:
			pf := pageFailure{ResultDoc: rd, Rules: map[string]*catalogue.Rule{}}
			for _, id := range rd.Rules {
				pf.Rules[id] = cat.Rule(id)
			}
			for _, ev := range rd.Evidence {
				pf.Rules[ev.Rule] = cat.Rule(ev.Rule)
			}
			d.Failures = append(d.Failures, pf)
		case rd.Status == check.Skipped:
			skips[rd.SkipReason] = append(skips[rd.SkipReason], rd.ID)
		}
		switch rd.Area {
		case "property":
			d.Property = append(d.Property, rd)
		case "load":
			d.Load = append(d.Load, rd)
		}
	}
	for reason, ids := range skips {
		d.Skips = append(d.Skips, skipGroup{reason, ids})
	}
	sort.Slice(d.Skips, func(i, j int) bool {
		if len(d.Skips[i].Checks) != len(d.Skips[j].Checks) {
			return len(d.Skips[i].Checks) > len(d.Skips[j].Checks)
		}
		return d.Skips[i].Reason < d.Skips[j].Reason
	})
	for _, name := range []string{"load.html", filepath.Join("load", "load.html")} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			d.LoadPage = name
			break
		}
	}
	var b bytes.Buffer
	if err := page.Execute(&b, d); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
