package schemas

import (
	"slices"

	"github.com/touchstone-harness/touchstone/internal/check"
)

// Checks returns the schemas area's checks, which check the served OpenAPI
// documents (document 2, Versioning 3). Each file declares its own in an
// unexported function:
//
//   - documents.go: documentsChecks
//
// The runner (cmd/touchstone/allchecks) registers them; a check's Ginkgo spec
// carries the location of its Run function.
func Checks() []check.Check {
	return slices.Concat(
		documentsChecks(),
	)
}
