package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/touchstone-harness/touchstone/internal/controlcontract"
)

var updateControlTable = flag.Bool("update-control-table", false, "rewrite the README's control table from internal/controlcontract/contract.json")

const (
	controlTableStart = "<!-- control table: generated from internal/controlcontract/contract.json by go test ./cmd/touchstone -run TestControlTableInReadme -update-control-table -->"
	controlTableEnd   = "<!-- end of control table -->"
)

// controlTable renders the contract's calls as the README's table: the
// operation id, the call with its body's members, its group and what it
// sets.
func controlTable() string {
	var b strings.Builder
	b.WriteString("| operation | call | group | the world fact it sets |\n|---|---|---|---|\n")
	esc := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	for _, o := range controlcontract.Operations() {
		call := o.Method + " /_sandbox" + o.Path
		if len(o.Body) > 0 {
			call += ` {"` + strings.Join(o.Body, `", "`) + `"}`
		} else if o.Method == "POST" {
			call += " {}"
		}
		fmt.Fprintf(&b, "| `%s` | `%s` | %s | %s |\n", o.ID, esc(call), o.Group, esc(o.Description))
	}
	return b.String()
}

// TestControlTableInReadme: the README's table of control calls is the
// contract's, as controlTable renders it.
func TestControlTableInReadme(t *testing.T) {
	path := filepath.Join("..", "..", "README.md")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(raw)
	i, j := strings.Index(s, controlTableStart), strings.Index(s, controlTableEnd)
	if i < 0 || j < i {
		t.Fatalf("README.md has no control table between %q and %q", controlTableStart, controlTableEnd)
	}
	want := controlTableStart + "\n\n" + controlTable() + "\n"
	if got := s[i:j]; got != want {
		if *updateControlTable {
			if err := os.WriteFile(path, []byte(s[:i]+want+s[j:]), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Errorf("the README's control table differs from internal/controlcontract/contract.json (go test ./cmd/touchstone -run TestControlTableInReadme -update-control-table)")
	}
}
