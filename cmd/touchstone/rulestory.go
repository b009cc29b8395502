package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/touchstone-harness/touchstone/fixtures/sandbox"
	"github.com/touchstone-harness/touchstone/internal/catalogue"
	"github.com/touchstone-harness/touchstone/internal/check"
)

// printRuleStory prints one rule's whole story: its text, section, kind and
// interpretation, each check that proves it and each sandbox fault that
// breaks it, with file:line, so a newcomer goes from a rule id to its code
// in one command (touchstone rules --rule ID).
func printRuleStory(w io.Writer, cat *catalogue.Catalogue, id string) bool {
	r := cat.Rule(id)
	if r == nil {
		return false
	}
	fmt.Fprintf(w, "%s  (%s; document %d, section %q; area %s)\n", r.ID, r.Kind, r.Doc, r.Section, r.Area)
	fmt.Fprintf(w, "  rule: %s\n", r.Rule)
	if r.Unobservable != "" {
		fmt.Fprintf(w, "  not observable over the API: %s\n", r.Unobservable)
	}
	if r.Interpretation != "" {
		fmt.Fprintf(w, "  interpretation: %s\n", r.Interpretation)
	}
	if r.AliasOf != "" {
		fmt.Fprintf(w, "  restates %s: one rule, counted once; its checks and faults are %s's\n", r.AliasOf, r.AliasOf)
		r = cat.Rule(r.AliasOf)
		id = r.ID
		fmt.Fprintf(w, "%s  (%s; document %d, section %q; area %s)\n  rule: %s\n", r.ID, r.Kind, r.Doc, r.Section, r.Area, r.Rule)
	}
	if a := cat.Aliases(id); len(a) > 0 {
		fmt.Fprintf(w, "  restated as: %s (counted once, as %s)\n", strings.Join(a, ", "), id)
	}
	if proof, err := catalogue.LoadProof(); err == nil && len(r.Checks) > 0 {
		switch {
		case proof.IsProven(id):
			fmt.Fprintf(w, "  proven able to fail under %s by: %s\n", id, strings.Join(proof.Proven[id], ", "))
		case proof.Unproven[id] != "":
			fmt.Fprintf(w, "  not proven able to fail under %s: %s\n", id, proof.Unproven[id])
		default:
			fmt.Fprintf(w, "  not yet proven able to fail under %s: no fault mode or wrong-server variant has made a check fail under it\n", id)
		}
	}
	checks := check.ForRule(id)
	fmt.Fprintf(w, "checks (%d):\n", len(checks))
	for _, c := range checks {
		fmt.Fprintf(w, "  %-52s %s:%d\n", c.ID, c.File, c.Line)
	}
	var faults []sandbox.Fault
	for _, f := range sandbox.Faults() {
		if f.Rule == id {
			faults = append(faults, f)
		}
	}
	fmt.Fprintf(w, "faults (%d):\n", len(faults))
	for _, f := range faults {
		fmt.Fprintf(w, "  %-52s %s:%d\n", f.Name, f.File, f.Line)
		if len(f.Sites) > 0 {
			fmt.Fprintf(w, "  %-52s applied at %s\n", "", strings.Join(f.Sites, ", "))
		}
	}
	return true
}
