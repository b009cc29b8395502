// Package reports writes what a run found: results.json (every check with
// its evidence), junit.xml (for CI), and a console summary. Every writer
// passes its final bytes through the run's redactor.
package reports

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/touchstone-harness/touchstone/internal/catalogue"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/redact"
)

// SchemaVersion is the version of results.json's layout; it changes when a
// field changes meaning or goes away (added fields keep it).
const SchemaVersion = 2

// Run is everything a report says about one run.
type Run struct {
	SchemaVersion int    `json:"schema_version"`
	Tool          Tool   `json:"tool"`
	Spec          []Spec `json:"spec"`
	Target        string `json:"target"`
	// TargetInfo names the target without its secrets.
	TargetInfo TargetInfo `json:"target_info"`
	Ended      time.Time  `json:"ended"`
	Seeds      Seeds      `json:"seeds"`
	// Fault is the embedded sandbox's fault mode, if any.
	Fault string `json:"fault,omitempty"`
	// Baseline is the verdict of --baseline, when given.
	Baseline    *BaselineVerdict `json:"baseline,omitempty"`
	Started     time.Time        `json:"started"`
	Duration    time.Duration    `json:"duration_ns"`
	LabelFilter string           `json:"label_filter,omitempty"`
	Focus       string           `json:"focus,omitempty"`
	Results     []*check.Result  `json:"-"`
	// RootCauses are violations many checks met the same way (one cause,
	// its count and the checks), read before the per-check failures.
	RootCauses []check.RootCause `json:"root_causes,omitempty"`
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

// Evidence is one failure with the exchange it is about.
type Evidence struct {
	Rule       string            `json:"rule"`
	Message    string            `json:"message"`
	Exchange   *client.Exchange  `json:"exchange,omitempty"`
	Request    string            `json:"request_body,omitempty"`
	Response   string            `json:"response_body,omitempty"`
	Curl       string            `json:"curl,omitempty"`
	Transcript string            `json:"transcript,omitempty"`
	Extra      map[string]string `json:"-"`
}

// ResultDoc is one check's result as results.json holds it.
type ResultDoc struct {
	*check.Result
	Evidence []Evidence `json:"evidence,omitempty"`
	// Replay is the command that re-runs a failed check, from the
	// directory holding results.json.
	Replay string `json:"replay,omitempty"`
}

// Document is results.json: the single source the page, the comparison,
// the baseline and replay read back.
type Document struct {
	*Run
	// Tally counts checks (counts, by_area); RuleCounts counts the
	// catalogue's rules by their status in the run (RuleStatusOrder).
	Tally
	RuleCounts map[string]int `json:"rule_counts,omitempty"`
	Coverage   coverageDoc    `json:"rule_coverage"`
	// Kinds counts the catalogue by kind of rule: the spec's own rules
	// checked and proven able to fail under their own id (the fault
	// proof's ledger), the harness's interpretations, the quirks, the
	// unobservable rules; each rule once (a restatement as the rule it
	// restates).
	Kinds   *catalogue.KindCoverage `json:"rule_kinds,omitempty"`
	Results []ResultDoc             `json:"results"`
}

type coverageDoc struct {
	Covered int                      `json:"covered"`
	Total   int                      `json:"total"`
	Areas   []catalogue.AreaCoverage `json:"areas"`
}

// WriteJSON writes doc (NewDocument) into dir as results.json.
func WriteJSON(dir string, doc *Document, red *redact.Redactor) error {
	doc, err := Masked(doc, red)
	if err != nil {
		return err
	}
	raw, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	return writeRedacted(filepath.Join(dir, "results.json"), raw, red)
}

// Masked is a copy of doc as results.json holds it, with every string
// masked by red before anything renders it: JSON, XML and HTML escape the
// characters base64 secrets are made of ('+' is "&#43;" on the page), so
// masking the rendered bytes alone lets secrets through. Secrets the
// evidence shows the target returned (a "secret" member of a response
// body, e.g. a webhook secret at registration) are learnt by red first.
func Masked(doc *Document, red *redact.Redactor) (*Document, error) {
	raw, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	var cp Document
	if err := json.Unmarshal(raw, &cp); err != nil {
		return nil, err
	}
	if red == nil {
		red = redact.New()
	}
	for _, rd := range cp.Results {
		for _, ev := range rd.Evidence {
			learnSecrets(red, []byte(ev.Response))
		}
	}
	red.Value(&cp)
	return &cp, nil
}

// learnSecrets adds every string a JSON body holds under a "secret" key,
// at any depth, to red.
func learnSecrets(red *redact.Redactor, body []byte) {
	var v any
	if json.Unmarshal(body, &v) != nil {
		return
	}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if s, ok := e.(string); ok && strings.EqualFold(k, "secret") {
					red.Add(s)
				}
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
}

// NewDocument is the results document of a run, built once and rendered
// by every output (results.json, JUnit, the page, the console, the
// certificate); the run itself is left as it was.
func NewDocument(run *Run, cat *catalogue.Catalogue) *Document {
	r := *run
	r.SchemaVersion = SchemaVersion
	if r.Tool.Version == "" {
		r.Tool = ThisTool()
	}
	if r.Spec == nil {
		r.Spec = SpecDocuments(cat)
	}
	doc := &Document{Run: &r, Tally: r.Tally()}
	if cat != nil {
		doc.Coverage.Areas, doc.Coverage.Covered, doc.Coverage.Total = cat.Coverage()
		if proof, err := catalogue.LoadProof(); err == nil {
			k := cat.ByKind(proof)
			doc.Kinds = &k
		}
	}
	results := append([]*check.Result(nil), r.Results...)
	sort.Slice(results, func(i, j int) bool { return results[i].ID < results[j].ID })
	for _, res := range results {
		rd := ResultDoc{Result: res}
		if res.Status == check.Failed {
			rd.Replay = ReplayCommand("results.json", res.CaseID, r.Seeds.Sandbox == 0)
		}
		for _, f := range res.Failures {
			ev := Evidence{Rule: f.Rule, Message: f.Message}
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
	if cat != nil {
		doc.RuleCounts = RuleCounts(RuleStatuses(doc, cat))
	}
	return doc
}

// ReplayCommand is the command line that re-runs one case of a results
// file; other targets than the embedded sandbox need their profile again.
func ReplayCommand(results, caseID string, needsTarget bool) string {
	cmd := "touchstone replay " + results + " '" + caseID + "'"
	if needsTarget {
		cmd += " --target PROFILE"
	}
	return cmd
}

// ReadJSON reads DIR/results.json (or the file itself when path names one).
func ReadJSON(path string) (*Document, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		path = filepath.Join(path, "results.json")
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc Document
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("%s: not a results.json: %v", path, err)
	}
	if doc.Run == nil || doc.SchemaVersion == 0 {
		return nil, fmt.Errorf("%s: not a Touchstone results.json (no schema_version)", path)
	}
	if doc.SchemaVersion > SchemaVersion {
		return nil, fmt.Errorf("%s: schema_version %d is newer than this Touchstone reads (%d)", path, doc.SchemaVersion, SchemaVersion)
	}
	return &doc, nil
}

// writeRedacted is the one place report files are written.
func writeRedacted(path string, raw []byte, red *redact.Redactor) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, red.Bytes(raw), 0o644)
}
