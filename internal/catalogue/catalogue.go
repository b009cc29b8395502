// Package catalogue is the machine-readable list of every testable rule in
// the two specification documents: a stable id, where the rule comes from,
// what it says, its kind, and the checks that prove it.
package catalogue

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Kinds of rule.
const (
	Must           = "must"           // a normative, testable requirement
	Quirk          = "quirk"          // a documented surprising behaviour clients rely on
	Interpretation = "interpretation" // the spec is ambiguous or silent; the reading chosen is recorded
)

// Rule is one catalogued rule.
type Rule struct {
	ID             string   `json:"id"`
	Doc            int      `json:"doc"`
	Section        string   `json:"section"`
	Area           string   `json:"area"`
	Kind           string   `json:"kind"`
	Rule           string   `json:"rule"`
	Interpretation string   `json:"interpretation"`
	Checks         []string `json:"checks"`
	// Class, on a spec rule (kind must), says what the sentence states: a
	// decision the server takes (what changes, what is allowed or
	// refused, which error wins, a computed value, an order, who may
	// reach what, what is stored or listed) or an answer it renders (a
	// field, a type, a header, a format). A decision rule is proven only
	// by a sandbox fault in that decision; an answer rule also by a
	// variant that changes the answer on the wire.
	Class string `json:"class,omitempty"`
	// Unobservable, when set, is why no check can observe the rule over
	// the API (a dashboard-only operation, an internal precondition); such
	// a rule names no checks and counts apart from the unchecked ones.
	Unobservable string `json:"unobservable,omitempty"`
	// AliasOf, when set, is the rule this one restates (the spec states
	// the same sentence twice): it is one rule, counted once, under the
	// id AliasOf names; checks declare and fail under that id, and this
	// entry names no checks.
	AliasOf string `json:"alias_of,omitempty"`
}

// The classes of a spec rule.
const (
	Decision = "decision"
	Answer   = "answer"
)

// Spec tells whether the rule is the spec's own requirement (kind must),
// as opposed to the harness's interpretation or a documented quirk.
func (r *Rule) Spec() bool { return r.Kind == Must }

// Catalogue is the whole list.
type Catalogue struct {
	Rules []*Rule `json:"rules"`
	byID  map[string]*Rule
}

//go:embed rules.json
var embedded []byte

var catalogueDoc = embeddedDoc[Catalogue]{raw: embedded, parse: Parse}

// Load returns the embedded catalogue.
func Load() (*Catalogue, error) { return catalogueDoc.load() }

// MustLoad is Load for callers that cannot go on without it.
func MustLoad() *Catalogue { return must(Load()) }

// Parse decodes and validates a catalogue document.
func Parse(raw []byte) (*Catalogue, error) {
	var c Catalogue
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, fmt.Errorf("catalogue: %v", err)
	}
	c.byID = map[string]*Rule{}
	for _, r := range c.Rules {
		if _, dup := c.byID[r.ID]; dup {
			return nil, fmt.Errorf("catalogue: duplicate rule id %s", r.ID)
		}
		switch r.Kind {
		case Must, Quirk, Interpretation:
		default:
			return nil, fmt.Errorf("catalogue: rule %s has unknown kind %q", r.ID, r.Kind)
		}
		if r.Kind == Interpretation && strings.TrimSpace(r.Interpretation) == "" {
			return nil, fmt.Errorf("catalogue: interpretation rule %s records no reading", r.ID)
		}
		if r.AliasOf != "" && len(r.Checks) > 0 {
			return nil, fmt.Errorf("catalogue: rule %s restates %s but names checks %v (checks declare %s)", r.ID, r.AliasOf, r.Checks, r.AliasOf)
		}
		if strings.TrimSpace(r.Unobservable) != "" && len(r.Checks) > 0 {
			return nil, fmt.Errorf("catalogue: rule %s is marked unobservable but names checks %v", r.ID, r.Checks)
		}
		c.byID[r.ID] = r
	}
	for _, r := range c.Rules {
		if r.AliasOf == "" {
			continue
		}
		if t := c.byID[r.AliasOf]; t == nil || t.AliasOf != "" {
			return nil, fmt.Errorf("catalogue: rule %s restates %s, which is not a rule of its own", r.ID, r.AliasOf)
		}
	}
	return &c, nil
}

// Counted is how many rules the catalogue counts: each once, an alias as
// the rule it restates.
func (c *Catalogue) Counted() int {
	n := 0
	for _, r := range c.Rules {
		if r.AliasOf == "" {
			n++
		}
	}
	return n
}

// Rule returns a rule by id, or nil; an alias's id gives its entry (see
// Canonical for the rule it counts as).
func (c *Catalogue) Rule(id string) *Rule { return c.byID[id] }

// Canonical returns the rule an id counts as: the rule itself, or the
// rule an alias restates; nil for an unknown id.
func (c *Catalogue) Canonical(id string) *Rule {
	r := c.byID[id]
	if r != nil && r.AliasOf != "" {
		return c.byID[r.AliasOf]
	}
	return r
}

// Aliases returns the ids that restate a rule.
func (c *Catalogue) Aliases(id string) []string {
	var out []string
	for _, r := range c.Rules {
		if r.AliasOf == id {
			out = append(out, r.ID)
		}
	}
	return out
}

// Areas returns the areas in first-appearance order.
func (c *Catalogue) Areas() []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range c.Rules {
		if !seen[r.Area] {
			seen[r.Area] = true
			out = append(out, r.Area)
		}
	}
	return out
}

// CheckRef is what the catalogue needs to know of a check.
type CheckRef struct {
	ID    string
	Rules []string
}

// Problems compares the catalogue with the checks that exist: a check that
// names an unknown rule, a rule that claims a check that does not exist, or
// a rule whose claimed checks differ from the checks that name it.
func (c *Catalogue) Problems(checks []CheckRef) []string {
	var out []string
	exists := map[string]bool{}
	naming := map[string][]string{}
	for _, ch := range checks {
		exists[ch.ID] = true
		for _, r := range ch.Rules {
			if c.byID[r] == nil {
				out = append(out, fmt.Sprintf("check %s names unknown rule %s", ch.ID, r))
				continue
			}
			if a := c.byID[r].AliasOf; a != "" {
				out = append(out, fmt.Sprintf("check %s names %s, which restates %s: name %s", ch.ID, r, a, a))
				continue
			}
			naming[r] = append(naming[r], ch.ID)
		}
	}
	for _, r := range c.Rules {
		for _, id := range r.Checks {
			if !exists[id] {
				out = append(out, fmt.Sprintf("rule %s claims check %s, which does not exist", r.ID, id))
			}
		}
		want := append([]string(nil), naming[r.ID]...)
		sort.Strings(want)
		got := append([]string(nil), r.Checks...)
		sort.Strings(got)
		if strings.Join(want, ",") != strings.Join(got, ",") {
			out = append(out, fmt.Sprintf("rule %s lists checks [%s] but is named by [%s] (run: go run ./cmd/touchstone rules --sync)", r.ID, strings.Join(got, " "), strings.Join(want, " ")))
		}
	}
	return out
}

// Sync sets every rule's checks from the checks that name it.
func (c *Catalogue) Sync(checks []CheckRef) {
	naming := map[string][]string{}
	for _, ch := range checks {
		for _, r := range ch.Rules {
			naming[r] = append(naming[r], ch.ID)
		}
	}
	for _, r := range c.Rules {
		r.Checks = append([]string{}, naming[r.ID]...)
		sort.Strings(r.Checks)
	}
}

// Write stores the catalogue as indented JSON at path.
func (c *Catalogue) Write(path string) error {
	return writeIndented(path, struct {
		Rules []*Rule `json:"rules"`
	}{c.Rules})
}

// AreaCoverage counts rules and checked rules in one area.
type AreaCoverage struct {
	Area    string `json:"area"`
	Rules   int    `json:"rules"`
	Covered int    `json:"covered"`
	// Unobservable counts rules no check can observe over the API.
	Unobservable int `json:"unobservable"`
}

// Coverage reports, per area, how many rules at least one check names.
func (c *Catalogue) Coverage() (areas []AreaCoverage, covered, total int) {
	idx := map[string]*AreaCoverage{}
	for _, a := range c.Areas() {
		areas = append(areas, AreaCoverage{Area: a})
	}
	for i := range areas {
		idx[areas[i].Area] = &areas[i]
	}
	for _, r := range c.Rules {
		if r.AliasOf != "" {
			continue // counted once, as the rule it restates
		}
		a := idx[r.Area]
		a.Rules++
		total++
		if len(r.Checks) > 0 {
			a.Covered++
			covered++
		} else if r.Unobservable != "" {
			a.Unobservable++
		}
	}
	return areas, covered, total
}

// KindCoverage counts the catalogue by kind of rule, each rule once (an
// alias as the rule it restates): spec rules (kind must) checked and
// proven able to fail under their own id, the harness's interpretations
// and the documented quirks checked, and the rules no check can observe.
type KindCoverage struct {
	Spec        int `json:"spec"`         // kind must
	SpecChecked int `json:"spec_checked"` // ... named by a check
	SpecProven  int `json:"spec_proven"`  // ... shown failing under their own id
	// The checked spec rules by class: decisions (proven only by a sandbox
	// fault in the decision) and answers (also by a variant).
	DecisionsChecked int `json:"decisions_checked"`
	DecisionsProven  int `json:"decisions_proven"`
	AnswersChecked   int `json:"answers_checked"`
	AnswersProven    int `json:"answers_proven"`
	Interpretations  int `json:"interpretations"` // kind interpretation
	InterpChecked    int `json:"interpretations_checked"`
	Quirks           int `json:"quirks"` // kind quirk
	QuirksChecked    int `json:"quirks_checked"`
	Unobservable     int `json:"unobservable"` // any kind, no check can observe it
	Aliases          int `json:"aliases"`      // restatements, counted as the rule they restate
}

// ByKind counts the catalogue by kind; proof may be nil (nothing proven).
func (c *Catalogue) ByKind(proof *Proof) KindCoverage {
	var k KindCoverage
	for _, r := range c.Rules {
		if r.AliasOf != "" {
			k.Aliases++
			continue
		}
		if r.Unobservable != "" {
			k.Unobservable++
		}
		checked := len(r.Checks) > 0
		switch r.Kind {
		case Must:
			k.Spec++
			if checked {
				k.SpecChecked++
				proven := proof.IsProven(r.ID)
				if proven {
					k.SpecProven++
				}
				if r.Class == Decision {
					k.DecisionsChecked++
					if proven {
						k.DecisionsProven++
					}
				} else {
					k.AnswersChecked++
					if proven {
						k.AnswersProven++
					}
				}
			}
		case Interpretation:
			k.Interpretations++
			if checked {
				k.InterpChecked++
			}
		case Quirk:
			k.Quirks++
			if checked {
				k.QuirksChecked++
			}
		}
	}
	return k
}

// CodeStatus is a sentence of the error catalogue that gives one code its
// HTTP status ("Exchange: exchange_wallet_missing is 409."; document 2,
// Errors).
type CodeStatus struct {
	Rule   string
	Code   string
	Status int
}

var codeStatusRe = []*regexp.Regexp{
	regexp.MustCompile(`^(?:[A-Z][\w /,()-]*: )?([a-z][a-z0-9_]+) is (\d{3})\b`),
	regexp.MustCompile(`^([a-z][a-z0-9_]+): (\d{3})\b`),
}

// CodeStatuses are the error catalogue's code-to-status sentences (rules
// of area errors), in catalogue order; a restatement's under the rule it
// restates.
func (c *Catalogue) CodeStatuses() []CodeStatus {
	var out []CodeStatus
	for _, r := range c.Rules {
		if r.Area != "errors" {
			continue
		}
		for _, re := range codeStatusRe {
			if m := re.FindStringSubmatch(r.Rule); m != nil {
				n, _ := strconv.Atoi(m[2])
				out = append(out, CodeStatus{Rule: c.Canonical(r.ID).ID, Code: m[1], Status: n})
				break
			}
		}
	}
	return out
}
