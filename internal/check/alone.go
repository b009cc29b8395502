package check

import "strings"

// aloneTable declares the checks that must have the target to themselves
// (label Alone): measured by TestAloneDeclarations, which runs every check
// against the embedded sandbox and fails for one that moved the virtual
// clock, changed a global control setting or changed a shared fixture
// through the control API without the label. Register adds the label to
// the checks listed here; a new check may carry it in its Labels instead.
// aloneAreas are areas whose every check must be alone: a webhook check
// counts what reaches its endpoint, and a tenant-wide endpoint receives
// every event any other check causes (a new customer's customer.created).
// The rate-limit checks and the load probes spend budgets on purpose (on
// either clock).
var aloneAreas = map[string]bool{"webhooks": true, "ratelimit": true, "load": true}

// aloneAnywhere are the checks of aloneTable that need the target to
// themselves whatever it is (they read what any other check's writes
// change); the others are alone for what they do through the control API
// (move the clock, change a global setting or a shared fixture), so on a
// target without it they run beside the rest.
var aloneAnywhere = map[string]bool{
	// Compare totals, pages and order of the tenant-wide customer list:
	// every check that creates a customer would move them (on a target
	// other callers write to, they move too; the spec allows it: "total
	// can move between pages").
	"pagination/customers-defaults":           true,
	"pagination/customers-id-tiebreak":        true,
	"pagination/customers-last-page":          true,
	"pagination/customers-last-page-empty":    true,
	"pagination/customers-limit-clamped":      true,
	"pagination/customers-newest-first":       true,
	"pagination/customers-non-integer-params": true,
	"pagination/customers-page-clamped":       true,
	"pagination/customers-past-end":           true,
	"pagination/customers-total-all-pages":    true,
	"property/pagination":                     true,
	// Count a key subject's enabled webhook endpoints (at most 10): any
	// check registering or disabling one with the same key would move
	// the count.
	"webhooks/enabled-limit":         true,
	"property/webhook-subscriptions": true,
}

var aloneTable = map[string]bool{
	// Measured:
	"auth/failed-auth-budget":                               true,
	"auth/rotation-past-overlap-old-refused":                true,
	"beneficiaries/provider-refusal-codes":                  true,
	"checkorder/key-before-rate-limit":                      true,
	"checkorder/rate-limit-before-idempotency-key":          true,
	"checkorder/shape-429-problem-json":                     true,
	"cryptowithdrawals/paused":                              true,
	"customers/create-gated-programme-off":                  true,
	"customers/lifecycle-provider-unreachable-stale-read":   true,
	"exchange/platform-pause":                               true,
	"exchange/price-follows-live-rate":                      true,
	"exchange/price-quote-unavailable":                      true,
	"headers/correlation-on-429":                            true,
	"idempotency/500-is-not-replayed":                       true,
	"idempotency/concurrent-execute-once":                   true,
	"idempotency/expires-after-24h":                         true,
	"idempotency/in-progress":                               true,
	"idempotency/in-progress-different-body":                true,
	"load/access-requests":                                  true,
	"load/failed-auth":                                      true,
	"load/key-separation":                                   true,
	"load/method-separation":                                true,
	"load/route-budget":                                     true,
	"load/template-sharing":                                 true,
	"load/tenant-ceiling":                                   true,
	"load/window-boundary":                                  true,
	"onboarding/manual-gated-by-programme":                  true,
	"otherpaths/v2-access-requests-tighter-budget":          true,
	"pagination/conversion-requests-id-tiebreak":            true,
	"pagination/crypto-withdrawals-id-tiebreak":             true,
	"payoutbatches/retry-after-24h":                         true,
	"property/beneficiary-approval":                         true,
	"property/customer-lifecycle":                           true,
	"property/internal-transfers":                           true,
	"property/payout-batches":                               true,
	"property/rate-windows":                                 true,
	"property/webhook-delivery-schedule":                    true,
	"ratelimit/early-refusals-consume-nothing":              true,
	"ratelimit/keys-separate":                               true,
	"ratelimit/later-refusals-consume-budget":               true,
	"ratelimit/methods-separate":                            true,
	"ratelimit/no-ratelimit-headers":                        true,
	"ratelimit/payout-batch-create-budget":                  true,
	"ratelimit/retry-after-seconds-left":                    true,
	"ratelimit/route-budget-600":                            true,
	"ratelimit/route-refusals-not-counted-by-tenant":        true,
	"ratelimit/template-shares-counter":                     true,
	"ratelimit/tenant-aggregate-6000":                       true,
	"ratelimit/window-boundary-double-budget":               true,
	"ratelimit/window-clock-minute":                         true,
	"transfers/amount-exact-above-2-53":                     true,
	"transfers/capability":                                  true,
	"transfers/limit-decisions":                             true,
	"transfers/party-not-active":                            true,
	"transfers/recovery-404-in-flight":                      true,
	"webhooks/connection-failure-retried":                   true,
	"webhooks/destination-rechecked-at-delivery":            true,
	"webhooks/disabled-gets-no-new-events":                  true,
	"webhooks/event-conversion-completed-live-rate":         true,
	"webhooks/event-fiat-withdrawal-completed-and-returned": true,
	"webhooks/gone-dead-letters":                            true,
	"webhooks/retry-schedule-503":                           true,
	"webhooks/retryable-and-final-statuses":                 true,
	"webhooks/rotation-switches-queued-retries":             true,
	"webhooks/support-replay":                               true,
	"withdrawals/child-own-funds-plus-fee":                  true,
	"withdrawals/failed-and-review-outcomes":                true,
	"withdrawals/money-pause":                               true,
	"withdrawals/parent-controls":                           true,
	"withdrawals/source-account-refusals":                   true,
	"withdrawals/transparency-when-policy-demands":          true,
}

// aloneOn tells whether c must have target to itself: a check labelled
// Alone, unless it is alone only for what it does through the control API
// and target has none.
func (c *Check) aloneOn(target *Target) bool {
	if !c.HasLabel(Alone) {
		return false
	}
	if target != nil && target.Control == nil && aloneTable[c.ID] && !aloneAreas[c.Area()] {
		return false
	}
	return true
}

// probesBudget tells whether an alone check spends a budget on purpose and
// judges the 429s: it owns the traffic plan while it runs (its requests
// are counted, never held, and its 429s are its own). Those are the checks
// of the rate-limit rules (RATE-*) and the few that need a 429 to judge
// another rule (the check order around it, its shape, its headers). Other
// alone checks (a property, a webhook check) are paced like any other.
func (c *Check) probesBudget() bool {
	if !c.HasLabel(Alone) {
		return false
	}
	for _, r := range c.Rules {
		if strings.HasPrefix(r, "RATE-") {
			return true
		}
	}
	return budgetProbes[c.ID]
}

var budgetProbes = map[string]bool{
	"checkorder/key-before-rate-limit":             true,
	"checkorder/rate-limit-before-idempotency-key": true,
	"checkorder/shape-429-problem-json":            true,
	"headers/correlation-on-429":                   true,
}
