package check_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestChecksNeverImportTheSandbox: the checks and everything they use reach
// targets only over HTTP. None of them may depend on fixtures/.
func TestChecksNeverImportTheSandbox(t *testing.T) {
	const module = "github.com/touchstone-harness/touchstone"
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}",
		module+"/internal/check", module+"/internal/client", module+"/suites/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, module+"/fixtures") || dep == module+"/internal/launch" {
			t.Errorf("a check package depends on %s", dep)
		}
	}
}
