// Package controlcontract is the control contract: the OpenAPI 3
// document of every control call Touchstone may make on a target (the
// provider states the public API cannot cause), and its operations. It
// stands between the harness (internal/control, its client) and the
// sandbox (fixtures/sandbox, which serves it): neither depends on the
// other, both on this document.
package controlcontract

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
)

// contractJSON is the control contract: an OpenAPI 3 document of every
// control call (its operation id, the world fact it sets, its body and
// its answers). The sandbox serves it at /_sandbox/openapi.json; a
// separate control service may serve any subset of it, listed at its
// /capabilities.
//
//go:embed contract.json
var contractJSON []byte

// Name names the contract in a capabilities document.
const Name = "touchstone-control"

// Document is the control contract document (OpenAPI 3, JSON).
func Document() []byte { return contractJSON }

// Operation is one control call of the contract.
type Operation struct {
	ID      string // operation id, e.g. "verificationDecision"
	Method  string // GET or POST
	Path    string // template below the control URL, e.g. "/customers/{id}/verification"
	Group   string // the contract's tag: "identity-provider", "funds", ...
	Fact    string // the kind of world fact: decision, money, policy, time, failure, harness
	Summary string
	// Description is what the call does, as the README's table says it.
	Description string
	// Body names the request body's members ("" when it takes none).
	Body []string
}

var (
	opsOnce sync.Once
	ops     []Operation
	version string
)

func loadContract() {
	opsOnce.Do(func() {
		var doc struct {
			Info  struct{ Version string } `json:"info"`
			Paths map[string]map[string]struct {
				OperationID string   `json:"operationId"`
				Summary     string   `json:"summary"`
				Description string   `json:"description"`
				Tags        []string `json:"tags"`
				Fact        string   `json:"x-world-fact"`
				RequestBody *struct {
					Content map[string]struct {
						Schema struct {
							Properties map[string]json.RawMessage `json:"properties"`
						} `json:"schema"`
					} `json:"content"`
				} `json:"requestBody"`
			} `json:"paths"`
		}
		if err := json.Unmarshal(contractJSON, &doc); err != nil {
			panic(fmt.Sprintf("controlcontract: contract.json: %v", err))
		}
		version = doc.Info.Version
		for path, item := range doc.Paths {
			for method, o := range item {
				op := Operation{ID: o.OperationID, Method: strings.ToUpper(method), Path: path, Summary: o.Summary, Description: o.Description, Fact: o.Fact}
				if len(o.Tags) > 0 {
					op.Group = o.Tags[0]
				}
				if o.RequestBody != nil {
					for k := range o.RequestBody.Content["application/json"].Schema.Properties {
						op.Body = append(op.Body, k)
					}
					sort.Strings(op.Body)
				}
				ops = append(ops, op)
			}
		}
		sort.Slice(ops, func(i, j int) bool {
			if ops[i].Path != ops[j].Path {
				return ops[i].Path < ops[j].Path
			}
			return ops[i].Method < ops[j].Method
		})
	})
}

// Operations are the contract's calls, by path.
func Operations() []Operation { loadContract(); return ops }

// Version is the contract's info.version.
func Version() string { loadContract(); return version }

// OperationByID returns the contract's operation with that id.
func OperationByID(id string) (Operation, bool) {
	for _, o := range Operations() {
		if o.ID == id {
			return o, true
		}
	}
	return Operation{}, false
}

// OperationOf returns the contract's operation a call is (method and a
// path below the control URL, concrete or a template); of two templates
// that match, the one with more literal segments wins.
func OperationOf(method, path string) (Operation, bool) {
	if i := strings.IndexAny(path, "?#"); i >= 0 {
		path = path[:i]
	}
	segs := strings.Split(strings.Trim(path, "/"), "/")
	best, bestLit := Operation{}, -1
	for _, o := range Operations() {
		if o.Method != method {
			continue
		}
		tsegs := strings.Split(strings.Trim(o.Path, "/"), "/")
		if len(tsegs) != len(segs) {
			continue
		}
		lit, match := 0, true
		for i, ts := range tsegs {
			switch {
			case strings.HasPrefix(ts, "{"):
			case ts == segs[i]:
				lit++
			default:
				match = false
			}
			if !match {
				break
			}
		}
		if match && lit > bestLit {
			best, bestLit = o, lit
		}
	}
	return best, bestLit >= 0
}

// OperationID is the id of the call (method and path), or "METHOD path"
// for a call the contract does not name.
func OperationID(method, path string) string {
	if o, ok := OperationOf(method, path); ok {
		return o.ID
	}
	return method + " " + path
}

// ClockOps are the calls that move the clock: a target serves them when
// its clock is virtual (GET /clock answers "virtual": true); on a real
// clock a check that needs the clock moved skips itself or waits in real
// time, as it always has.
var ClockOps = []string{"advanceClock", "nextMinute"}

// IsClockOp tells whether an operation id reads or moves the clock.
func IsClockOp(id string) bool {
	return id == "readClock" || id == "advanceClock" || id == "nextMinute"
}

// Capabilities is what a control service says it serves (GET
// {control_url}/capabilities): the operation ids of the contract it
// honours. A platform team's build may serve a dozen; the sandbox serves
// them all.
type Capabilities struct {
	Contract   string   `json:"contract"`
	Version    string   `json:"version"`
	Operations []string `json:"operations"`
}

// All lists every operation of the contract.
func All() Capabilities {
	c := Capabilities{Contract: Name, Version: Version()}
	for _, o := range Operations() {
		c.Operations = append(c.Operations, o.ID)
	}
	sort.Strings(c.Operations)
	return c
}
