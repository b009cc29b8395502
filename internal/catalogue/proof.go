package catalogue

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"sort"
)

// Proof is the ledger of which checked rules have been shown able to fail
// under their own id. The fault proof (cmd/touchstone/faultproof, go test
// -update-proof) writes it.
type Proof struct {
	// Proven are the rules broken precisely by a source written to break
	// exactly that rule, with those sources: a sandbox fault mode
	// "fault:NAME" (a change of the server's decision), or for an answer
	// rule (Rule.Class) also a variant "variant:NAME" (a proxy in front
	// of a faithful sandbox that changes the answer on the wire).
	// Precisely: a check failed under the rule and none under another
	// rule. The server that honours nothing proves no rule.
	Proven map[string][]string `json:"proven"`
	// Seen are, per rule, every source that made a check declaring it
	// fail under it: faults and variants written for other rules, and
	// "wrong-server", the server that honours nothing.
	Seen map[string][]string `json:"seen,omitempty"`
	// Asserted are, per check, the declared rules it was seen failing
	// under: a declared rule missing here is one no assertion of the
	// check has been shown to fail under.
	Asserted map[string][]string `json:"asserted,omitempty"`
	// Unproven says why each checked spec rule is not proven: written by
	// hand where no fault or variant can show it, or said by the proof
	// itself (prefixed SaidByProof) from what its run saw.
	Unproven map[string]string `json:"unproven"`
}

// SaidByProof prefixes a reason the fault proof wrote itself; every
// -update-proof rewrites it, where a reason written by hand is kept.
const SaidByProof = "proof run: "

//go:embed proof.json
var embeddedProof []byte

var proofDoc = embeddedDoc[Proof]{raw: embeddedProof, parse: ParseProof}

// LoadProof returns the embedded proof ledger.
func LoadProof() (*Proof, error) { return proofDoc.load() }

// MustLoadProof is LoadProof for callers that cannot go on without it.
func MustLoadProof() *Proof { return must(LoadProof()) }

// ParseProof decodes a proof ledger.
func ParseProof(raw []byte) (*Proof, error) {
	var p Proof
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, fmt.Errorf("catalogue: proof: %v", err)
	}
	if p.Proven == nil {
		p.Proven = map[string][]string{}
	}
	if p.Unproven == nil {
		p.Unproven = map[string]string{}
	}
	if p.Seen == nil {
		p.Seen = map[string][]string{}
	}
	if p.Asserted == nil {
		p.Asserted = map[string][]string{}
	}
	return &p, nil
}

// IsProven tells whether the rule has been shown failing under its id.
func (p *Proof) IsProven(id string) bool {
	if p == nil {
		return false
	}
	return len(p.Proven[id]) > 0
}

// Write stores the ledger as indented JSON (keys sorted) at path.
func (p *Proof) Write(path string) error {
	for _, m := range []map[string][]string{p.Proven, p.Seen, p.Asserted} {
		for _, v := range m {
			sort.Strings(v)
		}
	}
	return writeIndented(path, p)
}

// SpecStatus sorts the checked spec rules (kind must, aliases counted as
// the rule they restate) into proven and unproven, in catalogue order.
func (c *Catalogue) SpecStatus(p *Proof) (proven, unproven []*Rule) {
	for _, r := range c.Rules {
		if r.AliasOf != "" || r.Kind != Must || len(r.Checks) == 0 {
			continue
		}
		if p.IsProven(r.ID) {
			proven = append(proven, r)
		} else {
			unproven = append(unproven, r)
		}
	}
	return proven, unproven
}
