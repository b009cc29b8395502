package reports

import (
	"runtime/debug"
	"sort"
	"strings"

	"github.com/touchstone-harness/touchstone/internal/catalogue"
	"github.com/touchstone-harness/touchstone/internal/profile"
)

// Tool is the Touchstone build that wrote a report.
type Tool struct {
	Version string `json:"version"`
	Commit  string `json:"commit,omitempty"`
	// Modified: the build's tree had uncommitted changes.
	Modified bool   `json:"modified,omitempty"`
	Go       string `json:"go"`
}

// ThisTool describes the running binary from its build information (the
// commit is known when the binary was built from a git checkout with `go
// build`; `go run` records none).
func ThisTool() Tool {
	t := Tool{Version: "devel"}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return t
	}
	t.Go = bi.GoVersion
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		t.Version = v
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			t.Commit = s.Value
		case "vcs.modified":
			t.Modified = s.Value == "true"
		}
	}
	return t
}

// Spec names a specification document and the catalogue the run used.
type Spec struct {
	catalogue.Document
	CatalogueSHA256 string `json:"catalogue_sha256"`
}

// SpecDocuments are the documents the catalogue was built from.
func SpecDocuments(*catalogue.Catalogue) []Spec {
	var out []Spec
	for _, d := range catalogue.Documents {
		out = append(out, Spec{Document: d, CatalogueSHA256: catalogue.Digest()})
	}
	return out
}

// TargetInfo names a target without any secret: each key by its public
// prefix only.
type TargetInfo struct {
	Name        string            `json:"name,omitempty"`
	BaseURL     string            `json:"base_url"`
	Environment string            `json:"environment,omitempty"`
	KeyPrefixes map[string]string `json:"key_prefixes,omitempty"`
	// Roles are the fixture roles the profile fills (customers,
	// beneficiaries), so a reader sees what a skip was missing.
	Roles []string `json:"roles,omitempty"`
}

// DescribeTarget is the secret-free description of a profile.
func DescribeTarget(p *profile.Profile) TargetInfo {
	ti := TargetInfo{Name: p.Name, BaseURL: p.BaseURL, Environment: p.Environment, KeyPrefixes: map[string]string{}}
	for role, key := range p.KeyMap() {
		if key == "" {
			continue
		}
		prefix, _, _ := strings.Cut(key, ".")
		ti.KeyPrefixes[role] = prefix
	}
	for role, id := range p.CustomerMap() {
		if id != "" {
			ti.Roles = append(ti.Roles, "customers."+role)
		}
	}
	for role, id := range p.BeneficiaryMap() {
		if id != "" {
			ti.Roles = append(ti.Roles, "beneficiaries."+role)
		}
	}
	sort.Strings(ti.Roles)
	return ti
}

// Seeds make a run reproducible: Ginkgo's spec order, the embedded
// sandbox's fixtures, rapid's generators.
type Seeds struct {
	Ginkgo  int64 `json:"ginkgo"`
	Sandbox int64 `json:"sandbox,omitempty"`
	Rapid   int64 `json:"rapid,omitempty"`
}
