package suites

// Every area package registers its checks when imported.
import (
	_ "github.com/touchstone-harness/touchstone/property"
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

	// The load probes (package load) are checks too.
	_ "github.com/touchstone-harness/touchstone/load"
)
