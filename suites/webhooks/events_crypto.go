package webhooks

import (
	"encoding/json"
	"maps"
	"math/big"
	"net/http"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// Crypto deposit and withdrawal events (document 2, Events: Event types and
// emitting outcomes; Payload fields / deposit.received crypto column and
// withdrawal.completed crypto side; a crypto withdrawal park fires no
// event).

// cryptoWallet issues an ETH deposit address for the customer and returns
// data.wallet.
func cryptoWallet(t *check.T, customerID string) map[string]any {
	r := t.Do(t.Client("tenant"), client.Request{Method: http.MethodPost, Path: api.Customer(customerID) + "/crypto/wallets/ETH/address", IdempotencyKey: t.NewKey()})
	w, _ := fresh.Setup(t, "CRYP-027", r, "issue an ETH deposit address")["wallet"].(map[string]any)
	if w == nil {
		t.FatalAt(r, "CRYP-017", "the deposit-address answer has no data.wallet")
	}
	return w
}

// masked is first 6 + "..." + last 6, or the whole address when 12
// characters or fewer.
func masked(a string) string {
	if len(a) <= 12 {
		return a
	}
	return a[:6] + "..." + a[len(a)-6:]
}

// sameNumber tells whether a JSON number equals the decimal want exactly.
func sameNumber(v any, want string) bool {
	n, isNum := v.(json.Number)
	if !isNum {
		return false
	}
	a, okA := new(big.Rat).SetString(n.String())
	b, okB := new(big.Rat).SetString(want)
	return okA && okB && a.Cmp(b) == 0
}

// eventsCryptoChecks are the checks of events_crypto.go.
func eventsCryptoChecks() []check.Check {
	return slices.Concat(
		cryptoMoneyEventChecks(),
		heldCryptoDepositEventChecks(),
	)
}

// cryptoMoneyEventChecks are the crypto deposit.received and
// withdrawal.completed payload checks of events_crypto.go (see
// eventsCryptoChecks).
func cryptoMoneyEventChecks() []check.Check {
	return []check.Check{
		{
			ID:     "webhooks/event-crypto-deposit-received",
			Title:  "A confirmed crypto deposit emits deposit.received with deposit_type crypto and the documented crypto payload (sender null, crypto_wallet_id, atomic gross exact, fee 0, net = gross, currency = asset, reference = hash, masked address)",
			Rules:  []string{"EVT-056", "EVT-094", "EVT-095", "EVT-096", "EVT-097", "EVT-098", "EVT-099", "EVT-100", "EVT-101", "EVT-102", "EVT-103", "EVT-104", "EVT-105", "EVT-106", "EVT-107", "EVT-108", "EVT-109", "EVT-110", "EVT-111", "EVT-112", "CRYP-001", "WHM-003"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.tenant", "webhook_url"},
			Run: func(t *check.T) {
				in, subID, stop := listen(t, "tenant", "deposit.received")
				defer stop()
				cust := fresh.Activated(t, "CRYP-001")
				email, _ := fresh.Read(t, "EVT-095", cust)["external_reference"].(string)
				w := cryptoWallet(t, cust)
				const gross = "9007199254740993" // 2^53 + 1 wei
				depID, hash, err := t.Control().CryptoDeposit(t.Context(), cust, "ETH", gross)
				if err != nil {
					t.NoVerdict(err)
				}
				in.await(subID, 1)
				var env map[string]any
				for _, rec := range forSub(in.records(), subID) {
					if e := envelopeOf(t, "EVT-006", rec); rec.EventType == "deposit.received" && e["id"] == depID {
						verified(t, rec, "deposit.received delivery")
						env = e
					}
				}
				if env == nil {
					t.Fatalf("EVT-056", "no deposit.received delivery for the confirmed crypto deposit %s", depID)
				}
				d, _ := env["data"].(map[string]any)
				for _, k := range []string{"customer_id", "tenant_id", "customer_email", "tenant_name", "deposit_type", "sender", "virtual_account_id", "crypto_wallet_id", "iban", "bic",
					"amount_minor", "amount_major", "fee_minor", "fee_major", "net_amount_minor", "net_amount_major", "asset_code", "currency", "provider", "provider_transaction_id",
					"ledger_transaction_id", "reference", "deposit_address_masked", "deposited_at"} {
					if _, ok := d[k]; !ok {
						t.Errorf("EVT-094", "deposit.received crypto data lacks %s: %v", k, d)
					}
				}
				if d["customer_id"] != cust {
					t.Errorf("EVT-094", "data.customer_id is %v, want %s", d["customer_id"], cust)
				}
				if tid, _ := d["tenant_id"].(string); tid == "" {
					t.Errorf("EVT-094", "data.tenant_id is %v, want the tenant id", d["tenant_id"])
				}
				if d["customer_email"] != nil && d["customer_email"] != email {
					t.Errorf("EVT-095", "data.customer_email is %v, want the customer's recorded email %q or null", d["customer_email"], email)
				}
				if tn := d["tenant_name"]; tn != nil {
					if _, isStr := tn.(string); !isStr {
						t.Errorf("EVT-096", "data.tenant_name is %v, want the programme name or null", tn)
					}
				}
				depositKind(t, d, "crypto")
				nullOn := map[string][]string{"EVT-098": {"sender"}, "EVT-099": {"virtual_account_id"}, "EVT-101": {"iban", "bic"}}
				for _, rule := range slices.Sorted(maps.Keys(nullOn)) {
					keys := nullOn[rule]
					for _, k := range keys {
						if v, has := d[k]; has && v != nil {
							t.Errorf(rule, "data.%s is %v on a crypto deposit, want null", k, v)
						}
					}
				}
				if d["crypto_wallet_id"] != w["id"] {
					t.Errorf("EVT-100", "data.crypto_wallet_id is %v, want the deposit address request %v", d["crypto_wallet_id"], w["id"])
				}
				if !sameNumber(d["amount_minor"], gross) || !sameNumber(d["amount_major"], "0.009007199254740993") {
					t.Errorf("EVT-102", "gross: amount_minor %v amount_major %v, want %s atomic and 0.009007199254740993 exactly", d["amount_minor"], d["amount_major"], gross)
				}
				feeZero := sameNumber(d["fee_minor"], "0") && sameNumber(d["fee_major"], "0")
				if !feeZero {
					t.Errorf("EVT-103", "a crypto deposit reports fee_minor %v fee_major %v, want 0 and 0", d["fee_minor"], d["fee_major"])
				}
				// The net is gross minus the fee: judged once the fee is
				// the documented 0 (a wrong fee is EVT-103's failure, and a
				// net following it is no second one).
				if feeZero && (!sameNumber(d["net_amount_minor"], gross) || !sameNumber(d["net_amount_major"], "0.009007199254740993")) {
					t.Errorf("EVT-104", "net: net_amount_minor %v net_amount_major %v, want the gross", d["net_amount_minor"], d["net_amount_major"])
				}
				if d["asset_code"] != "ETH" {
					t.Errorf("EVT-105", "data.asset_code is %v, want ETH", d["asset_code"])
				}
				if d["currency"] != "ETH" {
					t.Errorf("EVT-106", "data.currency is %v, want the asset code ETH", d["currency"])
				}
				if p, _ := d["provider"].(string); p == "" {
					t.Errorf("EVT-107", "data.provider is %v, want the custody provider code", d["provider"])
				}
				if p, _ := d["provider_transaction_id"].(string); p == "" {
					t.Errorf("EVT-108", "data.provider_transaction_id is %v, want the custodian's reference or the hash", d["provider_transaction_id"])
				} else {
					// The deposit's provider_reference (the custodian's
					// transaction reference), falling back to the hash.
					rd := depositRecord(t, api.Customer(cust)+"/crypto/deposits/"+depID, ".../crypto/deposits/{id}", "EVT-108")
					pref, _ := shape.Get(rd, "deposit.provider_reference")
					want, _ := pref.(string)
					switch {
					case rd == nil: // not judged (depositRecord)
					case want != "" && p != want:
						t.Errorf("EVT-108", "data.provider_transaction_id is %v, want the deposit's provider_reference %v (the custodian's reference)", p, want)
					case want == "" && p != hash:
						t.Errorf("EVT-108", "data.provider_transaction_id is %v, want the transaction hash %v (the deposit has no provider_reference)", p, hash)
					}
				}
				if l := d["ledger_transaction_id"]; l != nil {
					if _, isStr := l.(string); !isStr {
						t.Errorf("EVT-109", "data.ledger_transaction_id is %v, want a journal entry id or null", l)
					}
				}
				if d["reference"] != hash {
					t.Errorf("EVT-110", "data.reference is %v, want the transaction hash %s", d["reference"], hash)
				}
				addr, _ := w["address"].(string)
				if d["deposit_address_masked"] != masked(addr) {
					t.Errorf("EVT-111", "data.deposit_address_masked is %v, want %q (first 6 + ... + last 6 of %s)", d["deposit_address_masked"], masked(addr), addr)
				}
				if d["deposited_at"] != env["occurred_at"] {
					t.Errorf("EVT-112", "data.deposited_at %v differs from occurred_at %v", d["deposited_at"], env["occurred_at"])
				}
			},
		},
		{
			ID:     "webhooks/event-crypto-withdrawal-completed-park-silent",
			Title:  "A parked crypto withdrawal fires no event; a settled one emits withdrawal.completed with type crypto, atomic amount, currency null, fee 0, the masked destination and blockchain_tx_hash null",
			Rules:  []string{"EVT-057", "EVT-063", "CWD-013", "CWD-014", "ERR-137", "CWD-021", "EVT-113", "EVT-114", "EVT-115", "EVT-116", "EVT-117", "EVT-118", "EVT-119", "EVT-120", "EVT-121", "EVT-122", "EVT-123", "EVT-124", "WHM-003"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.tenant", "webhook_url"},
			Run: func(t *check.T) {
				in, subID, stop := listen(t, "tenant", "withdrawal.completed")
				defer stop()
				ctl := t.Control()
				cust := fresh.Activated(t, "CWD-013")
				cryptoWallet(t, cust)
				if err := ctl.CryptoFunds(t.Context(), cust, "ETH", "5000000000000000000"); err != nil {
					t.NoVerdict(err)
				}
				dest := "0x" + strings.ReplaceAll(uuid.NewString()+uuid.NewString(), "-", "")[:40]
				wr := t.Do(t.Client("tenant"), client.Request{Method: http.MethodPost, Path: api.Customer(cust) + "/crypto/withdrawal-addresses", IdempotencyKey: t.NewKey(),
					JSON: map[string]any{"asset": "ETH", "network": "ETHEREUM", "address": dest, "label": "TS events"}})
				wd := fresh.Setup(t, "WLA-012", wr, "whitelist an address")
				if inner, ok := wd["withdrawal_address"].(map[string]any); ok {
					wd = inner
				}
				entry := shape.String(t, "WLA-012", wd, "id")
				if err := ctl.WhitelistDecision(t.Context(), entry, "approve", ""); err != nil {
					t.NoVerdict(err)
				}
				send := func(status int) string {
					r := t.Do(t.Client("tenant"), client.Request{Method: http.MethodPost, Path: api.Customer(cust) + "/crypto/withdrawals", IdempotencyKey: t.NewKey(),
						JSON: map[string]any{"asset": "ETH", "amount": json.Number("1.25"), "whitelisted_address_id": entry}})
					want := shape.Want{Rule: "CWD-021", Status: status}
					if status == http.StatusAccepted {
						// The park: 202 (CWD-014) in the normal body (ERR-137).
						want = shape.Want{Rule: "CWD-014", Status: status, ShapeRule: "ERR-137"}
					}
					return shape.String(t, "CWD-021", shape.EnvelopeAnswer(t, r, want), "withdrawal.id")
				}
				if err := ctl.CryptoNextWithdrawal(t.Context(), cust, "park", ""); err != nil {
					t.NoVerdict(err)
				}
				parked := send(http.StatusAccepted)
				settled := send(http.StatusOK)
				if err := ctl.CryptoWithdrawalOutcome(t.Context(), settled, "Settled"); err != nil {
					t.Fatalf("CWD-013", "control: settle: %v", err)
				}
				in.await(subID, 1)
				// A park fires no event: EVT-063, which CWD-016 (document 1)
				// restates.
				if n := len(in.events(subID, "withdrawal.completed", parked)); n != 0 {
					t.Fatalf("EVT-063", "the parked crypto withdrawal %s fired %d withdrawal.completed deliveries; a park fires no event", parked, n)
				}
				var env map[string]any
				for _, rec := range forSub(in.records(), subID) {
					if e := envelopeOf(t, "EVT-006", rec); rec.EventType == "withdrawal.completed" && e["id"] == settled {
						verified(t, rec, "withdrawal.completed delivery")
						env = e
					}
				}
				if env == nil {
					t.Errorf("EVT-057", "withdrawal settled, yet no withdrawal.completed delivery for %s", settled)
					t.Fatalf("CWD-013", "no withdrawal.completed delivery for the settled crypto withdrawal %s", settled)
				}
				d, _ := env["data"].(map[string]any)
				for _, k := range []string{"customer_id", "tenant_id", "withdrawal_id", "type", "amount_minor", "currency", "status", "fee_minor", "provider_transaction_id",
					"completed_at", "beneficiary_id", "beneficiary_iban_masked", "beneficiary_name", "asset_code", "destination_address_masked", "blockchain_tx_hash"} {
					if _, ok := d[k]; !ok {
						t.Errorf("EVT-113", "withdrawal.completed crypto data lacks %s: %v", k, d)
					}
				}
				switch d["type"] {
				case "crypto":
				case "fiat":
					t.Errorf("EVT-057", "data.type is fiat on a crypto withdrawal, want crypto")
				default:
					t.Errorf("EVT-114", "data.type is %v, want crypto (one of fiat, crypto)", d["type"])
				}
				if d["withdrawal_id"] != settled || d["customer_id"] != cust {
					t.Errorf("EVT-113", "withdrawal_id %v customer_id %v, want %s and %s", d["withdrawal_id"], d["customer_id"], settled, cust)
				}
				if !sameNumber(d["amount_minor"], "1250000000000000000") {
					t.Errorf("EVT-115", "data.amount_minor is %v, want 1250000000000000000 (atomic units)", d["amount_minor"])
				}
				nullOn := map[string]string{"EVT-116": "currency", "EVT-121": "beneficiary_name", "EVT-124": "blockchain_tx_hash"}
				for _, rule := range slices.Sorted(maps.Keys(nullOn)) {
					k := nullOn[rule]
					if v, has := d[k]; has && v != nil {
						t.Errorf(rule, "data.%s is %v on a crypto withdrawal, want null", k, v)
					}
				}
				if d["status"] != "completed" {
					t.Errorf("EVT-117", "data.status is %v, want completed", d["status"])
				}
				if _, has := d["fee_minor"]; has && !sameNumber(d["fee_minor"], "0") { // absent: EVT-113 above
					t.Errorf("EVT-118", "data.fee_minor is %v, want 0 on a crypto withdrawal", d["fee_minor"])
				}
				if p, _ := d["provider_transaction_id"].(string); p == "" {
					t.Errorf("EVT-119", "data.provider_transaction_id is %v, want the custodian reference or the withdrawal id", d["provider_transaction_id"])
				}
				if d["completed_at"] != env["occurred_at"] {
					t.Errorf("EVT-120", "data.completed_at %v differs from occurred_at %v", d["completed_at"], env["occurred_at"])
				}
				if d["asset_code"] != "ETH" {
					t.Errorf("EVT-122", "data.asset_code is %v, want ETH", d["asset_code"])
				}
				if d["destination_address_masked"] != masked(dest) {
					t.Errorf("EVT-123", "data.destination_address_masked is %v, want %q", d["destination_address_masked"], masked(dest))
				}
			},
		},
	}
}

// heldCryptoDepositEventChecks returns check
// webhooks/event-crypto-held-deposit-silent (one of eventsCryptoChecks).
func heldCryptoDepositEventChecks() []check.Check {
	return []check.Check{
		{
			ID:     "webhooks/event-crypto-held-deposit-silent",
			Title:  "A crypto deposit held for review fires no deposit.received but is readable from the crypto deposits list and detail; a later confirmed deposit fires",
			Rules:  []string{"DEP-001", "EVT-056", "WHM-003"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.tenant", "webhook_url"},
			Run: func(t *check.T) {
				in, subID, stop := listen(t, "tenant", "deposit.received")
				defer stop()
				cust := fresh.Activated(t, "DEP-001")
				cryptoWallet(t, cust)
				held, err := t.Control().CryptoHeldDeposit(t.Context(), cust, "ETH", "1000")
				if err != nil {
					t.NoVerdict(err)
				}
				sentinel, _, err := t.Control().CryptoDeposit(t.Context(), cust, "ETH", "2000")
				if err != nil {
					t.NoVerdict(err)
				}
				in.await(subID, 1)
				if n := len(in.events(subID, "deposit.received", sentinel)); n != 1 {
					t.Fatalf("EVT-056", "the confirmed crypto deposit %s fired %d deposit.received deliveries, want 1", sentinel, n)
				}
				if n := len(in.events(subID, "deposit.received", held)); n != 0 {
					t.Fatalf("DEP-001", "the deposit held for review %s fired %d deposit.received deliveries, want none", held, n)
				}
				base := api.Customer(cust) + "/crypto/deposits"
				found := false
				d := shape.EnvelopeAnswer(t, t.Do(t.Client("tenant"), client.Request{Method: http.MethodGet, Path: base + "?limit=500"}), shape.Want{Rule: "DEP-001", Status: http.StatusOK})
				for _, it := range shape.Items(t, "DEP-001", d, "deposits", false) {
					found = found || it.ID == held
				}
				if !found {
					t.Fatalf("DEP-001", "the deposit held for review %s is not in the crypto deposits list", held)
				}
				shape.EnvelopeAnswer(t, t.Do(t.Client("tenant"), client.Request{Method: http.MethodGet, Path: base + "/" + held}), shape.Want{Rule: "DEP-001", Status: http.StatusOK})
			},
		},
	}
}
