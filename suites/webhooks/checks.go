package webhooks

import (
	"slices"

	"github.com/touchstone-harness/touchstone/internal/check"
)

// Checks returns the webhooks area's checks, which check webhook management
// (document 2, Endpoints: webhook management) and webhook deliveries (document
// 2, Events). Each file declares its own in an unexported function:
//
//   - attempts.go: attemptsChecks
//   - delivery.go: deliveryChecks
//   - events_beneficiary.go: eventsBeneficiaryChecks
//   - events_beneficiary_outcomes.go: eventsBeneficiaryOutcomesChecks
//   - events_conversions.go: eventsConversionsChecks
//   - events_crypto.go: eventsCryptoChecks
//   - events_fiat.go: eventsFiatChecks
//   - events_onboarding.go: eventsOnboardingChecks
//   - events_payoutbatches.go: eventsPayoutbatchesChecks
//   - events_version.go: eventsVersionChecks
//   - events_withdrawals.go: eventsWithdrawalsChecks
//   - leftovers.go: leftoversChecks
//   - manage.go: manageChecks
//   - policy.go: policyChecks
//   - registrable.go: registrableChecks
//   - registration.go: registrationChecks
//   - retries.go: retriesChecks
//   - rotation.go: rotationChecks
//   - routing.go: routingChecks
//   - routing_edges.go: routingEdgesChecks
//   - spec.go: specChecks
//   - statuses.go: statusesChecks
//
// The runner (cmd/touchstone/allchecks) registers them; a check's Ginkgo spec
// carries the location of its Run function.
func Checks() []check.Check {
	return check.AloneEach(
		slices.Concat(
			attemptsChecks(),
			deliveryChecks(),
			eventsBeneficiaryChecks(),
			eventsBeneficiaryOutcomesChecks(),
			eventsConversionsChecks(),
			eventsCryptoChecks(),
			eventsFiatChecks(),
			eventsOnboardingChecks(),
			eventsPayoutbatchesChecks(),
			eventsVersionChecks(),
			eventsWithdrawalsChecks(),
			leftoversChecks(),
			manageChecks(),
			policyChecks(),
			registrableChecks(),
			registrationChecks(),
			retriesChecks(),
			rotationChecks(),
			routingChecks(),
			routingEdgesChecks(),
			specChecks(),
			statusesChecks(),
		),
	)
}
