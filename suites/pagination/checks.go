package pagination

import (
	"slices"

	"github.com/touchstone-harness/touchstone/internal/check"
)

// Checks returns the pagination area's checks, which check every paged list
// and the unpaged lists (document 1, Pagination). Each file declares its own
// in an unexported function:
//
//   - paged.go: pagedChecks
//   - unpaged.go: unpagedChecks
//
// The runner (cmd/touchstone/allchecks) registers them; a check's Ginkgo spec
// carries the location of its Run function.
func Checks() []check.Check {
	return slices.Concat(
		pagedChecks(),
		unpagedChecks(),
	)
}
