package onboarding

import (
	"slices"

	"github.com/touchstone-harness/touchstone/internal/check"
)

// Checks returns the onboarding area's checks, which check verification
// sessions, onboarding status, requirements and manual submission (document 1,
// Onboarding). Each file declares its own in an unexported function:
//
//   - dedicated.go: dedicatedChecks
//   - manual.go: manualChecks
//   - mapping.go: mappingChecks
//   - requirements.go: requirementsChecks
//   - session.go: sessionChecks
//   - status.go: statusChecks
//
// The runner (cmd/touchstone/allchecks) registers them; a check's Ginkgo spec
// carries the location of its Run function.
func Checks() []check.Check {
	return slices.Concat(
		dedicatedChecks(),
		manualChecks(),
		mappingChecks(),
		requirementsChecks(),
		sessionChecks(),
		statusChecks(),
	)
}
