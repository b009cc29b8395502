package faultproof

import (
	"fmt"
	"sort"
	"strings"

	"github.com/touchstone-harness/touchstone/internal/catalogue"
	"github.com/touchstone-harness/touchstone/internal/check"
)

// Source names of the proof ledger: a fault mode, the server that honours
// nothing, or one of its faithful variants.
const (
	FaultSource       = "fault:"
	WrongServerSource = "wrong-server"
	VariantSource     = "variant:"
)

// Proofs gathers, per rule, what made a check fail under that rule's own
// id (a check declaring it): fault modes, the wrong server, its variants.
type Proofs struct {
	// By is every source seen making a check fail under the rule, whatever
	// the source was written to break (the ledger's "seen").
	By map[string][]string
	// Own are the sources written to break the rule that broke it
	// precisely: a check failed under it, and no check failed under
	// another rule, under a rule it does not declare, or in another area.
	Own map[string][]string
	// Imprecise are, per rule, the sources written to break it that also
	// made checks fail under other rules: "SOURCE (also RULES)".
	Imprecise map[string][]string
	// Pairs are, per check, the declared rules it was seen failing under.
	Pairs map[string]map[string]bool
	// Undeclared are the failures seen under a rule their check does not
	// declare, "check RULE", each with its first source.
	Undeclared map[string]string
}

// NewProofs is an empty gathering.
func NewProofs() *Proofs {
	return &Proofs{By: map[string][]string{}, Own: map[string][]string{}, Imprecise: map[string][]string{},
		Pairs: map[string]map[string]bool{}, Undeclared: map[string]string{}}
}

// AddOutcome records a fault's or a variant's outcome.
func (p *Proofs) AddOutcome(o Outcome) {
	for _, r := range o.FailedUnder {
		p.add(p.By, r, o.Source)
	}
	for _, pr := range o.Pairs {
		p.pair(pr)
	}
	for _, u := range o.Undeclared {
		if _, ok := p.Undeclared[u]; !ok {
			p.Undeclared[u] = o.Source
		}
	}
	if !o.Caught {
		return
	}
	if others := o.Others(); len(others) > 0 || len(o.Undeclared) > 0 || len(o.Stray) > 0 {
		also := append(append(others, o.Undeclared...), o.Stray...)
		p.Imprecise[o.Rule] = append(p.Imprecise[o.Rule], fmt.Sprintf("%s (also %s)", o.Source, strings.Join(also, ", ")))
		return
	}
	p.add(p.Own, o.Rule, o.Source)
}

// AddResults records check results against a source that was written to
// break no rule in particular (the server that honours nothing): it shows
// what checks can fail under, and proves no rule on its own.
func (p *Proofs) AddResults(source string, results []*check.Result) {
	for _, r := range results {
		d, u := FailedUnder(r)
		for _, id := range d {
			p.add(p.By, id, source)
			p.pair(r.ID + " " + id)
		}
		for _, x := range u {
			if _, ok := p.Undeclared[x]; !ok {
				p.Undeclared[x] = source
			}
		}
	}
}

func (p *Proofs) add(m map[string][]string, rule, source string) {
	for _, s := range m[rule] {
		if s == source {
			return
		}
	}
	m[rule] = append(m[rule], source)
}

func (p *Proofs) pair(pr string) {
	id, rule, _ := strings.Cut(pr, " ")
	if p.Pairs[id] == nil {
		p.Pairs[id] = map[string]bool{}
	}
	p.Pairs[id][rule] = true
}

// Ledger is the proof as the catalogue stores it, under canonical ids (an
// alias counts for the rule it restates):
//   - proven: the rules a source written to break exactly that rule broke
//     precisely, with those sources: for a decision rule only sandbox
//     faults (a change of the server's decision), for an answer rule
//     faults or variants (a proxy that changes the answer on the wire);
//     the server that honours nothing proves nothing on its own;
//   - seen: every source that made a check fail under the rule;
//   - asserted: per check, the declared rules it was seen failing under;
//   - unproven: why each checked spec rule is not proven (kept from old
//     where written by hand, else said from what this run saw).
func (p *Proofs) Ledger(cat *catalogue.Catalogue, old *catalogue.Proof) *catalogue.Proof {
	out := &catalogue.Proof{Proven: map[string][]string{}, Seen: map[string][]string{}, Asserted: map[string][]string{}, Unproven: map[string]string{}}
	canon := func(id string) string {
		if r := cat.Canonical(id); r != nil {
			return r.ID
		}
		return ""
	}
	for id, srcs := range p.By {
		if c := canon(id); c != "" {
			out.Seen[c] = sortedSet(append(out.Seen[c], srcs...))
		}
	}
	for id, srcs := range p.Own {
		r := cat.Rule(canon(id))
		if r == nil {
			continue
		}
		for _, s := range srcs {
			if strings.HasPrefix(s, FaultSource) || (strings.HasPrefix(s, VariantSource) && r.Class != catalogue.Decision) {
				out.Proven[r.ID] = sortedSet(append(out.Proven[r.ID], s))
			}
		}
	}
	for id, rules := range p.Pairs {
		for r := range rules {
			out.Asserted[id] = append(out.Asserted[id], r)
		}
		sort.Strings(out.Asserted[id])
	}
	imprecise := map[string][]string{}
	for id, xs := range p.Imprecise {
		imprecise[canon(id)] = append(imprecise[canon(id)], xs...)
	}
	for _, r := range cat.Rules {
		if r.AliasOf != "" || r.Kind != catalogue.Must || len(r.Checks) == 0 || len(out.Proven[r.ID]) > 0 {
			continue
		}
		if old != nil && old.Unproven[r.ID] != "" && !strings.HasPrefix(old.Unproven[r.ID], catalogue.SaidByProof) {
			out.Unproven[r.ID] = old.Unproven[r.ID]
			continue
		}
		out.Unproven[r.ID] = catalogue.SaidByProof + unprovenWhy(r, p.ownOf(cat, r.ID), imprecise[r.ID], out.Seen[r.ID])
	}
	return out
}

// unprovenWhy says what this run saw of a rule it did not prove.
func unprovenWhy(r *catalogue.Rule, own, imprecise, seen []string) string {
	switch {
	case len(imprecise) > 0:
		sort.Strings(imprecise)
		return "its own fault or variant also broke other rules: " + strings.Join(imprecise, "; ")
	case len(own) > 0 && r.Class == catalogue.Decision:
		return "a decision rule shown failing only by a variant, which changes the answer on the wire, not the decision: needs a sandbox fault in the decision (" + strings.Join(own, ", ") + ")"
	case len(seen) > 0:
		return "shown failing only by sources written to break other rules or every rule at once (" + strings.Join(clipped(seen, 4), ", ") + "): needs a fault of its own"
	default:
		return "no fault or variant made a check fail under it"
	}
}

func clipped(xs []string, n int) []string {
	if len(xs) <= n {
		return xs
	}
	return append(xs[:n:n], fmt.Sprintf("%d more", len(xs)-n))
}

// Others are the rules the outcome's checks failed under besides the one
// its source was written to break (and that rule's aliases), less the
// schema rule: the runner judges every answer against the target's served
// OpenAPI document, so a changed answer breaks it with the rule itself.
func (o Outcome) Others() []string {
	cat, err := catalogue.Load()
	own := o.Rule
	if err == nil {
		if r := cat.Canonical(o.Rule); r != nil {
			own = r.ID
		}
	}
	var out []string
	for _, r := range o.FailedUnder {
		c := r
		if err == nil {
			if x := cat.Canonical(r); x != nil {
				c = x.ID
			}
		}
		if c != own && r != check.SchemaRule {
			out = append(out, r)
		}
	}
	return out
}

// ownOf are the precise sources of a rule under any of its ids.
func (p *Proofs) ownOf(cat *catalogue.Catalogue, id string) []string {
	var out []string
	for x, srcs := range p.Own {
		if r := cat.Canonical(x); r != nil && r.ID == id {
			out = append(out, srcs...)
		}
	}
	return sortedSet(out)
}
