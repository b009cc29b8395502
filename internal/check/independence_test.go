package check_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/touchstone-harness/touchstone"

// composition is the composition root: the one package that imports every
// area, the properties and the load probes, so that each registers its
// checks (the runner and the tests that need every check import it).
const composition = module + "/cmd/touchstone/allchecks"

// pkg is one package of the module as go list reads it.
type pkg struct {
	ImportPath   string
	Deps         []string // non-test imports, transitively
	Imports      []string // non-test imports, directly
	TestImports  []string // imports of its _test.go files in the package
	XTestImports []string // imports of its _test.go files in package x_test
}

// graph reads the module's import graph: every package, keyed by its path
// inside the module ("internal/check", "suites/auth", ...).
func graph(t *testing.T) map[string]*pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps=false", "-json=ImportPath,Deps,Imports,TestImports,XTestImports", module+"/...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}
	g := map[string]*pkg{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list: %v", err)
		}
		g[rel(p.ImportPath)] = &p
	}
	if len(g) < 20 || g["internal/check"] == nil || g[rel(composition)] == nil {
		t.Fatalf("go list read %d packages of the module; is this the module's tree?", len(g))
	}
	return g
}

// rel is an import path inside the module ("" for one outside it).
func rel(path string) string {
	if r, ok := strings.CutPrefix(path, module+"/"); ok {
		return r
	}
	return ""
}

// in tells whether a module path is dir or below it.
func in(path string, dirs ...string) bool {
	for _, d := range dirs {
		if path == d || strings.HasPrefix(path, d+"/") {
			return true
		}
	}
	return false
}

// isArea: an area package, suites/<area> (suites itself declares the
// Ginkgo specs and is no area).
func isArea(path string) bool { return strings.HasPrefix(path, "suites/") }

// isCheck: a package of checks (the Ginkgo declarations, the areas, the
// properties, the load probes).
func isCheck(path string) bool { return in(path, "suites", "property", "load") }

// family is which of the three kinds of checks a package belongs to.
func family(path string) string {
	for _, f := range []string{"suites", "property", "load"} {
		if in(path, f) {
			return f
		}
	}
	return ""
}

// via is the chain of non-test imports inside the module from one package
// to another it depends on: "a → b → c".
func via(g map[string]*pkg, from, to string) string {
	prev := map[string]string{from: ""}
	queue := []string{from}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if p == to {
			chain := []string{p}
			for q := prev[p]; q != ""; q = prev[q] {
				chain = append(chain, q)
			}
			slices.Reverse(chain)
			return strings.Join(chain, " → ")
		}
		if g[p] == nil {
			continue
		}
		for _, i := range g[p].Imports {
			if r := rel(i); r != "" {
				if _, seen := prev[r]; !seen {
					prev[r] = p
					queue = append(queue, r)
				}
			}
		}
	}
	return from + " → … → " + to
}

// TestBoundaries reads the module's import graph (go list) and holds its
// boundaries. "Depends on" is a non-test import, direct or not:
//   - checks (suites/..., property, load) and the shared harness code and
//     kit in internal/ reach targets only over HTTP: none depends on the
//     sandbox (fixtures/) or on the runner (cmd/), where the one meeting
//     of harness and sandbox is (cmd/touchstone/launch, faultproof);
//   - the sandbox depends on no check and no harness code (each rule is
//     written twice, once to serve and once to check), except the target
//     profile and the control contract (internal/controlcontract), the
//     contracts it shares with the harness;
//   - internal/ depends on no check: no area, not suites, property or load;
//   - the three kinds of checks (suites/..., property, load) depend on
//     none of each other;
//   - no package imports an area (suites/<area>), in its code or its
//     tests, but the composition root (cmd/touchstone/allchecks) and the
//     tests of the runner (cmd/...); the root imports every area, property
//     and load, so that every run and every test that imports it has every
//     check.
func TestBoundaries(t *testing.T) {
	g := graph(t)
	paths := make([]string, 0, len(g))
	for p := range g {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		for _, d := range g[p].Deps {
			d = rel(d)
			if d == "" {
				continue
			}
			var why string
			switch {
			case (isCheck(p) || in(p, "internal")) && in(d, "fixtures"):
				why = "a check or harness package depends on the sandbox"
			case (isCheck(p) || in(p, "internal")) && in(d, "cmd"):
				why = "a check or harness package depends on the runner"
			case in(p, "fixtures") && (isCheck(d) || in(d, "internal", "cmd")) && d != "internal/profile" && d != "internal/controlcontract":
				why = "the sandbox depends on the harness"
			case in(p, "internal") && isCheck(d):
				why = "harness code depends on a check"
			case isCheck(p) && isCheck(d) && family(p) != family(d):
				why = "a " + family(p) + " check depends on a " + family(d) + " check"
			default:
				continue
			}
			t.Errorf("%s: %s depends on %s (%s)", why, p, d, via(g, p, d))
		}
		imports := func(list []string, what string) {
			for _, i := range list {
				i = rel(i)
				if !isArea(i) || i == p {
					continue
				}
				ok := p == rel(composition) || what != "" && in(p, "cmd")
				if !ok {
					t.Errorf("%s imports the area %s%s: only the composition root %s imports an area", p, i, what, rel(composition))
				}
			}
		}
		imports(g[p].Imports, "")
		imports(g[p].TestImports, " in its tests")
		imports(g[p].XTestImports, " in its tests")
	}
	root := g[rel(composition)]
	for _, p := range paths {
		if (isArea(p) || p == "property" || p == "load") && !slices.Contains(root.Imports, module+"/"+p) {
			t.Errorf("the composition root %s does not import %s: its checks are in no run", rel(composition), p)
		}
	}
}
