// Package allchecks registers every check the runner runs: it collects
// each area's checks (suites/<area>.Checks), the properties'
// (property.Checks) and the load probes' (load.Checks) and registers them
// when imported. It is the one place that names them all: the runner
// (cmd/touchstone) imports it, and so does every test that needs every
// check registered (the fault-mode proof, the live-key guard, the
// catalogue's drift test, the properties', the load probes' and the
// Ginkgo suite's tests). Nothing else imports an area; a boundary test
// (internal/check/independence_test.go) holds that.
package allchecks

import (
	"slices"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/load"
	"github.com/touchstone-harness/touchstone/property"
	"github.com/touchstone-harness/touchstone/suites/accounts"
	"github.com/touchstone-harness/touchstone/suites/auth"
	"github.com/touchstone-harness/touchstone/suites/beneficiaries"
	"github.com/touchstone-harness/touchstone/suites/checkorder"
	"github.com/touchstone-harness/touchstone/suites/crypto"
	"github.com/touchstone-harness/touchstone/suites/customers"
	"github.com/touchstone-harness/touchstone/suites/exchange"
	"github.com/touchstone-harness/touchstone/suites/fees"
	"github.com/touchstone-harness/touchstone/suites/headers"
	"github.com/touchstone-harness/touchstone/suites/idempotency"
	"github.com/touchstone-harness/touchstone/suites/onboarding"
	"github.com/touchstone-harness/touchstone/suites/otherpaths"
	"github.com/touchstone-harness/touchstone/suites/pagination"
	"github.com/touchstone-harness/touchstone/suites/payoutbatches"
	"github.com/touchstone-harness/touchstone/suites/ratelimit"
	"github.com/touchstone-harness/touchstone/suites/schemas"
	"github.com/touchstone-harness/touchstone/suites/subcustomers"
	"github.com/touchstone-harness/touchstone/suites/transfers"
	"github.com/touchstone-harness/touchstone/suites/webhooks"
	"github.com/touchstone-harness/touchstone/suites/withdrawals"
)

func init() { check.Register(Checks()...) }

// Checks returns every check: each area's, then the properties' and the
// load probes' (which are checks too).
func Checks() []check.Check {
	return slices.Concat(
		accounts.Checks(),
		auth.Checks(),
		beneficiaries.Checks(),
		checkorder.Checks(),
		crypto.Checks(),
		customers.Checks(),
		exchange.Checks(),
		fees.Checks(),
		headers.Checks(),
		idempotency.Checks(),
		onboarding.Checks(),
		otherpaths.Checks(),
		pagination.Checks(),
		payoutbatches.Checks(),
		ratelimit.Checks(),
		schemas.Checks(),
		subcustomers.Checks(),
		transfers.Checks(),
		webhooks.Checks(),
		withdrawals.Checks(),
		property.Checks(),
		load.Checks(),
	)
}
