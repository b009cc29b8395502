// Package reports writes what a run found: results.json (every check with
// its evidence), junit.xml (for CI), and a console summary. Every writer
// passes its final bytes through the run's redactor.
package reports

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/touchstone-harness/touchstone/internal/catalogue"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/redact"
)

// Run is everything a report says about one run.
type Run struct {
	Target      string          `json:"target"`
	Started     time.Time       `json:"started"`
	Duration    time.Duration   `json:"duration_ns"`
	LabelFilter string          `json:"label_filter,omitempty"`
	Focus       string          `json:"focus,omitempty"`
	Results     []*check.Result `json:"-"`
	// Selected is how many checks the filters chose (0: len(Results)).
	Selected int `json:"-"`
	// Interrupted: the run was stopped by a signal before its end.
	Interrupted bool `json:"interrupted"`
	// Stopped says why the run stopped early (the target stopped
	// answering), or is empty.
	Stopped string `json:"stopped,omitempty"`
}

// VerifiedRules are the rules named by a check that passed in this run and
// by no check that failed: what this target was actually shown to honour.
func (r *Run) VerifiedRules() []string { return r.Tally().Verified }

type evidence struct {
	Rule       string            `json:"rule"`
	Message    string            `json:"message"`
	Exchange   *client.Exchange  `json:"exchange,omitempty"`
	Request    string            `json:"request_body,omitempty"`
	Response   string            `json:"response_body,omitempty"`
	Curl       string            `json:"curl,omitempty"`
	Transcript string            `json:"transcript,omitempty"`
	Extra      map[string]string `json:"-"`
}

type resultDoc struct {
	*check.Result
	Evidence []evidence `json:"evidence,omitempty"`
}

type runDoc struct {
	*Run
	Tally
	Coverage coverageDoc `json:"rule_coverage"`
	Results  []resultDoc `json:"results"`
}

type coverageDoc struct {
	Covered int                      `json:"covered"`
	Total   int                      `json:"total"`
	Areas   []catalogue.AreaCoverage `json:"areas"`
}

// WriteJSON writes results.json into dir.
func WriteJSON(dir string, r *Run, cat *catalogue.Catalogue, red *redact.Redactor) error {
	doc := runDoc{Run: r, Tally: r.Tally()}
	if cat != nil {
		doc.Coverage.Areas, doc.Coverage.Covered, doc.Coverage.Total = cat.Coverage()
	}
	results := append([]*check.Result(nil), r.Results...)
	sort.Slice(results, func(i, j int) bool { return results[i].ID < results[j].ID })
	for _, res := range results {
		rd := resultDoc{Result: res}
		for _, f := range res.Failures {
			ev := evidence{Rule: f.Rule, Message: f.Message}
			if f.Exchange != nil {
				ev.Exchange = f.Exchange
				ev.Curl = f.Exchange.Curl()
				ev.Transcript = f.Exchange.Transcript()
				ev.Request = string(f.Exchange.Request.Body)
				if f.Exchange.Response != nil {
					ev.Response = string(f.Exchange.Response.Body)
				}
			}
			rd.Evidence = append(rd.Evidence, ev)
		}
		doc.Results = append(doc.Results, rd)
	}
	raw, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	return writeRedacted(filepath.Join(dir, "results.json"), raw, red)
}

// writeRedacted is the one place report files are written.
func writeRedacted(path string, raw []byte, red *redact.Redactor) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, red.Bytes(raw), 0o644)
}
