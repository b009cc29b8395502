package faultproof

import (
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
	By map[string][]string
	// Undeclared are the failures seen under a rule their check does not
	// declare, "check RULE", each with its first source.
	Undeclared map[string]string
}

// NewProofs is an empty gathering.
func NewProofs() *Proofs {
	return &Proofs{By: map[string][]string{}, Undeclared: map[string]string{}}
}

// AddOutcome records a fault's outcome.
func (p *Proofs) AddOutcome(o Outcome) {
	for _, r := range o.FailedUnder {
		p.add(r, o.Source)
	}
	for _, u := range o.Undeclared {
		if _, ok := p.Undeclared[u]; !ok {
			p.Undeclared[u] = o.Source
		}
	}
}

// AddResults records check results against a source.
func (p *Proofs) AddResults(source string, results []*check.Result) {
	for _, r := range results {
		d, u := FailedUnder(r)
		for _, id := range d {
			p.add(id, source)
		}
		for _, x := range u {
			if _, ok := p.Undeclared[x]; !ok {
				p.Undeclared[x] = source
			}
		}
	}
}

func (p *Proofs) add(rule, source string) {
	for _, s := range p.By[rule] {
		if s == source {
			return
		}
	}
	p.By[rule] = append(p.By[rule], source)
}

// Ledger is the proof as the catalogue stores it: every rule shown
// failing, under its canonical id (an alias counts for the rule it
// restates), with what showed it; the reasons of the unproven ones are
// kept from old.
func (p *Proofs) Ledger(cat *catalogue.Catalogue, old *catalogue.Proof) *catalogue.Proof {
	out := &catalogue.Proof{Proven: map[string][]string{}, Unproven: map[string]string{}}
	for id, srcs := range p.By {
		r := cat.Canonical(id)
		if r == nil {
			continue
		}
		for _, s := range srcs {
			out.Proven[r.ID] = appendNew(out.Proven[r.ID], s)
		}
	}
	for id, srcs := range out.Proven {
		out.Proven[id] = sortedSet(srcs)
	}
	if old != nil {
		for id, why := range old.Unproven {
			if _, ok := out.Proven[id]; !ok {
				out.Unproven[id] = why
			}
		}
	}
	return out
}

func appendNew(xs []string, x string) []string {
	for _, y := range xs {
		if y == x {
			return xs
		}
	}
	return append(xs, x)
}
