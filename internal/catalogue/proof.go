package catalogue

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"sort"
)

// Proof is the ledger of which checked rules have been shown able to fail
// under their own id: for each, what made a check declaring it fail under
// it (a sandbox fault mode "fault:NAME", the server that honours nothing
// "wrong-server", one of its faithful variants "variant:NAME"). The fault
// proof (cmd/touchstone/faultproof, go test -update-proof) writes it;
// Unproven is kept by hand: why no fault or variant can show a checked
// spec rule failing.
type Proof struct {
	Proven   map[string][]string `json:"proven"`
	Unproven map[string]string   `json:"unproven"`
}

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
	for _, v := range p.Proven {
		sort.Strings(v)
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
