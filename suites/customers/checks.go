package customers

import (
	"slices"

	"github.com/touchstone-harness/touchstone/internal/check"
)

// Checks returns the customers area's checks, which check the customer routes
// and the customer lifecycle (document 1, Identity and customers; States /
// Customer lifecycle). Each file declares its own in an unexported function:
//
//   - create.go: createChecks
//   - lifecycle.go: lifecycleChecks
//   - list.go: listChecks
//   - offline.go: offlineChecks
//   - patch.go: patchChecks
//   - read.go: readChecks
//
// The runner (cmd/touchstone/allchecks) registers them; a check's Ginkgo spec
// carries the location of its Run function.
func Checks() []check.Check {
	return slices.Concat(
		createChecks(),
		lifecycleChecks(),
		listChecks(),
		offlineChecks(),
		patchChecks(),
		readChecks(),
	)
}
