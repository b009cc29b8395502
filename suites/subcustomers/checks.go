package subcustomers

import (
	"slices"

	"github.com/touchstone-harness/touchstone/internal/check"
)

// Checks returns the subcustomers area's checks, which check end customers:
// create, list, read, onboarding, documents, balance and gating (document 1,
// Sub-customers). Each file declares its own in an unexported function:
//
//   - balance.go: balanceChecks
//   - documents.go: documentsChecks
//   - endcustomers.go: endcustomersChecks
//   - gating.go: gatingChecks
//   - onboarding.go: onboardingChecks
//   - reach.go: reachChecks
//
// The runner (cmd/touchstone/allchecks) registers them; a check's Ginkgo spec
// carries the location of its Run function.
func Checks() []check.Check {
	return check.InGroup("end customers",
		slices.Concat(
			balanceChecks(),
			documentsChecks(),
			endcustomersChecks(),
			gatingChecks(),
			onboardingChecks(),
			reachChecks(),
		),
	)
}
