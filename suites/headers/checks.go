package headers

import (
	"slices"

	"github.com/touchstone-harness/touchstone/internal/check"
)

// Checks returns the headers area's checks, which check X-Correlation-Id,
// X-Tenant-Id and the v1 response envelope (document 2, Authentication 6;
// document 1, Response envelope). Each file declares its own in an unexported
// function:
//
//   - amounts.go: amountsChecks
//   - casing.go: casingChecks
//   - correlation.go: correlationChecks
//   - envelope.go: envelopeChecks
//   - tenantheader.go: tenantheaderChecks
//
// The runner (cmd/touchstone/allchecks) registers them; a check's Ginkgo spec
// carries the location of its Run function.
func Checks() []check.Check {
	return slices.Concat(
		amountsChecks(),
		casingChecks(),
		correlationChecks(),
		envelopeChecks(),
		tenantheaderChecks(),
	)
}
