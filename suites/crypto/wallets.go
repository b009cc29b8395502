package crypto

import (
	"math/big"
	"net/http"
	"slices"
	"strings"

	"github.com/touchstone-harness/touchstone/internal/amount"
	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// zeroUUID is the balance route's last id fallback (CRYP-021).
const zeroUUID = "00000000-0000-0000-0000-000000000000"

// walletsChecks are the checks of wallets.go.
func walletsChecks() []check.Check {
	return slices.Concat(
		depositAddressChecks(),
		assetCodeChecks(),
		walletBalanceChecks(),
	)
}

// depositAddressChecks are deposit-address issuance: one address per asset,
// the asset table's networks, and its refusals.
func depositAddressChecks() []check.Check {
	return []check.Check{
		{
			ID:     "crypto/deposit-address-one-per-asset",
			Title:  "POST .../crypto/wallets/BTC/address answers the documented message, data.wallet, data.address equal to the wallet's and data.tag null; a repeat returns the same address; the wallet list holds it once, Active",
			Rules:  []string{"CRYP-017", "CRYP-018", "CRYP-027", "CRYP-002", "CRYP-019", "CRYP-026", "CRYP-007", "CRYP-001"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant", "crypto.customer", "crypto.wallet_btc"},
			Run: func(t *check.T) {
				cust := t.Crypto("customer")
				r := address(t, cust, "BTC")
				d := fresh.Success(t, "CRYP-027", r)
				m := shape.Object(t, "CRYP-027", r)
				if m["message"] != "Deposit address generated successfully" {
					t.FatalAt(r, "CRYP-027", "message is %v, want %q", m["message"], "Deposit address generated successfully")
				}
				w, _ := d["wallet"].(map[string]any)
				if w == nil {
					t.FatalAt(r, "CRYP-017", "data.wallet is %v, want an object", d["wallet"])
				}
				for _, k := range []string{"id", "asset_code", "network", "address", "status"} {
					shape.String(t, "CRYP-017", w, k)
				}
				if _, has := w["balance"]; !has {
					t.FatalAt(r, "CRYP-017", "data.wallet has no balance member")
				}
				if tag, has := d["tag"]; !has || tag != nil {
					t.FatalAt(r, "CRYP-017", "data.tag is %v (present %v), want null", tag, has)
				}
				// data.address is present, a deposit address (CRYP-017); that
				// it is the wallet's own is the reading CRYP-018.
				if a, _ := d["address"].(string); a == "" {
					t.FatalAt(r, "CRYP-017", "data.address is %v, want the deposit address (a non-empty string)", d["address"])
				}
				if d["address"] != w["address"] {
					t.FatalAt(r, "CRYP-018", "data.address %v differs from data.wallet.address %v", d["address"], w["address"])
				}
				if w["asset_code"] != "BTC" || w["network"] != "BITCOIN" {
					t.FatalAt(r, "CRYP-007", "BTC address: asset_code %v network %v, want BTC on BITCOIN", w["asset_code"], w["network"])
				}
				if w["id"] != t.Crypto("wallet_btc") {
					t.FatalAt(r, "CRYP-002", "the customer's BTC address request answered wallet %v, want the issued %s (one address per customer per asset)", w["id"], t.Crypto("wallet_btc"))
				}
				again := address(t, cust, "BTC")
				d2 := fresh.Success(t, "CRYP-002", again)
				if a, _ := shape.Get(d2, "wallet.address"); a != w["address"] {
					t.FatalAt(again, "CRYP-002", "a repeated BTC address request answered address %v, want the same %v", a, w["address"])
				}
				var btc []shape.Item
				for _, it := range wallets(t, "CRYP-026", cust) {
					if it.Raw["asset_code"] == "BTC" {
						btc = append(btc, it)
					}
				}
				if len(btc) == 0 {
					t.Fatalf("CRYP-026", "the wallet list does not return the customer's issued BTC wallet %v", w["id"])
				}
				if len(btc) != 1 {
					t.Fatalf("CRYP-001", "the wallet list holds %d BTC wallets, want exactly 1 (one deposit address per customer per asset)", len(btc))
				}
				if it := btc[0]; it.ID != w["id"] || it.Raw["status"] != "Active" {
					t.Fatalf("CRYP-019", "wallet list BTC row id %s status %v, want the deposit-address id %v with status Active", it.ID, it.Raw["status"], w["id"])
				}
			},
		},
		{
			ID:     "crypto/asset-table-networks-and-scales",
			Title:  "Deposit addresses follow the asset table (BTC on BITCOIN, ETH/USDC/USDT on ETHEREUM, USDT on ETHEREUM even when a body names TRON) and each balance string carries exactly the asset's decimals; TRX needs the tenant policy (422 crypto_asset_network_policy_not_configured without, TRON with)",
			Rules:  []string{"CRYP-007", "CRYP-008", "CRYP-009", "CRYP-011", "CRYP-016", "CRYP-003", "CRYP-015", "CRYP-035", "ERR-135", "CRYP-025", "CUST-022"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.tenant"},
			Run: func(t *check.T) {
				cust := fresh.Activated(t, "CRYP-027")
				rules := map[string]string{"BTC": "CRYP-007", "ETH": "CRYP-008", "USDC": "CRYP-009", "USDT": "CRYP-016"}
				for _, asset := range []string{"BTC", "ETH", "USDC", "USDT"} {
					var w map[string]any
					if asset == "USDT" {
						// The route takes no network: one sent in a body
						// changes nothing (a target may also refuse the body).
						r := t.Do(t.Client("tenant"), client.Request{Method: http.MethodPost, Path: path(cust, "/wallets/USDT/address"), JSON: map[string]any{"network": "TRON"}, IdempotencyKey: t.NewKey()})
						if r.Status/100 == 2 {
							w, _ = fresh.Success(t, "CRYP-016", r)["wallet"].(map[string]any)
						} else {
							t.Logf("a USDT address request with a JSON body naming TRON answered %d; issuing without a body", r.Status)
						}
					}
					if w == nil {
						w = issued(t, rules[asset], cust, asset)
					}
					if w["network"] != depositNetworks[asset] || w["asset_code"] != asset {
						t.Fatalf(rules[asset], "%s deposit address: asset_code %v network %v, want %s on %s", asset, w["asset_code"], w["network"], asset, depositNetworks[asset])
					}
					balances(t, shape.EnvelopeAnswer(t, balance(t, cust, asset), shape.Want{Rule: "CRYP-025", Status: http.StatusOK}), asset)
				}
				// TRX without the tenant's policy: the sentence naming TRX
				// (CRYP-035); the code's status is the error catalogue's
				// (ERR-135, reported by the helper when only the status
				// differs). The general sentence, any asset-network without
				// a policy, is judged on a standard asset in
				// crypto/deposit-address-refusals (CRYP-031).
				shape.EnvelopeAnswer(t, address(t, cust, "TRX"), shape.Want{Rule: "CRYP-035", Status: http.StatusUnprocessableEntity, Code: "crypto_asset_network_policy_not_configured",
					What: "a TRX deposit address without the tenant's TRX policy"})
				defer policy(t, cust, "trx")()
				w := issued(t, "CRYP-015", cust, "TRX")
				if w["network"] != "TRON" {
					t.Fatalf("CRYP-011", "TRX deposit address network %v, want TRON", w["network"])
				}
				balances(t, shape.EnvelopeAnswer(t, balance(t, cust, "TRX"), shape.Want{Rule: "CRYP-011", Status: http.StatusOK}), "TRX")
			},
		},
		{
			ID:     "crypto/deposit-address-not-approved",
			Title:  "Deposit-address issuance for a customer that is not Active is 409 kyc_or_kyb_not_approved",
			Rules:  []string{"CRYP-028"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant", "customers.draft"},
			Run: func(t *check.T) {
				shape.EnvelopeAnswer(t, address(t, t.Customer("draft"), "BTC"), shape.Want{Rule: "CRYP-028", Status: http.StatusConflict, Code: "kyc_or_kyb_not_approved"})
			},
		},
		{
			ID:     "crypto/deposit-address-refusals",
			Title:  "Deposit-address refusals: crypto_deposits_disabled, crypto_asset_network_policy_not_configured (no asset-network policy for ETH) and crypto_wallet_opening_not_configured (422); provisioning in progress, provider exception and workflow unavailable (409, message says pending; a retry with a new key issues)",
			Rules:  []string{"CRYP-030", "ERR-136", "CRYP-031", "ERR-135", "CRYP-032", "CRYP-033", "CRYP-034", "ERR-114", "CUST-022"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.tenant"},
			Run: func(t *check.T) {
				cust := fresh.Activated(t, "CRYP-027")
				restore := policy(t, cust, "deposits_disabled")
				r := address(t, cust, "ETH")
				restore()
				shape.EnvelopeAnswer(t, r, shape.Want{Rule: "CRYP-030", Status: http.StatusUnprocessableEntity, Code: "crypto_deposits_disabled"})
				// An asset-network the tenant has no policy for: here ETH on
				// ETHEREUM, with no asset-network policy configured at all.
				restore = policy(t, cust, "network_policy_unconfigured")
				r = address(t, cust, "ETH")
				restore()
				shape.EnvelopeAnswer(t, r, shape.Want{Rule: "CRYP-031", Status: http.StatusUnprocessableEntity, Code: "crypto_asset_network_policy_not_configured",
					What: "an ETH deposit address with no asset-network policy configured"})
				restore = policy(t, cust, "wallet_opening_unconfigured")
				r = address(t, cust, "ETH")
				restore()
				shape.EnvelopeAnswer(t, r, shape.Want{Rule: "CRYP-032", Status: http.StatusUnprocessableEntity, Code: "crypto_wallet_opening_not_configured"})
				for _, rc := range [][2]string{{"CRYP-033", "crypto_wallet_provisioning_in_progress"}, {"CRYP-034", "crypto_wallet_provider_exception"}, {"ERR-114", "crypto_wallet_workflow_unavailable"}} {
					rule, code := rc[0], rc[1]
					if err := t.Control().CryptoNextAddress(t.Context(), cust, code); err != nil {
						t.NoVerdict(err)
					}
					r := address(t, cust, "BTC")
					shape.EnvelopeAnswer(t, r, shape.Want{Rule: rule, Status: http.StatusConflict, Code: code})
					if rule != "ERR-114" {
						if msg, _ := shape.Object(t, rule, r)["message"].(string); !strings.Contains(strings.ToLower(msg), "pending") {
							t.ErrorAt(r, rule, "the %s message %q does not say the address is pending", code, msg)
						}
					}
				}
				issued(t, "CRYP-033", cust, "BTC")
			},
		},
	}
}

// assetCodeChecks are how an asset is named: case and spaces, an unknown
// asset, TRX not convertible.
func assetCodeChecks() []check.Check {
	return []check.Check{
		{
			ID:     "crypto/asset-code-case-insensitive-trimmed",
			Title:  "btc, BtC and %20btc%20 name the same asset as BTC on the balance and deposit-address routes; asset_code is reported upper-case",
			Rules:  []string{"CRYP-013", "CRYP-014"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant", "crypto.customer", "crypto.wallet_btc"},
			Run: func(t *check.T) {
				cust := t.Crypto("customer")
				for _, spelled := range []string{"btc", "BtC", "%20btc%20"} {
					r := balance(t, cust, spelled)
					d := shape.EnvelopeAnswer(t, r, shape.Want{Rule: "CRYP-013", Status: http.StatusOK})
					if d["asset_code"] != "BTC" {
						t.FatalAt(r, "CRYP-014", "balance of %q reports asset_code %v, want BTC", spelled, d["asset_code"])
					}
					w := issued(t, "CRYP-013", cust, spelled)
					if w["id"] != t.Crypto("wallet_btc") || w["asset_code"] != "BTC" {
						t.Fatalf("CRYP-013", "deposit address for %q is wallet %v (%v), want the customer's BTC wallet %s", spelled, w["id"], w["asset_code"], t.Crypto("wallet_btc"))
					}
				}
			},
		},
		{
			ID:     "crypto/unsupported-asset",
			Title:  "An unknown asset is 422 unsupported_asset on the balance read (a GET) and on deposit-address issuance",
			Rules:  []string{"ERR-008", "ERR-108", "CRYP-029"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant", "crypto.customer"},
			Run: func(t *check.T) {
				cust := t.Crypto("customer")
				shape.EnvelopeAnswer(t, balance(t, cust, "DOGE"), shape.Want{Rule: "ERR-008", Status: http.StatusUnprocessableEntity, Code: "unsupported_asset"})
				shape.EnvelopeAnswer(t, address(t, cust, "DOGE"), shape.Want{Rule: "CRYP-029", Status: http.StatusUnprocessableEntity, Code: "unsupported_asset"})
			},
		},
		{
			ID:    "crypto/trx-not-convertible",
			Title: "A price query involving TRX (not convertible) is refused with a 422 or 409 envelope",
			Rules: []string{"CRYP-012"},
			Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				for _, pair := range []string{"TRX/USD", "BTC/TRX"} {
					r := t.Do(t.Client("tenant"), client.Request{Method: http.MethodGet, Path: api.P + "/transfer/price", Query: map[string][]string{"pair": {pair}}})
					if r.Status == http.StatusNotFound {
						t.Skipf("GET /transfer/price answers 404 to the tenant key: the exchange routes are not served by this target")
					}
					if r.Status != http.StatusUnprocessableEntity && r.Status != http.StatusConflict {
						t.FatalAt(r, "CRYP-012", "the price of %s answered %d; TRX is not convertible, want a 422 or 409 refusal", pair, r.Status)
					}
					shape.EnvelopeAnswer(t, r, shape.Want{Rule: "CRYP-012", Status: r.Status})
				}
			},
		},
	}
}

// walletBalanceChecks are the per-asset balance read: the newest wallet
// request, exact decimals and atomic amounts, a transient provider failure.
func walletBalanceChecks() []check.Check {
	return []check.Check{
		{
			ID:     "crypto/balance-newest-request",
			Title:  "The balance read reports Unknown with the all-zero id when no request exists, the pooled ledger id once funded, then the newest wallet request whatever its status; the wallet list shows only issued addresses",
			Rules:  []string{"CRYP-020", "CRYP-021", "CRYP-022", "CRYP-023", "CRYP-019", "CRYP-007", "CUST-022"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.tenant"},
			Run: func(t *check.T) {
				cust := fresh.Activated(t, "CRYP-027")
				read := func(rule string) map[string]any {
					return shape.EnvelopeAnswer(t, balance(t, cust, "BTC"), shape.Want{Rule: rule, Status: http.StatusOK})
				}
				d := read("CRYP-022")
				if d["status"] != "Unknown" {
					t.Fatalf("CRYP-020", "balance with no wallet request: status %v, want the literal Unknown", d["status"])
				}
				if d["id"] != zeroUUID {
					t.Fatalf("CRYP-021", "balance with no wallet request and no ledger: id %v, want %s", d["id"], zeroUUID)
				}
				if err := t.Control().CryptoFunds(t.Context(), cust, "BTC", "1000"); err != nil {
					t.NoVerdict(err)
				}
				d = read("CRYP-021")
				ledger, _ := d["id"].(string)
				if d["status"] != "Unknown" || ledger == "" || ledger == zeroUUID {
					t.Fatalf("CRYP-021", "balance with a pooled ledger and no wallet request: status %v id %v, want Unknown and the ledger account id", d["status"], d["id"])
				}
				if again := read("CRYP-021"); again["id"] != ledger {
					t.Fatalf("CRYP-021", "the pooled ledger id changed between reads: %v then %v", ledger, again["id"])
				}
				for _, st := range []string{"ManualReviewRequired", "Requested"} {
					id, err := t.Control().CryptoWalletRequest(t.Context(), cust, "BTC", st)
					if err != nil {
						t.NoVerdict(err)
					}
					d = read("CRYP-020")
					if s, _ := d["status"].(string); !map[string]bool{"Requested": true, "SubmittedToProvider": true, "Active": true, "ProviderPending": true, "ManualReviewRequired": true, "Blocked": true, "Failed": true, "Settled": true, "Unknown": true}[s] {
						t.Fatalf("CRYP-023", "status %v is not a documented wallet request state", d["status"])
					}
					if d["status"] != st || d["id"] != id {
						t.Fatalf("CRYP-020", "newest wallet request %s is %s: balance reports status %v id %v", id, st, d["status"], d["id"])
					}
				}
				if rows := wallets(t, "CRYP-019", cust); len(rows) != 0 {
					t.Fatalf("CRYP-019", "the wallet list shows %d rows while no address is issued (only requests): %v", len(rows), rows[0].Raw)
				}
				w := issued(t, "CRYP-027", cust, "BTC")
				// The read reports the request on the asset's default
				// network: the issued address must be on it (the asset
				// table) for the read to report it.
				if w["network"] != "BITCOIN" {
					t.Fatalf("CRYP-007", "the BTC deposit address is issued on %v, want BITCOIN", w["network"])
				}
				if d = read("CRYP-020"); d["status"] != "Active" || d["id"] != w["id"] {
					t.Fatalf("CRYP-020", "after issuance the balance reports status %v id %v, want Active and %v", d["status"], d["id"], w["id"])
				}
				failed, err := t.Control().CryptoWalletRequest(t.Context(), cust, "BTC", "Failed")
				if err != nil {
					t.NoVerdict(err)
				}
				if d = read("CRYP-020"); d["status"] != "Failed" || d["id"] != failed {
					t.Fatalf("CRYP-020", "a newer Failed request %s exists: balance reports status %v id %v (no status filter: the newest request wins)", failed, d["status"], d["id"])
				}
				rows := wallets(t, "CRYP-019", cust)
				if len(rows) != 1 || rows[0].ID != w["id"] || rows[0].Raw["status"] != "Active" {
					t.Fatalf("CRYP-019", "the wallet list holds %d rows, want only the issued address %v, Active", len(rows), w["id"])
				}
			},
		},
		{
			ID:         "crypto/balance-equals-deposits",
			Title:      "The wallet balance read reports what confirmed deposits credited: zero before, then balance and available_balance (string and atomic) equal to the sum of the deposits, reserved zero",
			Rules:      []string{"CRYP-025", "CUST-022"},
			Labels:     []string{check.Mutating, check.NeedsControl},
			ControlWhy: "for money arriving: a confirmed deposit to the issued address (the custodian's side)",
			Needs:      []string{"keys.tenant"},
			Run: func(t *check.T) {
				cust := fresh.Activated(t, "CRYP-025")
				issued(t, "CRYP-027", cust, "USDC")
				sum := new(big.Int)
				read := func(when string) {
					b := balances(t, shape.EnvelopeAnswer(t, balance(t, cust, "USDC"), shape.Want{Rule: "CRYP-025", Status: http.StatusOK}), "USDC")
					for _, k := range []string{"balance", "available_balance"} {
						if b[k].Cmp(sum) != 0 {
							t.Fatalf("CRYP-025", "%s: USDC %s is %s atomic (%s), want %s: the confirmed deposits credited", when, k, b[k], amount.Major(b[k], 6), sum)
						}
					}
					if b["reserved_balance"].Sign() != 0 {
						t.Fatalf("CRYP-025", "%s: USDC reserved_balance is %s atomic, want 0 (nothing withdrawn)", when, b["reserved_balance"])
					}
				}
				read("before any deposit")
				for _, atomic := range []string{"1000000", "2500001"} {
					if _, _, err := t.Control().CryptoDeposit(t.Context(), cust, "USDC", atomic); err != nil {
						t.NoVerdict(err)
					}
					n, _ := new(big.Int).SetString(atomic, 10)
					sum.Add(sum, n)
					read("after a confirmed deposit of " + atomic + " atomic")
				}
			},
		},
		{
			ID:    "crypto/balance-exact-decimals-and-atomic",
			Title: "Crypto balances are strings with exactly the asset's decimals and *_atomic JSON numbers equal to them exactly, ETH above 2^53 included",
			Rules: []string{"CRYP-003", "CRYP-004", "CRYP-005", "CRYP-025", "CRYP-036"},
			Needs: []string{"keys.tenant", "crypto.customer"},
			Run: func(t *check.T) {
				cust := t.Crypto("customer")
				for _, asset := range []string{"BTC", "ETH", "USDT"} {
					r := balance(t, cust, asset)
					d := shape.EnvelopeAnswer(t, r, shape.Want{Rule: "CRYP-025", Status: http.StatusOK})
					if d["asset_code"] != asset {
						t.FatalAt(r, "CRYP-036", "balance of %s: data.asset_code is %v, want %s", asset, d["asset_code"], asset)
					}
					b := balances(t, d, asset)
					if asset == "ETH" && b["balance"].Cmp(new(big.Int).Lsh(big.NewInt(1), 53)) <= 0 {
						t.Skipf("the crypto customer's ETH balance (%s atomic) is not above 2^53; fund it higher to check exactness", b["balance"])
					}
				}
			},
		},
		{
			ID:     "crypto/reads-transient-503",
			Title:  "A provider refresh failure makes the wallet list and the balance read answer 503 provider_balance_refresh_failed in the envelope; the next read succeeds",
			Rules:  []string{"ERR-011", "CUST-022"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.tenant"},
			Run: func(t *check.T) {
				cust := fresh.Activated(t, "CRYP-027")
				for _, p := range []string{path(cust, "/wallets"), path(cust, "/wallets/BTC/balance")} {
					if err := t.Control().CryptoRefreshFailures(t.Context(), cust, 1); err != nil {
						t.NoVerdict(err)
					}
					shape.EnvelopeAnswer(t, get(t, p), shape.Want{Rule: "ERR-011", Status: http.StatusServiceUnavailable, Code: "provider_balance_refresh_failed"})
					shape.EnvelopeAnswer(t, get(t, p), shape.Want{Rule: "ERR-011", Status: http.StatusOK})
				}
			},
		},
	}
}
