package faultproof_test

import (
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/touchstone-harness/touchstone/internal/catalogue"
	"github.com/touchstone-harness/touchstone/internal/check"
)

var updateDeclared = flag.Bool("update-declared", false, "rewrite testdata/declared_not_judged.txt from this run")

// declaredNotJudged lists the declarations known not to be judged yet,
// "check RULE" a line: each is work to do (judge the rule in the check, or
// take it off the check's list); the test fails on any other, and on a
// line that is judged now (take it off the list).
const declaredNotJudged = "testdata/declared_not_judged.txt"

// TestChecksAssertWhatTheyDeclare: every rule a check declares is one it
// can fail under. A declared rule passes when the proof ledger saw the
// check fail under it (internal/catalogue/proof.json "asserted": a fault,
// a variant or the server that honours nothing made it fail there), or
// when the rule's id is written in an assertion the check's code can reach
// (a string literal in its Run function or in the module's functions,
// methods and tables it refers to, followed through the code's own
// names; the types are not resolved, so the reach is wide, never
// narrow). A rule that neither shows is listed on a check that never
// judges it: the run would report it verified without ever judging it.
//
// The other way round, a failure under a rule the check does not declare,
// is held by the fault proof (TestEveryFaultIsCaught: every failure under
// every fault, variant and the server that honours nothing is under a
// rule its check declares).
func TestChecksAssertWhatTheyDeclare(t *testing.T) {
	proof := catalogue.MustLoadProof()
	src := loadSource(t)
	var bad []string
	shown, written := 0, 0
	for _, c := range check.All() {
		fn, f := src.body(c.File, c.Line)
		named := map[string]bool{}
		if fn != nil {
			src.reach(fn, f, map[ast.Node]bool{}, named)
		}
		for _, r := range c.Rules {
			switch {
			case slices.Contains(proof.Asserted[c.ID], r):
				shown++
			case named[r]:
				written++
			default:
				bad = append(bad, c.ID+" "+r)
			}
		}
	}
	sort.Strings(bad)
	t.Logf("declared rules: %d shown failing by the proof, %d only written in an assertion the check reaches, %d neither", shown, written, len(bad))
	if *updateDeclared {
		body := "# Rules a check declares that no failure was seen under and no assertion its code reaches names:\n" +
			"# each is work to do (judge the rule in the check, or take it off its list). Written by\n" +
			"# go test ./cmd/touchstone/faultproof -run TestChecksAssertWhatTheyDeclare -update-declared\n" + strings.Join(bad, "\n") + "\n"
		if err := os.WriteFile(declaredNotJudged, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	known := map[string]bool{}
	raw, _ := os.ReadFile(declaredNotJudged)
	for _, line := range strings.Split(string(raw), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			known[line] = true
		}
	}
	for _, b := range bad {
		if !known[b] {
			id, rule, _ := strings.Cut(b, " ")
			t.Errorf("check %s declares %s, but no failure under it was seen and no assertion its code reaches names it: judge the rule or take it off the check's list", id, rule)
		}
		delete(known, b)
	}
	for _, k := range slices.Sorted(maps.Keys(known)) {
		t.Errorf("%s: %q is judged now (or no longer declared): take it off the list", declaredNotJudged, k)
	}
}

// ruleIDRe finds rule ids inside a string literal.
var ruleIDRe = regexp.MustCompile(`\b[A-Z][A-Z0-9]*-[0-9]{3}\b`)

// modulePrefix is the import path prefix of the module's own packages.
const modulePrefix = "github.com/touchstone-harness/touchstone/"

// source is the module's non-test Go code of the checks and the harness,
// parsed and indexed by package directory: what a check's Run can reach.
type source struct {
	fset *token.FileSet
	// decls: package dir -> name -> its package-level declarations
	// (functions, methods by their bare name, vars and consts).
	decls   map[string]map[string][]ast.Node
	files   map[string]*ast.File            // repository-relative path -> file
	imports map[*ast.File]map[string]string // file -> import name -> package dir
	dirOf   map[*ast.File]string
}

func loadSource(t *testing.T) *source {
	t.Helper()
	_, self, _, _ := runtime.Caller(0) // <root>/cmd/touchstone/faultproof/declared_test.go
	root := filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(self))))
	s := &source{fset: token.NewFileSet(), decls: map[string]map[string][]ast.Node{},
		files: map[string]*ast.File{}, imports: map[*ast.File]map[string]string{}, dirOf: map[*ast.File]string{}}
	for _, top := range []string{"suites", "property", "load", "internal"} {
		err := filepath.WalkDir(filepath.Join(root, top), func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "testdata" {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			f, err := parser.ParseFile(s.fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			rel = filepath.ToSlash(rel)
			dir := filepath.ToSlash(filepath.Dir(rel))
			s.files[rel], s.dirOf[f] = f, dir
			imps := map[string]string{}
			for _, im := range f.Imports {
				p, _ := strconv.Unquote(im.Path.Value)
				if !strings.HasPrefix(p, modulePrefix) {
					continue
				}
				name := filepath.Base(p)
				if im.Name != nil {
					name = im.Name.Name
				}
				imps[name] = strings.TrimPrefix(p, modulePrefix)
			}
			s.imports[f] = imps
			if s.decls[dir] == nil {
				s.decls[dir] = map[string][]ast.Node{}
			}
			for _, d := range f.Decls {
				switch d := d.(type) {
				case *ast.FuncDecl:
					s.decls[dir][d.Name.Name] = append(s.decls[dir][d.Name.Name], d)
				case *ast.GenDecl:
					for _, sp := range d.Specs {
						if vs, ok := sp.(*ast.ValueSpec); ok {
							for _, n := range vs.Names {
								s.decls[dir][n.Name] = append(s.decls[dir][n.Name], vs)
							}
						}
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// body finds the function (a declaration or a literal) whose func keyword
// is at file:line.
func (s *source) body(file string, line int) (ast.Node, *ast.File) {
	f := s.files[file]
	if f == nil {
		return nil, nil
	}
	var found ast.Node
	ast.Inspect(f, func(n ast.Node) bool {
		if found != nil {
			return false
		}
		switch n.(type) {
		case *ast.FuncDecl, *ast.FuncLit:
			if s.fset.Position(n.Pos()).Line == line {
				found = n
			}
		}
		return true
	})
	return found, f
}

// reach collects the rule ids written in string literals of n and of every
// package-level function, method or variable of the module it refers to,
// transitively.
func (s *source) reach(n ast.Node, f *ast.File, seen map[ast.Node]bool, out map[string]bool) {
	if n == nil || f == nil || seen[n] {
		return
	}
	seen[n] = true
	dir := s.dirOf[f]
	follow := func(ds []ast.Node, methodsOnly bool) {
		for _, d := range ds {
			if fd, ok := d.(*ast.FuncDecl); methodsOnly && (!ok || fd.Recv == nil) {
				continue
			}
			s.reach(d, s.fileOf(d), seen, out)
		}
	}
	ast.Inspect(n, func(x ast.Node) bool {
		switch x := x.(type) {
		case *ast.BasicLit:
			if x.Kind == token.STRING {
				for _, id := range ruleIDRe.FindAllString(x.Value, -1) {
					out[id] = true
				}
			}
		case *ast.Ident:
			follow(s.decls[dir][x.Name], false)
		case *ast.SelectorExpr:
			if pkg, ok := x.X.(*ast.Ident); ok {
				if pdir, ok := s.imports[f][pkg.Name]; ok {
					follow(s.decls[pdir][x.Sel.Name], false)
					return false
				}
			}
			// A method of a value: every method of that name in this
			// package and in the module's packages this file imports.
			follow(s.decls[dir][x.Sel.Name], false)
			for _, pdir := range s.imports[f] {
				follow(s.decls[pdir][x.Sel.Name], true)
			}
		}
		return true
	})
}

func (s *source) fileOf(n ast.Node) *ast.File {
	for _, f := range s.files {
		if f.Pos() <= n.Pos() && n.End() <= f.End() {
			return f
		}
	}
	return nil
}
