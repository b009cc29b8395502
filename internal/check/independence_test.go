package check_test

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/touchstone-harness/touchstone"

// deps lists the packages (non-test imports, transitively) of pattern.
func deps(t *testing.T, patterns ...string) map[string][]string {
	t.Helper()
	args := append([]string{"list", "-deps=false", "-f", `{{.ImportPath}}:{{join .Deps " "}}`}, patterns...)
	out, err := exec.Command("go", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	m := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, ds, _ := strings.Cut(line, ":")
		m[pkg] = strings.Fields(ds)
	}
	return m
}

// TestBoundaries reads the module's imports and holds its boundaries:
//   - checks (suites, properties, load probes) and the shared harness code
//     in internal/ reach targets only over HTTP: none depends on the
//     sandbox (fixtures/) or on the runner (cmd/), where the one meeting
//     of harness and sandbox is (cmd/touchstone/launch, faultproof);
//   - the sandbox depends on no check and no harness code (each rule is
//     written twice, once to serve and once to check), except the target
//     profile, the contract it writes for the harness.
func TestBoundaries(t *testing.T) {
	for pkg, ds := range deps(t, module+"/internal/...", module+"/suites/...", module+"/property/...", module+"/load/...") {
		for _, d := range ds {
			if strings.HasPrefix(d, module+"/fixtures") || strings.HasPrefix(d, module+"/cmd") {
				t.Errorf("%s depends on %s", pkg, d)
			}
		}
	}
	for pkg, ds := range deps(t, module+"/fixtures/...") {
		for _, d := range ds {
			for _, side := range []string{"/internal/", "/suites", "/property", "/load", "/cmd"} {
				if strings.HasPrefix(d, module+side) && d != module+"/internal/profile" {
					t.Errorf("the sandbox package %s depends on %s", pkg, d)
				}
			}
		}
	}
}
