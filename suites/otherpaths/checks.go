package otherpaths

import (
	"slices"

	"github.com/touchstone-harness/touchstone/internal/check"
)

// Checks returns the otherpaths area's checks, which check /test, the public
// config, the verification callback and the v2 customer list (document 1,
// Other paths; document 2, Endpoints). Each file declares its own in an
// unexported function:
//
//   - paths.go: pathsChecks
//   - v2customers.go: v2customersChecks
//   - v2writes.go: v2writesChecks
//   - v2_patch_delete_keys.go: v2PatchDeleteKeysChecks
//   - reconciliation.go: reconciliationChecks
//
// The runner (cmd/touchstone/allchecks) registers them; a check's Ginkgo spec
// carries the location of its Run function.
func Checks() []check.Check {
	return slices.Concat(
		pathsChecks(),
		v2customersChecks(),
		v2writesChecks(),
		v2PatchDeleteKeysChecks(),
		reconciliationChecks(),
	)
}
