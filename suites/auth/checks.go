package auth

import (
	"slices"

	"github.com/touchstone-harness/touchstone/internal/check"
)

// Checks returns the auth area's checks, which check authentication, scopes,
// key bindings, /me and CORS (document 2, Authentication). Each file declares
// its own in an unexported function:
//
//   - bindings.go: bindingsChecks
//   - budget.go: budgetChecks
//   - childkey.go: childkeyChecks
//   - cors.go: corsChecks
//   - environment.go: environmentChecks
//   - generic.go: genericChecks
//   - headerforms.go: headerformsChecks
//   - ipallowlist.go: ipallowlistChecks
//   - keyless.go: keylessChecks
//   - keystates.go: keystatesChecks
//   - me.go: meChecks
//   - rotation.go: rotationChecks
//   - scopes.go: scopesChecks
//   - scopes_routes.go: scopesRoutesChecks
//   - shapemistakes.go: shapemistakesChecks
//
// The runner (cmd/touchstone/allchecks) registers them; a check's Ginkgo spec
// carries the location of its Run function.
func Checks() []check.Check {
	return slices.Concat(
		bindingsChecks(),
		budgetChecks(),
		childkeyChecks(),
		corsChecks(),
		environmentChecks(),
		genericChecks(),
		headerformsChecks(),
		ipallowlistChecks(),
		keylessChecks(),
		keystatesChecks(),
		meChecks(),
		rotationChecks(),
		scopesChecks(),
		scopesRoutesChecks(),
		shapemistakesChecks(),
	)
}
