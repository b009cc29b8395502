// Package allchecks registers every check the runner runs: it imports each
// area package (suites/<area>), the properties (package property) and the
// load probes (package load), each of which registers its checks when
// imported. It is the one place that names them all: the runner
// (cmd/touchstone) imports it, and so does every test that needs every
// check registered (the fault-mode proof, the live-key guard, the
// catalogue's drift test, the properties' and the Ginkgo suite's tests).
// Nothing else imports an area; a boundary test
// (internal/check/independence_test.go) holds that.
package allchecks

import (
	_ "github.com/touchstone-harness/touchstone/suites/accounts"
	_ "github.com/touchstone-harness/touchstone/suites/auth"
	_ "github.com/touchstone-harness/touchstone/suites/beneficiaries"
	_ "github.com/touchstone-harness/touchstone/suites/checkorder"
	_ "github.com/touchstone-harness/touchstone/suites/crypto"
	_ "github.com/touchstone-harness/touchstone/suites/customers"
	_ "github.com/touchstone-harness/touchstone/suites/exchange"
	_ "github.com/touchstone-harness/touchstone/suites/fees"
	_ "github.com/touchstone-harness/touchstone/suites/headers"
	_ "github.com/touchstone-harness/touchstone/suites/idempotency"
	_ "github.com/touchstone-harness/touchstone/suites/onboarding"
	_ "github.com/touchstone-harness/touchstone/suites/otherpaths"
	_ "github.com/touchstone-harness/touchstone/suites/pagination"
	_ "github.com/touchstone-harness/touchstone/suites/payoutbatches"
	_ "github.com/touchstone-harness/touchstone/suites/ratelimit"
	_ "github.com/touchstone-harness/touchstone/suites/schemas"
	_ "github.com/touchstone-harness/touchstone/suites/subcustomers"
	_ "github.com/touchstone-harness/touchstone/suites/transfers"
	_ "github.com/touchstone-harness/touchstone/suites/webhooks"
	_ "github.com/touchstone-harness/touchstone/suites/withdrawals"

	// The properties and the load probes are checks too.
	_ "github.com/touchstone-harness/touchstone/load"
	_ "github.com/touchstone-harness/touchstone/property"
)
