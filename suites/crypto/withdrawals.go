package crypto

import (
	"maps"
	"math/big"
	"net/http"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// wdOf returns data.withdrawal of a withdrawal answer: POST
// crypto/withdrawals returns data.withdrawal with 200, 202 or 422
// (CWD-021), whatever the answer says of it.
func wdOf(t *check.T, r *client.Response, d map[string]any) map[string]any {
	w, _ := d["withdrawal"].(map[string]any)
	if w == nil {
		t.FatalAt(r, "CWD-021", "data.withdrawal is %v, want an object (data holds %v)", d["withdrawal"], slices.Sorted(maps.Keys(d)))
	}
	return w
}

// whitelistAddress reads the full address of whitelist entry id.
func whitelistAddress(t *check.T, rule, customerID, id string) string {
	row := listedEntry(t, rule, customerID, id)
	if row == nil {
		t.Fatalf(rule, "whitelist entry %s is not in its customer's list", id)
	}
	return shape.String(t, rule, row, "address")
}

// available reads the asset's available_balance_atomic.
func available(t *check.T, rule, customerID, asset string) *big.Int {
	return balances(t, shape.EnvelopeAnswer(t, balance(t, customerID, asset), shape.Want{Rule: rule, Status: http.StatusOK}), asset)["available_balance"]
}

// withdrawalsChecks are the checks of withdrawals.go.
func withdrawalsChecks() []check.Check {
	return slices.Concat(
		submitChecks(),
		decisionChecks(),
		balanceAndPauseChecks(),
		preconditionAndPolicyGatesChecks(),
	)
}

// submitChecks are what a submission answers: the round amount and its list
// row, and the refusals that keep no row.
func submitChecks() []check.Check {
	return []check.Check{
		{
			ID:          "cryptowithdrawals/submit-round-and-list",
			SerialGroup: "crypto withdrawals",
			Title:       "A BTC withdrawal of 0.000000015 to an Active whitelist entry answers 200 SubmittedToProvider with amount 2 (atomic, rounded away from zero; 0.000000011 also 2); its list row has type crypto, asset_code BTC, currency null, the unmasked whitelisted address and the stored description",
			Rules:       []string{"CWD-002", "CWD-005", "CWD-007", "CWD-008", "CWD-009", "CWD-010", "CWD-013", "CWD-020", "CWD-021", "PAGE-022"},
			Labels:      []string{check.Mutating},
			Needs:       []string{"keys.tenant", "crypto.customer", "crypto.whitelist_btc"},
			Run: func(t *check.T) {
				cust, entry := t.Crypto("customer"), t.Crypto("whitelist_btc")
				b := wbody("BTC", "", "0.000000015", entry)
				r := withdraw(t, cust, b)
				// The body carries the documented members (asset, amount,
				// whitelisted_address_id, description; network defaults for
				// BTC): a refusal saying one is missing is a member the
				// server does not read (CWD-002).
				if code := shape.BodyCode(r); r.Status == http.StatusUnprocessableEntity && (code == "whitelisted_address_required" || code == "unsupported_asset" || code == "invalid_amount") {
					t.FatalAt(r, "CWD-002", "a body carrying asset BTC, amount 0.000000015 and whitelisted_address_id %s (an Active entry) was refused %s: the request's members are asset, network, amount, whitelisted_address_id, destination_address and description", entry, code)
				}
				w := wdOf(t, r, shape.EnvelopeAnswer(t, r, shape.Want{Rule: "CWD-021", Status: http.StatusOK}))
				if st := shape.String(t, "CWD-013", w, "status"); st != "SubmittedToProvider" {
					t.FatalAt(r, "CWD-013", "a submitted crypto withdrawal answered 200 with status %q, want SubmittedToProvider", st)
				}
				if amt := atomic(t, "CWD-008", w, "amount"); amt.Cmp(big.NewInt(2)) != 0 {
					rule := "CWD-005"
					if amt.Cmp(big.NewInt(1)) != 0 {
						rule = "CWD-008"
					}
					t.FatalAt(r, rule, "0.000000015 BTC is reported as amount %s, want 2 (atomic units, rounded away from zero at scale 8)", amt)
				}
				// Away from zero, not half up: 1.1 atomic units are 2.
				small := withdraw(t, cust, wbody("BTC", "", "0.000000011", entry))
				if amt := atomic(t, "CWD-008", wdOf(t, small, shape.EnvelopeAnswer(t, small, shape.Want{Rule: "CWD-021", Status: http.StatusOK})), "amount"); amt.Cmp(big.NewInt(2)) != 0 {
					t.FatalAt(small, "CWD-005", "0.000000011 BTC is reported as amount %s, want 2 (atomic units, rounded away from zero at scale 8)", amt)
				}
				id := shape.String(t, "CWD-021", w, "id")
				shape.Pagination(t, "PAGE-022", shape.EnvelopeAnswer(t, get(t, path(cust, "/withdrawals?limit=1")), shape.Want{Rule: "CWD-020", Status: http.StatusOK}))
				row := listedWithdrawal(t, "CWD-020", cust, id)
				if row == nil {
					t.Fatalf("CWD-020", "the new crypto withdrawal %s is not in the list", id)
				}
				cur, hasCurrency := row["currency"]
				if row["type"] != "crypto" || row["asset_code"] != "BTC" || !hasCurrency || cur != nil {
					t.Fatalf("CWD-009", "list row: type %v asset_code %v currency %v (present %v), want crypto, BTC, null", row["type"], row["asset_code"], cur, hasCurrency)
				}
				full := whitelistAddress(t, "CWD-009", cust, entry)
				if dest, _ := row["destination_address"].(string); dest != full {
					t.Fatalf("CWD-009", "list row destination_address is %v, want the unmasked whitelisted address %s", row["destination_address"], full)
				}
				if row["description"] != b["description"] {
					t.Fatalf("CWD-007", "list row description is %v, want the stored %v", row["description"], b["description"])
				}
				if !map[string]bool{"Requested": true, "SubmittedToProvider": true, "ProviderPending": true, "Settled": true, "ManualReviewRequired": true, "Blocked": true, "Failed": true}[row["status"].(string)] {
					t.Fatalf("CWD-010", "list row status %v is not a documented crypto withdrawal status", row["status"])
				}
			},
		},
		{
			ID:          "cryptowithdrawals/refusals",
			SerialGroup: "crypto withdrawals",
			Title:       "Crypto withdrawal refusals with no row: whitelisted_address_required (also for a raw destination by default), whitelisted_address_not_found, whitelisted_address_asset_mismatch, invalid_amount, unsupported_asset (422); USDT on TRON and TRX without policy 409 crypto_withdrawal_failed",
			Rules:       []string{"CWD-001", "CWD-023", "CWD-024", "CWD-025", "ERR-108", "ERR-109", "ERR-110", "ERR-111", "ERR-112", "ERR-118", "CWD-020"},
			Labels:      []string{check.Mutating},
			Needs:       []string{"keys.tenant", "crypto.customer", "crypto.whitelist_btc"},
			Run: func(t *check.T) {
				cust, entry := t.Crypto("customer"), t.Crypto("whitelist_btc")
				mark := withdrawalsMark(t, cust)
				noID := wbody("BTC", "", "0.00000001", "")
				r := withdraw(t, cust, noID)
				shape.EnvelopeAnswer(t, r, shape.Want{Rule: "CWD-023", Status: http.StatusUnprocessableEntity, Code: "whitelisted_address_required"})
				refusedNoRow(t, "CWD-023", r, cust, mark, noID)
				shape.EnvelopeAnswer(t, r, shape.Want{Rule: "ERR-110", Status: http.StatusUnprocessableEntity, Code: "whitelisted_address_required"})
				raw := wbody("BTC", "", "0.00000001", "")
				raw["destination_address"] = sampleAddress("BITCOIN")
				shape.EnvelopeAnswer(t, withdraw(t, cust, raw), shape.Want{Rule: "CWD-001", Status: http.StatusUnprocessableEntity, Code: "whitelisted_address_required"})
				shape.EnvelopeAnswer(t, withdraw(t, cust, wbody("BTC", "", "0.00000001", uuid.NewString())), shape.Want{Rule: "ERR-111", Status: http.StatusUnprocessableEntity, Code: "whitelisted_address_not_found"})
				r = withdraw(t, cust, wbody("ETH", "", "0.000000000000000001", entry))
				shape.EnvelopeAnswer(t, r, shape.Want{Rule: "CWD-024", Status: http.StatusUnprocessableEntity, Code: "whitelisted_address_asset_mismatch"})
				shape.EnvelopeAnswer(t, r, shape.Want{Rule: "ERR-112", Status: http.StatusUnprocessableEntity, Code: "whitelisted_address_asset_mismatch"})
				for _, amt := range []string{"0", "-0.5"} {
					shape.EnvelopeAnswer(t, withdraw(t, cust, wbody("BTC", "", amt, entry)), shape.Want{Rule: "ERR-109", Status: http.StatusUnprocessableEntity, Code: "invalid_amount"})
				}
				shape.EnvelopeAnswer(t, withdraw(t, cust, wbody("DOGE", "", "1", entry)), shape.Want{Rule: "ERR-108", Status: http.StatusUnprocessableEntity, Code: "unsupported_asset"})
				// The two the sentence names without a tenant policy: USDT on
				// TRON and TRX.
				for _, b := range []map[string]any{wbody("USDT", "TRON", "1", entry), wbody("TRX", "", "1", entry)} {
					r = withdraw(t, cust, b)
					shape.EnvelopeAnswer(t, r, shape.Want{Rule: "CWD-025", Status: http.StatusConflict, Code: "crypto_withdrawal_failed", What: "a " + b["asset"].(string) + " withdrawal without the tenant's policy"})
					shape.EnvelopeAnswer(t, r, shape.Want{Rule: "ERR-118", Status: http.StatusConflict, Code: "crypto_withdrawal_failed"})
					refusedNoRow(t, "CWD-025", r, cust, mark, b)
				}
			},
		},
		{
			ID:          "cryptowithdrawals/network-required-for-usdt",
			SerialGroup: "crypto withdrawals",
			Title:       "A USDT withdrawal without network is refused with a 422 envelope and no row; USDT on TRON (tenant policy on) to the USDT entry on ETHEREUM is 422 whitelisted_address_asset_mismatch",
			Rules:       []string{"CWD-003", "CWD-004", "CWD-024", "ERR-112", "CUST-022"},
			Labels:      []string{check.Mutating, check.NeedsControl},
			Needs:       []string{"keys.tenant"},
			Run: func(t *check.T) {
				cust, entry := readyCustomer(t, "CWD-003", "USDT", "ETHEREUM", "5000000")
				mark := withdrawalsMark(t, cust)
				b := wbody("USDT", "", "1", entry)
				r := withdraw(t, cust, b)
				// Refused (CWD-003: network is required for USDT); how, a 422
				// envelope and no row, is the reading CWD-004.
				if r.Status/100 == 2 {
					t.FatalAt(r, "CWD-003", "a USDT withdrawal without network was taken (%d); USDT has two withdrawal networks, network is required", r.Status)
				}
				shape.EnvelopeAnswer(t, r, shape.Want{Rule: "CWD-004", Status: http.StatusUnprocessableEntity})
				refusedNoRow(t, "CWD-004", r, cust, mark, b)
				r = withdraw(t, cust, wbody("USDT", "ETHEREUM", "1", entry))
				shape.EnvelopeAnswer(t, r, shape.Want{Rule: "CWD-003", Status: http.StatusOK})
				// The entry must match the network too: with USDT-on-TRON
				// enabled, the ETHEREUM entry does not pay on TRON.
				defer policy(t, cust, "usdt_tron")()
				b = wbody("USDT", "TRON", "1", entry)
				r = withdraw(t, cust, b)
				shape.EnvelopeAnswer(t, r, shape.Want{Rule: "CWD-024", Status: http.StatusUnprocessableEntity, Code: "whitelisted_address_asset_mismatch",
					What: "a USDT withdrawal on TRON to the customer's USDT entry on ETHEREUM"})
				refusedNoRow(t, "CWD-024", r, cust, mark, b)
			},
		},
		{
			ID:          "cryptowithdrawals/usdc-on-ethereum",
			SerialGroup: "crypto withdrawals",
			Title:       "USDC withdraws on ETHEREUM, its one withdrawal network (the asset table): a USDC withdrawal on ETHEREUM is taken, one naming TRON is refused",
			Rules:       []string{"CRYP-009", "CWD-021", "CUST-022"},
			Labels:      []string{check.Mutating, check.NeedsControl},
			Needs:       []string{"keys.tenant"},
			Run: func(t *check.T) {
				cust, entry := readyCustomer(t, "CRYP-009", "USDC", "ETHEREUM", "5000000")
				r := withdraw(t, cust, wbody("USDC", "ETHEREUM", "1", entry))
				if r.Status != http.StatusOK && r.Status != http.StatusAccepted {
					t.FatalAt(r, "CRYP-009", "a USDC withdrawal on ETHEREUM (funded, whitelisted, Active entry) answered %d, want 200 or 202: ETHEREUM is USDC's withdrawal network", r.Status)
				}
				wdOf(t, r, shape.EnvelopeAnswer(t, r, shape.Want{Rule: "CRYP-009", Status: r.Status}))
				tron := withdraw(t, cust, wbody("USDC", "TRON", "1", entry))
				if tron.Status/100 == 2 {
					t.FatalAt(tron, "CRYP-009", "a USDC withdrawal naming network TRON answered %d; USDC withdraws on ETHEREUM only", tron.Status)
				}
			},
		},
		{
			ID:          "cryptowithdrawals/raw-destination-policy",
			SerialGroup: "crypto withdrawals",
			Title:       "With raw addresses enabled a destination_address alone is paid (an invalid one is 422 invalid_destination_address) and is ignored when a whitelisted_address_id is given",
			Rules:       []string{"CWD-006", "ERR-113", "CWD-020", "CWD-021", "CUST-022"},
			Labels:      []string{check.Mutating, check.NeedsControl},
			Needs:       []string{"keys.tenant"},
			Run: func(t *check.T) {
				cust, entry := readyCustomer(t, "CWD-006", "BTC", "BITCOIN", "100000")
				defer policy(t, cust, "raw_addresses")()
				raw := sampleAddress("BITCOIN")
				b := wbody("BTC", "", "0.00000010", "")
				b["destination_address"] = raw
				r := withdraw(t, cust, b)
				w := wdOf(t, r, shape.EnvelopeAnswer(t, r, shape.Want{Rule: "CWD-006", Status: http.StatusOK}))
				rawID := shape.String(t, "CWD-006", w, "id")
				row := listedWithdrawal(t, "CWD-020", cust, rawID)
				if row == nil {
					t.Fatalf("CWD-020", "the raw-address withdrawal %s is not in its customer's crypto withdrawal list", rawID)
				}
				if row["destination_address"] != raw {
					t.Fatalf("CWD-006", "the raw-address withdrawal is listed with destination_address %v, want %s", row["destination_address"], raw)
				}
				b["destination_address"] = "not-an-address"
				shape.EnvelopeAnswer(t, withdraw(t, cust, b), shape.Want{Rule: "ERR-113", Status: http.StatusUnprocessableEntity, Code: "invalid_destination_address"})
				b = wbody("BTC", "", "0.00000010", entry)
				b["destination_address"] = sampleAddress("BITCOIN")
				r = withdraw(t, cust, b)
				w = wdOf(t, r, shape.EnvelopeAnswer(t, r, shape.Want{Rule: "CWD-006", Status: http.StatusOK}))
				full := whitelistAddress(t, "CWD-006", cust, entry)
				if row := listedWithdrawal(t, "CWD-006", cust, shape.String(t, "CWD-006", w, "id")); row == nil || row["destination_address"] != full {
					t.Fatalf("CWD-006", "a withdrawal naming a whitelist entry and a destination_address is listed as %v, want the entry's address %s", row, full)
				}
			},
		},
		{
			ID:          "cryptowithdrawals/entry-not-active-and-no-wallet",
			SerialGroup: "crypto withdrawals",
			Title:       "A PendingVerification entry is 409 whitelisted_address_not_active; a customer without a custody wallet is 409 crypto_withdrawal_prerequisites_missing, also when it holds an address for another asset only",
			Rules:       []string{"ERR-115", "CWD-022", "ERR-116", "CWD-026", "CUST-022"},
			Labels:      []string{check.Mutating, check.NeedsControl},
			Needs:       []string{"keys.tenant"},
			Run: func(t *check.T) {
				cust, _ := readyCustomer(t, "ERR-115", "BTC", "BITCOIN", "100000")
				r := whitelist(t, "tenant", cust, map[string]any{"asset": "BTC", "network": "BITCOIN", "address": sampleAddress("BITCOIN"), "label": "Pending"})
				pending := shape.String(t, "WLA-012", entryOf(fresh.Setup(t, "WLA-012", r, "whitelist an address")), "id")
				shape.EnvelopeAnswer(t, withdraw(t, cust, wbody("BTC", "", "0.0001", pending)), shape.Want{Rule: "ERR-115", Status: http.StatusConflict, Code: "whitelisted_address_not_active"})
				bare := fresh.Activated(t, "CWD-022")
				if err := t.Control().CryptoFunds(t.Context(), bare, "ETH", "1000000000000000000"); err != nil {
					t.NoVerdict(err)
				}
				entry := activeEntry(t, bare, "ETH", "ETHEREUM")
				r = withdraw(t, bare, wbody("ETH", "", "0.5", entry))
				shape.EnvelopeAnswer(t, r, shape.Want{Rule: "CWD-022", Status: http.StatusConflict, Code: "crypto_withdrawal_prerequisites_missing"})
				shape.EnvelopeAnswer(t, r, shape.Want{Rule: "ERR-116", Status: http.StatusConflict, Code: "crypto_withdrawal_prerequisites_missing"})
				// The custody wallet is the issued address for the withdrawn
				// asset (reading CWD-026): a BTC address is none for ETH.
				issued(t, "CWD-026", bare, "BTC")
				r = withdraw(t, bare, wbody("ETH", "", "0.5", entry))
				shape.EnvelopeAnswer(t, r, shape.Want{Rule: "CWD-026", Status: http.StatusConflict, Code: "crypto_withdrawal_prerequisites_missing",
					What: "an ETH withdrawal from a customer holding a BTC deposit address only"})
			},
		},
	}
}

// decisionChecks follow a submitted withdrawal through the decisions after it:
// parked for the fee policy, refused by the provider with its row kept,
// settled or failed.
func decisionChecks() []check.Check {
	return []check.Check{
		{
			ID:          "cryptowithdrawals/park-and-fee-policy-202",
			SerialGroup: "crypto withdrawals",
			Title:       "A parked withdrawal (a screening hold; above the tenant's transaction limit) answers 202 ManualReviewRequired with no code and can settle later; a tenant fee policy of manual review answers 202 Blocked, final, nothing reserved",
			Rules:       []string{"CWD-014", "CWD-015", "ERR-137", "CWD-017", "CWD-012", "CWD-021", "CUST-022"},
			Labels:      []string{check.Mutating, check.NeedsControl},
			Needs:       []string{"keys.tenant"},
			Run: func(t *check.T) {
				cust, entry := readyCustomer(t, "CWD-014", "BTC", "BITCOIN", "100000")
				if err := t.Control().CryptoNextWithdrawal(t.Context(), cust, "park", ""); err != nil {
					t.NoVerdict(err)
				}
				r := withdraw(t, cust, wbody("BTC", "", "0.0001", entry))
				// Parked: 202 (CWD-014) in the normal body, the success
				// envelope a submission answers (ERR-137).
				d := shape.EnvelopeAnswer(t, r, shape.Want{Rule: "CWD-014", Status: http.StatusAccepted, ShapeRule: "ERR-137"})
				w := wdOf(t, r, d)
				if w["status"] != "ManualReviewRequired" {
					t.FatalAt(r, "CWD-014", "a parked withdrawal answered 202 with status %v, want ManualReviewRequired", w["status"])
				}
				// No code: the park's reason is not in the body (CWD-015),
				// neither as data.code nor on the withdrawal.
				if code, has := d["code"]; has {
					t.FatalAt(r, "CWD-015", "a parked withdrawal carries data.code %v: the reason code is not in the body", code)
				}
				for _, k := range []string{"code", "failure_code"} {
					if code := w[k]; code != nil {
						t.FatalAt(r, "CWD-015", "a parked withdrawal carries data.withdrawal.%s %v: the reason code is not in the body", k, code)
					}
				}
				parked := shape.String(t, "CWD-014", w, "id")
				listedStatus(t, "CWD-014", cust, parked, "ManualReviewRequired")
				if err := t.Control().CryptoWithdrawalOutcome(t.Context(), parked, "Settled"); err != nil {
					t.Fatalf("CWD-014", "control: settle the parked withdrawal: %v", err)
				}
				listedStatus(t, "CWD-014", cust, parked, "Settled")
				// A transaction limit (the tenant's policy): the server parks
				// a withdrawal above it itself.
				limit := func(atomic string) {
					if err := t.Control().Call(t.Context(), http.MethodPost, "/crypto/policy/"+cust, map[string]any{"transaction_limit_atomic": atomic}, nil); err != nil {
						t.NoVerdict(err)
					}
				}
				limit("5000")
				r = withdraw(t, cust, wbody("BTC", "", "0.0001", entry))
				limit("")
				w = wdOf(t, r, shape.EnvelopeAnswer(t, r, shape.Want{Rule: "CWD-014", Status: http.StatusAccepted, ShapeRule: "ERR-137", What: "a withdrawal of 10000 atomic units above a transaction limit of 5000"}))
				if w["status"] != "ManualReviewRequired" {
					t.FatalAt(r, "CWD-014", "a withdrawal above the transaction limit answered 202 with status %v, want ManualReviewRequired", w["status"])
				}
				listedStatus(t, "CWD-014", cust, shape.String(t, "CWD-014", w, "id"), "ManualReviewRequired")
				before := available(t, "CWD-012", cust, "BTC")
				defer policy(t, cust, "fee_review")()
				r = withdraw(t, cust, wbody("BTC", "", "0.0001", entry))
				w = wdOf(t, r, shape.EnvelopeAnswer(t, r, shape.Want{Rule: "CWD-017", Status: http.StatusAccepted}))
				if w["status"] != "Blocked" {
					t.FatalAt(r, "CWD-017", "a withdrawal under a fee policy of manual review answered 202 with status %v, want Blocked", w["status"])
				}
				blocked := shape.String(t, "CWD-017", w, "id")
				listedStatus(t, "CWD-017", cust, blocked, "Blocked")
				if after := available(t, "CWD-012", cust, "BTC"); after.Cmp(before) != 0 {
					t.Fatalf("CWD-012", "a Blocked withdrawal changed the available balance from %s to %s: nothing is sent or held", before, after)
				}
			},
		},
		{
			ID:          "cryptowithdrawals/422-row-kept-and-decision-codes",
			SerialGroup: "crypto withdrawals",
			Title:       "A withdrawal its funds do not cover is 422 insufficient_funds with a Failed row kept in the list and nothing held; the workflow's decision codes pass through verbatim as 422 (awaiting_crypto_delivery says how much can be sent now; provider_submission_failed releases the hold)",
			Rules:       []string{"CWD-018", "CWD-019", "CWD-012", "CWD-021", "ERR-125", "ERR-126", "ERR-127", "ERR-128", "ERR-129", "ERR-130", "ERR-131", "ERR-132", "ERR-133", "ERR-134", "ERR-117", "CUST-022"},
			Labels:      []string{check.Mutating, check.NeedsControl},
			Needs:       []string{"keys.tenant"},
			Run: func(t *check.T) {
				cust, entry := readyCustomer(t, "CWD-018", "BTC", "BITCOIN", "100000000")
				r := withdraw(t, cust, wbody("BTC", "", "2", entry))
				d := shape.EnvelopeAnswer(t, r, shape.Want{Rule: "ERR-126", Status: http.StatusUnprocessableEntity, Code: "insufficient_funds"})
				w := wdOf(t, r, d)
				if w["status"] != "Failed" && w["status"] != "Blocked" {
					t.FatalAt(r, "CWD-019", "the 422 body's withdrawal status is %v, want Blocked or Failed", w["status"])
				}
				listedStatus(t, "CWD-018", cust, shape.String(t, "CWD-019", w, "id"), w["status"].(string))
				if got := available(t, "CWD-012", cust, "BTC"); got.Cmp(big.NewInt(100000000)) != 0 {
					t.Fatalf("CWD-012", "after a refused withdrawal the available balance is %s, want 100000000 (nothing sent)", got)
				}
				codes := map[string]string{
					"ERR-127": "awaiting_crypto_delivery", "ERR-128": "insufficient_network_funds", "ERR-129": "ledger_available_balance_insufficient",
					"ERR-130": "withdrawal_fee_unavailable", "ERR-131": "asset_network_policy_unavailable", "ERR-132": "crypto_withdrawals_disabled",
					"ERR-133": "crypto_withdrawal_below_minimum", "ERR-134": "provider_submission_failed", "ERR-125": "ts_novel_decision_" + strings.ReplaceAll(uuid.NewString()[:8], "-", ""),
				}
				for _, rule := range slices.Sorted(maps.Keys(codes)) {
					code := codes[rule]
					if err := t.Control().CryptoNextWithdrawal(t.Context(), cust, code, "Failed"); err != nil {
						t.NoVerdict(err)
					}
					r := withdraw(t, cust, wbody("BTC", "", "0.1", entry))
					if m := shape.Object(t, rule, r); m["data"] == nil || m["data"].(map[string]any)["code"] != code {
						t.FatalAt(r, "ERR-125", "the workflow decided %s: the answer's data.code must pass it through verbatim", code)
					}
					d := shape.EnvelopeAnswer(t, r, shape.Want{Rule: rule, Status: http.StatusUnprocessableEntity, Code: code})
					if rule == "ERR-127" {
						if detail, _ := d["detail"].(string); !strings.Contains(detail, "1.00000000") {
							t.FatalAt(r, "ERR-127", "awaiting_crypto_delivery detail %q does not say how much can be sent now (1.00000000 BTC available)", detail)
						}
					}
				}
				if got := available(t, "ERR-134", cust, "BTC"); got.Cmp(big.NewInt(100000000)) != 0 {
					t.Fatalf("ERR-134", "after the refused decisions the available balance is %s, want 100000000 (the hold released)", got)
				}
				if err := t.Control().CryptoNextWithdrawal(t.Context(), cust, "crypto_withdrawal_workflow_unavailable", "Failed"); err != nil {
					t.NoVerdict(err)
				}
				shape.EnvelopeAnswer(t, withdraw(t, cust, wbody("BTC", "", "0.1", entry)), shape.Want{Rule: "ERR-117", Status: http.StatusConflict, Code: "crypto_withdrawal_workflow_unavailable"})
			},
		},
		{
			ID:          "cryptowithdrawals/settle-and-fail",
			SerialGroup: "crypto withdrawals",
			Title:       "A submitted withdrawal moves ProviderPending then Settled (the hold leaves the balance); a failed one is Failed and its amount is available again",
			Rules:       []string{"CWD-011", "CWD-012", "CWD-021", "CUST-022"},
			Labels:      []string{check.Mutating, check.NeedsControl},
			Needs:       []string{"keys.tenant"},
			Run: func(t *check.T) {
				cust, entry := readyCustomer(t, "CWD-011", "BTC", "BITCOIN", "100000")
				submit := func() string {
					r := withdraw(t, cust, wbody("BTC", "", "0.0004", entry))
					return shape.String(t, "CWD-021", wdOf(t, r, shape.EnvelopeAnswer(t, r, shape.Want{Rule: "CWD-021", Status: http.StatusOK})), "id")
				}
				outcome := func(id, st string) {
					if err := t.Control().CryptoWithdrawalOutcome(t.Context(), id, st); err != nil {
						t.Fatalf("CWD-011", "control: %s: %v", st, err)
					}
				}
				id := submit()
				b := balances(t, shape.EnvelopeAnswer(t, balance(t, cust, "BTC"), shape.Want{Rule: "CWD-011", Status: http.StatusOK}), "BTC")
				if b["reserved_balance"].Cmp(big.NewInt(40000)) != 0 || b["available_balance"].Cmp(big.NewInt(60000)) != 0 {
					t.Fatalf("CWD-011", "a submitted withdrawal of 40000 from 100000: reserved %s available %s, want 40000 and 60000", b["reserved_balance"], b["available_balance"])
				}
				outcome(id, "ProviderPending")
				listedStatus(t, "CWD-011", cust, id, "ProviderPending")
				outcome(id, "Settled")
				listedStatus(t, "CWD-011", cust, id, "Settled")
				b = balances(t, shape.EnvelopeAnswer(t, balance(t, cust, "BTC"), shape.Want{Rule: "CWD-011", Status: http.StatusOK}), "BTC")
				if b["reserved_balance"].Sign() != 0 || b["balance"].Cmp(big.NewInt(60000)) != 0 {
					t.Fatalf("CWD-011", "after settlement: reserved %s balance %s, want 0 and 60000", b["reserved_balance"], b["balance"])
				}
				id = submit()
				outcome(id, "Failed")
				listedStatus(t, "CWD-012", cust, id, "Failed")
				if got := available(t, "CWD-012", cust, "BTC"); got.Cmp(big.NewInt(60000)) != 0 {
					t.Fatalf("CWD-012", "after a Failed withdrawal the available balance is %s, want 60000 (nothing sent)", got)
				}
			},
		},
	}
}

// balanceAndPauseChecks are the per-asset balance a withdrawal spends and the
// platform-wide pause.
func balanceAndPauseChecks() []check.Check {
	return []check.Check{
		{
			ID:          "cryptowithdrawals/balance-keyed-on-asset",
			SerialGroup: "crypto withdrawals",
			Title:       "A USDT withdrawal on TRON (tenant policy on) draws on the same USDT balance the Ethereum deposit address reports",
			Rules:       []string{"CRYP-006", "CRYP-010", "CRYP-015", "CUST-022"},
			Labels:      []string{check.Mutating, check.NeedsControl},
			Needs:       []string{"keys.tenant"},
			Run: func(t *check.T) {
				cust := fresh.Activated(t, "CRYP-006")
				issued(t, "CRYP-027", cust, "USDT")
				if err := t.Control().CryptoFunds(t.Context(), cust, "USDT", "10000000"); err != nil {
					t.NoVerdict(err)
				}
				defer policy(t, cust, "usdt_tron")()
				entry := activeEntry(t, cust, "USDT", "TRON")
				r := withdraw(t, cust, wbody("USDT", "TRON", "1", entry))
				if r.Status == http.StatusUnprocessableEntity && shape.BodyCode(r) == "insufficient_funds" {
					// The 10 USDT arrived on the ETHEREUM deposit address; a
					// balance per network would hold nothing on TRON.
					t.FatalAt(r, "CRYP-006", "1 USDT on TRON was refused insufficient_funds while the customer holds 10 USDT (deposited on ETHEREUM): the balance is keyed on the asset across networks")
				}
				// USDT-on-TRON enabled for the tenant (CRYP-015), TRON a USDT
				// withdrawal network (CRYP-010): the withdrawal is taken.
				shape.StatusAnswer(t, r, shape.Want{Rule: "CRYP-015", Status: http.StatusOK, Continue: true, Why: "USDT-on-TRON is enabled for this customer's tenant"})
				shape.EnvelopeAnswer(t, r, shape.Want{Rule: "CRYP-010", Status: http.StatusOK})
				d := shape.EnvelopeAnswer(t, balance(t, cust, "USDT"), shape.Want{Rule: "CRYP-006", Status: http.StatusOK})
				if d["network"] != nil && d["network"] != "ETHEREUM" {
					t.Fatalf("CRYP-010", "the USDT balance read reports network %v, want the default ETHEREUM", d["network"])
				}
				b := balances(t, d, "USDT")
				if b["available_balance"].Cmp(big.NewInt(9000000)) != 0 || b["balance"].Cmp(big.NewInt(10000000)) != 0 {
					t.Fatalf("CRYP-006", "after 1 USDT sent on TRON from 10: available %s balance %s, want 9000000 and 10000000 (keyed on the asset across networks)", b["available_balance"], b["balance"])
				}
			},
		},
		{
			ID:          "cryptowithdrawals/paused",
			SerialGroup: "crypto withdrawals",
			Alone:       check.WithControl,
			Title:       "During a platform-wide money-movement pause a crypto withdrawal answers 409 crypto_withdrawal_failed with free-text detail",
			Rules:       []string{"ERR-039", "CUST-022"},
			Labels:      []string{check.Mutating, check.NeedsControl},
			Needs:       []string{"keys.tenant"},
			Run: func(t *check.T) {
				cust, entry := readyCustomer(t, "ERR-039", "BTC", "BITCOIN", "100000")
				if err := t.Control().MoneyMovementPause(t.Context(), true); err != nil {
					t.NoVerdict(err)
				}
				r := withdraw(t, cust, wbody("BTC", "", "0.0001", entry))
				if err := t.Control().MoneyMovementPause(t.Context(), false); err != nil {
					t.Logf("could not lift the money-movement pause: %v", err)
				}
				d := shape.EnvelopeAnswer(t, r, shape.Want{Rule: "ERR-039", Status: http.StatusConflict, Code: "crypto_withdrawal_failed"})
				if detail, _ := d["detail"].(string); detail == "" {
					t.FatalAt(r, "ERR-039", "the pause's crypto_withdrawal_failed has no free-text detail")
				}
			},
		},
	}
}

// preconditionAndPolicyGatesChecks are the gates a submission passes before a
// provider sees it.
func preconditionAndPolicyGatesChecks() []check.Check {
	return []check.Check{
		{
			ID:          "cryptowithdrawals/precondition-and-policy-gates",
			SerialGroup: "crypto withdrawals",
			Title:       "A crypto withdrawal for a customer that is not Active is 409 kyc_or_kyb_not_approved (envelope); a compliance block is the flat 403 compliance_subject_blocked and a manual review the flat 409 compliance_subject_manual_review",
			Rules:       []string{"LIFE-025", "ERR-042", "ERR-028"},
			Labels:      []string{check.Mutating, check.NeedsControl},
			Needs:       []string{"keys.tenant", "customers.draft"},
			Run: func(t *check.T) {
				r := withdraw(t, t.Customer("draft"), wbody("BTC", "", "0.0001", uuid.NewString()))
				shape.EnvelopeAnswer(t, r, shape.Want{Rule: "LIFE-025", Status: http.StatusConflict, Code: "kyc_or_kyb_not_approved"})
				shape.EnvelopeAnswer(t, r, shape.Want{Rule: "ERR-042", Status: http.StatusConflict, Code: "kyc_or_kyb_not_approved"})
				cust, entry := readyCustomer(t, "ERR-028", "BTC", "BITCOIN", "100000")
				state := func(s string) {
					if err := t.Control().Call(t.Context(), http.MethodPost, "/money-policy/compliance/"+cust, map[string]any{"state": s}, nil); err != nil {
						t.NoVerdict(err)
					}
				}
				defer state("")
				state("blocked")
				shape.FlatAnswer(t, withdraw(t, cust, wbody("BTC", "", "0.0001", entry)), shape.Want{Rule: "ERR-028", Status: http.StatusForbidden, Code: "compliance_subject_blocked"})
				state("manual_review")
				shape.FlatAnswer(t, withdraw(t, cust, wbody("BTC", "", "0.0001", entry)), shape.Want{Rule: "ERR-028", Status: http.StatusConflict, Code: "compliance_subject_manual_review"})
				state("")
				shape.EnvelopeAnswer(t, withdraw(t, cust, wbody("BTC", "", "0.0001", entry)), shape.Want{Rule: "ERR-028", Status: http.StatusOK})
			},
		},
	}
}
