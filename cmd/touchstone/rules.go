package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/touchstone-harness/touchstone/internal/catalogue"
	"github.com/touchstone-harness/touchstone/internal/check"
)

func init() {
	commands["rules"] = command{summary: "print the rule catalogue with check coverage", run: runRules}
}

func runRules(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("rules", "[--rule ID] [--area AREA] [--all] [--sync] [--needs-control]", stdout)
	ruleID := fs.String("rule", "", "print one rule's story: text, interpretation, its checks and faults with file:line")
	area := fs.String("area", "", "only this area")
	all := fs.Bool("all", false, "list every rule, not only the unchecked ones")
	needsControl := fs.Bool("needs-control", false, "list what a target without the sandbox control API cannot have judged: the checks that skip there and why, the rules some checks judge only with it, and the rules no check judges there")
	sync := fs.Bool("sync", false, "rewrite internal/catalogue/rules.json so each rule lists the checks that name it (run in the repository)")
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	cat := catalogue.MustLoad()
	if *ruleID != "" {
		if !printRuleStory(stdout, cat, strings.ToUpper(*ruleID)) {
			fmt.Fprintf(stderr, "touchstone rules: unknown rule %q\n", *ruleID)
			return exitUsage
		}
		return exitOK
	}
	refs := checkRefs()
	if *sync {
		cat.Sync(refs)
		path, err := catalogueSource()
		if err != nil {
			fmt.Fprintf(stderr, "touchstone rules: --sync: %v\n", err)
			return exitUsage
		}
		if err := cat.Write(path); err != nil {
			fmt.Fprintf(stderr, "touchstone rules: --sync: %v\n", err)
			return exitUsage
		}
		fmt.Fprintf(stdout, "wrote %s\n", path)
	}
	for _, p := range cat.Problems(refs) {
		fmt.Fprintf(stdout, "problem: %s\n", p)
	}
	areas, covered, total := cat.Coverage()
	if *area != "" {
		found := false
		for _, a := range areas {
			found = found || a.Area == *area
		}
		for _, c := range check.All() {
			// --needs-control lists checks by their own area too
			// (property, load).
			found = found || (*needsControl && c.Area() == *area)
		}
		if !found {
			fmt.Fprintf(stderr, "touchstone rules: unknown area %q\n", *area)
			return exitUsage
		}
	}
	if *needsControl {
		printNeedsControl(stdout, cat, *area)
		return exitOK
	}
	fmt.Fprintf(stdout, "%-18s %6s %8s %13s\n", "area", "rules", "checked", "unobservable")
	for _, a := range areas {
		if *area == "" || a.Area == *area {
			fmt.Fprintf(stdout, "%-18s %6d %8d %13d\n", a.Area, a.Rules, a.Covered, a.Unobservable)
		}
	}
	heading := "\nrules not yet checked:"
	if *all {
		heading = "\nrules:"
	}
	fmt.Fprintln(stdout, heading)
	for _, r := range cat.Rules {
		if (*area != "" && r.Area != *area) || (!*all && len(r.Checks) > 0) {
			continue
		}
		mark := " "
		if len(r.Checks) > 0 {
			mark = "✓"
		}
		if r.AliasOf != "" {
			if *all {
				fmt.Fprintf(stdout, "= %-10s %-14s [%s] %s\n  %-10s restates %s: one rule, counted once, checked under %s\n", r.ID, "restatement", sectionRef(r), r.Rule, "", r.AliasOf, r.AliasOf)
			}
			continue
		}
		fmt.Fprintf(stdout, "%s %-10s %-14s [%s] %s\n", mark, r.ID, r.Kind, sectionRef(r), r.Rule)
		if r.Kind == catalogue.Interpretation {
			fmt.Fprintf(stdout, "  %-10s reading: %s\n", "", r.Interpretation)
		}
		if r.Unobservable != "" {
			fmt.Fprintf(stdout, "  %-10s not observable over the API: %s\n", "", r.Unobservable)
		}
		if *all && len(r.Checks) > 0 {
			fmt.Fprintf(stdout, "  %-10s checked by: %s\n", "", strings.Join(r.Checks, ", "))
		}
	}
	proof := catalogue.MustLoadProof()
	printProof(stdout, cat, proof, *area, *all)
	k := cat.ByKind(proof)
	fmt.Fprintf(stdout, "\nby kind: spec rules (must) %d, checked %d, proven %d; interpretations %d, checked %d; quirks %d, checked %d; unobservable %d; restatements counted as the rule they restate %d\n",
		k.Spec, k.SpecChecked, k.SpecProven, k.Interpretations, k.InterpChecked, k.Quirks, k.QuirksChecked, k.Unobservable, k.Aliases)
	fmt.Fprintf(stdout, "proven by class: decisions %d/%d (by a sandbox fault in the decision), answers %d/%d (by a fault or a variant that changes the answer)\n",
		k.DecisionsProven, k.DecisionsChecked, k.AnswersProven, k.AnswersChecked)
	fmt.Fprintf(stdout, "rules covered: %d/%d\n", covered, total)
	fmt.Fprintf(stdout, "rules proven: %d/%d\n", k.SpecProven, k.SpecChecked)
	return exitOK
}

// printProof lists the checked spec rules (kind must) not yet shown able to
// fail under their own id, each with why no fault can show it, and with
// --all the proven ones with what showed them (internal/catalogue/proof.json,
// written by the fault proof).
func printProof(w io.Writer, cat *catalogue.Catalogue, proof *catalogue.Proof, area string, all bool) {
	proven, unproven := cat.SpecStatus(proof)
	inArea := func(r *catalogue.Rule) bool { return area == "" || r.Area == area }
	if all {
		fmt.Fprintln(w, "\nchecked spec rules proven able to fail under their own id (by a fault mode, the wrong server or a variant):")
		for _, r := range proven {
			if inArea(r) {
				fmt.Fprintf(w, "  %-10s %s\n", r.ID, strings.Join(clip(proof.Proven[r.ID], 3), ", "))
			}
		}
	}
	fmt.Fprintln(w, "\nchecked spec rules not yet proven able to fail under their own id:")
	for _, r := range unproven {
		if !inArea(r) {
			continue
		}
		why := proof.Unproven[r.ID]
		if why == "" {
			why = "no fault mode or wrong-server variant yet"
		}
		fmt.Fprintf(w, "  %-10s %s\n", r.ID, why)
	}
}

// clip keeps the first n, saying how many more there are.
func clip(xs []string, n int) []string {
	if len(xs) <= n {
		return xs
	}
	return append(append([]string(nil), xs[:n]...), fmt.Sprintf("+%d more", len(xs)-n))
}

func sectionRef(r *catalogue.Rule) string { return fmt.Sprintf("doc %d, %s", r.Doc, r.Section) }

func checkRefs() []catalogue.CheckRef {
	var refs []catalogue.CheckRef
	for _, c := range check.All() {
		refs = append(refs, catalogue.CheckRef{ID: c.ID, Rules: c.Rules})
	}
	return refs
}

// catalogueSource finds internal/catalogue/rules.json above the working directory.
func catalogueSource() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		p := filepath.Join(dir, "internal", "catalogue", "rules.json")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("internal/catalogue/rules.json not found above the working directory; run from the repository")
		}
		dir = parent
	}
}
