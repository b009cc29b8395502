package checkorder

import (
	"slices"

	"github.com/touchstone-harness/touchstone/internal/check"
)

// Checks returns the checkorder area's checks, which check the documented
// error check order (document 2, Errors / Check order) and the three error
// body shapes and content types. Each file declares its own in an unexported
// function:
//
//   - binding.go: bindingChecks
//   - money.go: moneyChecks
//   - notfound.go: notfoundChecks
//   - order.go: orderChecks
//   - problemcodes.go: problemcodesChecks
//   - shapes.go: shapesChecks
//
// The runner (cmd/touchstone/allchecks) registers them; a check's Ginkgo spec
// carries the location of its Run function.
func Checks() []check.Check {
	return slices.Concat(
		bindingChecks(),
		moneyChecks(),
		notfoundChecks(),
		orderChecks(),
		problemcodesChecks(),
		shapesChecks(),
	)
}
