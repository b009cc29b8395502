package main

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// checkMentions reads the checks' sources (suites, property, load) and
// returns, per check id given as a literal, every string literal of its
// check.Check literal and of the same-package functions it calls by name
// (one level): the profile roles it may use ("child", "customers.draft").
func checkMentions(t *testing.T) map[string]map[string]bool {
	t.Helper()
	out := map[string]map[string]bool{}
	for _, root := range []string{"../../suites", "../../property", "../../load"} {
		pkgs := map[string][]*ast.File{}
		fset := token.NewFileSet()
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				return err
			}
			pkgs[filepath.Dir(path)] = append(pkgs[filepath.Dir(path)], f)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, files := range pkgs {
			funcs := map[string]*ast.FuncDecl{}
			for _, f := range files {
				for _, d := range f.Decls {
					if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil {
						funcs[fd.Name.Name] = fd
					}
				}
			}
			literals := func(n ast.Node, into map[string]bool, follow bool) {
				var walk func(ast.Node, bool)
				walk = func(n ast.Node, follow bool) {
					ast.Inspect(n, func(n ast.Node) bool {
						switch x := n.(type) {
						case *ast.BasicLit:
							// Needs entries ("keys.child", "webhook_url").
							if s, err := strconv.Unquote(x.Value); err == nil && x.Kind == token.STRING && needLiteral.MatchString(s) {
								into[s] = true
							}
						case *ast.SelectorExpr:
							switch x.Sel.Name {
							case "WebhookURL":
								into["webhook_url"] = true
							case "CORSAllowedOrigin":
								into["cors_allowed_origin"] = true
							}
						case *ast.CallExpr:
							// t.Client("x"), Profile().Key("x"), t.Customer("x") ...
							if sel, ok := x.Fun.(*ast.SelectorExpr); ok && len(x.Args) > 0 {
								if kind := accessorKind[sel.Sel.Name]; kind != "" {
									if lit, ok := x.Args[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
										name, _ := strconv.Unquote(lit.Value)
										into[kind+"."+name] = true
									}
								}
							}
							if id, ok := x.Fun.(*ast.Ident); ok && follow {
								if fd := funcs[id.Name]; fd != nil {
									walk(fd, false)
								}
							}
						case *ast.IndexExpr:
							// Profile().CustomerMap()["x"] ...
							if call, ok := x.X.(*ast.CallExpr); ok {
								if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
									if kind := mapKind[sel.Sel.Name]; kind != "" {
										if lit, ok := x.Index.(*ast.BasicLit); ok && lit.Kind == token.STRING {
											name, _ := strconv.Unquote(lit.Value)
											into[kind+"."+name] = true
										}
									}
								}
							}
						}
						return true
					})
				}
				walk(n, follow)
			}
			// A check is a check.Check literal, or an element of a
			// []check.Check literal with its type left out.
			isCheck := func(e ast.Expr) bool {
				sel, ok := e.(*ast.SelectorExpr)
				if !ok || sel.Sel.Name != "Check" {
					return false
				}
				x, ok := sel.X.(*ast.Ident)
				return ok && x.Name == "check"
			}
			record := func(cl *ast.CompositeLit) {
				for _, e := range cl.Elts {
					kv, ok := e.(*ast.KeyValueExpr)
					if !ok {
						continue
					}
					if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "ID" {
						if lit, ok := kv.Value.(*ast.BasicLit); ok {
							id, _ := strconv.Unquote(lit.Value)
							m := map[string]bool{}
							literals(cl, m, true)
							out[id] = m
						}
					}
				}
			}
			for _, f := range files {
				ast.Inspect(f, func(n ast.Node) bool {
					cl, ok := n.(*ast.CompositeLit)
					if !ok {
						return true
					}
					if isCheck(cl.Type) {
						record(cl)
					}
					if at, ok := cl.Type.(*ast.ArrayType); ok && isCheck(at.Elt) {
						for _, e := range cl.Elts {
							if el, ok := e.(*ast.CompositeLit); ok && el.Type == nil {
								record(el)
							}
						}
					}
					return true
				})
			}
		}
	}
	if len(out) < 300 {
		t.Fatalf("found only %d checks in the sources", len(out))
	}
	return out
}

var (
	needLiteral  = regexp.MustCompile(`^((keys|customers|beneficiaries|crypto)\.[a-z_0-9]+|webhook_url|cors_allowed_origin)$`)
	accessorKind = map[string]string{"Client": "keys", "Key": "keys", "Customer": "customers", "Beneficiary": "beneficiaries", "Crypto": "crypto"}
	mapKind      = map[string]string{"KeyMap": "keys", "CustomerMap": "customers", "BeneficiaryMap": "beneficiaries", "CryptoMap": "crypto"}
)

// optionalUses are checks that use a profile role when it is there but
// judge every rule they name without it (the role only adds a case).
var optionalUses = map[string]string{
	"checkorder/binding-before-operation customers.other_tenant": "another tenant's customer is an extra target; ORDER-016 is judged with a nonexistent customer",
	"checkorder/binding-before-customer-lookup customers.parent": "a random parent id stands in: an unknown child of it is as unknown",
	"auth/child-key-bound-to-child customers.active_personal":    "an extra unreachable customer; the parent's 404 judges the rules",
	"headers/envelope-ids-and-timestamps keys.subject":           "GET /me of a subject key adds ids to those read",
	"headers/envelope-ids-and-timestamps customers.parent":       "the parent's end customers add records to those read; ENV-006 is judged on every timestamp read",
	"onboarding/sub-customer-dedicated-route keys.subject":       "a second key sending the same refused requests",
	"property/payout-batches customers.active_personal":          "used only without the control API (with it the model makes its own customer)",
	"property/payout-batches beneficiaries.gbp":                  "used only without the control API (with it the model makes its own payee)",
	"property/beneficiary-approval customers.active_personal":    "used only without the control API (with it the model makes its own customer)",
	"headers/no-deprecation-headers cors_allowed_origin":         "a sample of answers: the role adds answers, the rule is judged on every answer there is",
	"headers/no-deprecation-headers customers.child":             "a sample of answers: the role adds answers, the rule is judged on every answer there is",
	"headers/no-deprecation-headers customers.parent":            "a sample of answers: the role adds answers, the rule is judged on every answer there is",
	"headers/no-deprecation-headers keys.read_only":              "a sample of answers: the role adds answers, the rule is judged on every answer there is",
	"headers/no-deprecation-headers keys.subject":                "a sample of answers: the role adds answers, the rule is judged on every answer there is",
	"headers/v1-keys-snake-case cors_allowed_origin":             "a sample of answers: the role adds answers, the rule is judged on every answer there is",
	"headers/v1-keys-snake-case customers.child":                 "a sample of answers: the role adds answers, the rule is judged on every answer there is",
	"headers/v1-keys-snake-case customers.parent":                "a sample of answers: the role adds answers, the rule is judged on every answer there is",
	"headers/v1-keys-snake-case keys.read_only":                  "a sample of answers: the role adds answers, the rule is judged on every answer there is",
	"headers/v1-keys-snake-case keys.subject":                    "a sample of answers: the role adds answers, the rule is judged on every answer there is",
}

// TestReducedProfilesPassNothingTheyNeeded removes each optional profile
// role in turn (every key but keys.tenant, every customer, beneficiary and
// crypto fixture, webhook_url, cors_allowed_origin) and runs the checks
// that name it: none may pass with a rule it could not judge. A check
// needing the role is skipped with a reason naming it (the key to add); a
// check that only uses it for an extra case is listed in optionalUses.
func TestReducedProfilesPassNothingTheyNeeded(t *testing.T) {
	mentions := checkMentions(t)
	p, _, _ := serveSandbox(t, "--clock", "virtual", "--seed", "9")
	raw, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	type role struct{ kind, name string }
	var roles []role
	for kind, m := range map[string]map[string]string{"keys": p.KeyMap(), "customers": p.CustomerMap(), "beneficiaries": p.BeneficiaryMap(), "crypto": p.CryptoMap()} {
		for name, v := range m {
			if v != "" && !(kind == "keys" && name == "tenant") {
				roles = append(roles, role{kind, name})
			}
		}
	}
	for _, top := range []string{"webhook_url", "cors_allowed_origin"} {
		roles = append(roles, role{top, ""})
	}
	sort.Slice(roles, func(i, j int) bool { return roles[i].kind+roles[i].name < roles[j].kind+roles[j].name })
	for _, r := range roles {
		need := r.kind
		if r.name != "" {
			need += "." + r.name
		}
		t.Run(need, func(t *testing.T) {
			var doc map[string]any
			if err := json.Unmarshal(raw, &doc); err != nil {
				t.Fatal(err)
			}
			if r.name == "" {
				delete(doc, r.kind)
			} else {
				delete(doc[r.kind].(map[string]any), r.name)
			}
			var ids []string
			for id, lits := range mentions {
				if lits[need] {
					ids = append(ids, regexp.QuoteMeta(id))
				}
			}
			if len(ids) == 0 {
				t.Skipf("no check names %s", need)
			}
			sort.Strings(ids)
			results, _ := runResults(t, "--target", writeProfile(t, doc), "--focus", "^("+strings.Join(ids, "|")+")$")
			for _, res := range results {
				lits := mentions[res.ID]
				switch {
				case res.Status == "passed" && len(res.NotJudged) == 0 && optionalUses[res.ID+" "+need] == "":
					t.Errorf("%s passed without %s (rules %v): a check that needs it must skip naming it; one that judges every rule without it belongs in optionalUses", res.ID, need, res.Rules)
				case res.Status == "skipped" && lits[need] && !strings.Contains(res.SkipReason, need) && !strings.Contains(res.SkipReason, "control"):
					t.Errorf("%s skipped without naming %s, the key to add: %s", res.ID, need, res.SkipReason)
				}
			}
		})
	}
}
