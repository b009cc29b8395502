// Package crypto checks the crypto surface: the asset table, deposit
// addresses (wallets), the per-asset wallet balance, whitelisted
// withdrawal addresses, crypto withdrawals and crypto deposits (document 1,
// Resources / Crypto assets, Crypto wallet, Balances, Crypto withdrawal,
// Whitelisted address, Deposit; States / Crypto withdrawal, Crypto wallet
// request, Whitelisted crypto address; Endpoints / Deposits and
// withdrawals; document 2, Status meaning and Operation codes / Crypto).
// The events are checked in suites/webhooks (events_crypto.go).
package crypto

import (
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/touchstone-harness/touchstone/internal/amount"
	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// scales is the documented asset table's scale column.
var scales = map[string]int{"BTC": 8, "ETH": 18, "USDC": 6, "USDT": 6, "TRX": 6}

// depositNetworks is the table's deposit address network column.
var depositNetworks = map[string]string{"BTC": "BITCOIN", "ETH": "ETHEREUM", "USDC": "ETHEREUM", "USDT": "ETHEREUM", "TRX": "TRON"}

// path is P/customers/{id}/crypto + rest.
func path(customerID, rest string) string { return api.Customer(customerID) + "/crypto" + rest }

func get(t *check.T, p string) *client.Response {
	return t.Do(t.Client("tenant"), client.Request{Method: http.MethodGet, Path: p})
}

func post(t *check.T, p string, body any) *client.Response {
	return t.Do(t.Client("tenant"), client.Request{Method: http.MethodPost, Path: p, JSON: body, IdempotencyKey: t.NewKey()})
}

// address is POST .../crypto/wallets/{asset}/address (no body).
func address(t *check.T, customerID, asset string) *client.Response {
	return t.Do(t.Client("tenant"), client.Request{Method: http.MethodPost, Path: path(customerID, "/wallets/"+asset+"/address"), IdempotencyKey: t.NewKey()})
}

// balance is GET .../crypto/wallets/{asset}/balance.
func balance(t *check.T, customerID, asset string) *client.Response {
	return get(t, path(customerID, "/wallets/"+asset+"/balance"))
}

// withdraw is POST .../crypto/withdrawals.
func withdraw(t *check.T, customerID string, body map[string]any) *client.Response {
	return post(t, path(customerID, "/withdrawals"), body)
}

// wbody is a crypto withdrawal body; amount is a JSON number in major units.
func wbody(asset, network, amount, whitelistID string) map[string]any {
	b := map[string]any{"asset": asset, "amount": json.Number(amount), "description": "TS " + uuid.NewString()[:8]}
	if network != "" {
		b["network"] = network
	}
	if whitelistID != "" {
		b["whitelisted_address_id"] = whitelistID
	}
	return b
}

// issued issues (or re-reads) the customer's deposit address for asset
// under rule and returns data.wallet.
func issued(t *check.T, rule, customerID, asset string) map[string]any {
	d := fresh.Setup(t, rule, address(t, customerID, asset), "issue a "+asset+" deposit address")
	w, _ := d["wallet"].(map[string]any)
	if w == nil {
		t.Fatalf(rule, "the deposit-address answer has no data.wallet object: %v", d)
	}
	return w
}

// wallets reads GET .../crypto/wallets (200 expected under rule) and
// returns the rows.
func wallets(t *check.T, rule, customerID string) []shape.Item {
	d := shape.EnvelopeAnswer(t, get(t, path(customerID, "/wallets")), shape.Want{Rule: rule, Status: http.StatusOK})
	return shape.Items(t, rule, d, shape.ListKey(t, rule, d, ""), false)
}

// sampleAddress returns a fresh, valid-looking address for network.
func sampleAddress(network string) string {
	h := strings.ReplaceAll(uuid.NewString()+uuid.NewString(), "-", "")
	switch network {
	case "BITCOIN":
		return "bc1q" + h[:38]
	case "TRON":
		const b58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
		var b strings.Builder
		b.WriteString("T")
		for i := 0; i < 33; i++ {
			b.WriteByte(b58[int(h[i])%len(b58)])
		}
		return b.String()
	}
	return "0x" + h[:40]
}

// whitelist posts a whitelist body with key.
func whitelist(t *check.T, key, customerID string, body map[string]any) *client.Response {
	return t.Do(t.Client(key), client.Request{Method: http.MethodPost, Path: path(customerID, "/withdrawal-addresses"), JSON: body, IdempotencyKey: t.NewKey()})
}

// entryOf reads the whitelist entry from a create answer's data: the entry
// itself (reading WLA-014), or data.withdrawal_address when a target nests it.
func entryOf(d map[string]any) map[string]any {
	if e, ok := d["withdrawal_address"].(map[string]any); ok {
		return e
	}
	return d
}

// listedEntry finds whitelist entry id in the customer's list, or nil.
func listedEntry(t *check.T, rule, customerID, id string) map[string]any {
	d := shape.EnvelopeAnswer(t, get(t, path(customerID, "/withdrawal-addresses")), shape.Want{Rule: rule, Status: http.StatusOK})
	for _, it := range shape.Items(t, rule, d, shape.ListKey(t, rule, d, ""), false) {
		if it.ID == id {
			return it.Raw
		}
	}
	return nil
}

// cryptoWithdrawals is the customer's crypto withdrawal list (tenant key).
func cryptoWithdrawals(t *check.T, customerID string) shape.Seek {
	return shape.Seek{Client: t.Client("tenant"), Path: path(customerID, "/withdrawals"), Items: "withdrawals"}
}

// listedWithdrawal finds crypto withdrawal id, made by the check, near the
// front of the customer's list (newest first), or nil.
func listedWithdrawal(t *check.T, rule, customerID, id string) map[string]any {
	if row, ok := cryptoWithdrawals(t, customerID).Find(t, rule, id); ok {
		return row.Raw
	}
	return nil
}

// listedStatus asserts the listed status of crypto withdrawal id.
func listedStatus(t *check.T, rule, customerID, id, want string) map[string]any {
	row := listedWithdrawal(t, rule, customerID, id)
	if row == nil {
		t.Fatalf(rule, "crypto withdrawal %s is not in its customer's list", id)
	}
	if row["status"] != want {
		t.Fatalf(rule, "crypto withdrawal %s is listed with status %v, want %s", id, row["status"], want)
	}
	return row
}

// atomic reads a JSON integer at path exactly (no float).
func atomic(t *check.T, rule string, v any, p string) *big.Int {
	x, _ := shape.Get(v, p)
	n, isNum := x.(json.Number)
	if !isNum {
		t.Fatalf(rule, "%s is %v (%T), want a JSON number", p, x, x)
	}
	i, okI := new(big.Int).SetString(n.String(), 10)
	if !okI {
		t.Fatalf(rule, "%s is %s, want an integer in atomic units", p, n)
	}
	return i
}

// majorToAtomic reads a major-unit decimal string with exactly scale
// decimals as atomic units (internal/amount); ok is false when the decimals
// differ.
func majorToAtomic(s string, scale int) (*big.Int, bool) {
	_, frac, dot := strings.Cut(s, ".")
	if (scale == 0 && dot) || (scale > 0 && len(frac) != scale) {
		return nil, false
	}
	n, err := amount.Minor(s, scale)
	return n, err == nil
}

// balances reads the three balance strings and their *_atomic numbers and
// asserts the documented form (CRYP-003, CRYP-004, CRYP-005); it returns
// the atomic values keyed by the string field's name.
func balances(t *check.T, d map[string]any, asset string) map[string]*big.Int {
	out := map[string]*big.Int{}
	for _, k := range []string{"balance", "reserved_balance", "available_balance"} {
		s := shape.String(t, "CRYP-003", d, k)
		fromString, exact := majorToAtomic(s, scales[asset])
		if !exact {
			t.Fatalf("CRYP-003", "%s %s is %q: want a major-unit string with exactly %d decimals", asset, k, s, scales[asset])
		}
		at := atomic(t, "CRYP-004", d, k+"_atomic")
		if at.Cmp(fromString) != 0 {
			t.Fatalf("CRYP-005", "%s %s_atomic is %s but %s is %q (= %s atomic): the two must be equal", asset, k, at, k, s, fromString)
		}
		out[k] = at
	}
	return out
}

// readyCustomer creates an Active customer (control API) with an issued
// deposit address for asset, available atomic funds and an Active
// whitelist entry on network; it returns the customer and entry ids.
func readyCustomer(t *check.T, rule, asset, network, available string) (customerID, entryID string) {
	customerID = fresh.Activated(t, rule)
	issued(t, "CRYP-027", customerID, asset)
	if available != "" {
		if err := t.Control().CryptoFunds(t.Context(), customerID, asset, available); err != nil {
			t.NoVerdict(err)
		}
	}
	entryID = activeEntry(t, customerID, asset, network)
	return customerID, entryID
}

// activeEntry whitelists a fresh address and has staff approve it.
func activeEntry(t *check.T, customerID, asset, network string) string {
	r := whitelist(t, "tenant", customerID, map[string]any{"asset": asset, "network": network, "address": sampleAddress(network), "label": "TS " + asset})
	id := shape.String(t, "WLA-012", entryOf(fresh.Setup(t, "WLA-012", r, "whitelist an address")), "id")
	if err := t.Control().WhitelistDecision(t.Context(), id, "approve", ""); err != nil {
		t.NoVerdict(err)
	}
	return id
}

// policy sets crypto policy switches through the control API and returns
// a function restoring them to off; call it deferred.
func policy(t *check.T, customerID string, on ...string) (restore func()) {
	set := map[string]bool{}
	for _, k := range on {
		set[k] = true
	}
	if err := t.Control().CryptoPolicy(t.Context(), customerID, set); err != nil {
		t.NoVerdict(err)
	}
	return func() {
		off := map[string]bool{}
		for _, k := range on {
			off[k] = false
		}
		if err := t.Control().CryptoPolicy(t.Context(), customerID, off); err != nil {
			t.Logf("could not restore the crypto policy of %s: %v", customerID, err)
		}
	}
}

// refusedNoRow asserts a 4xx answer to the withdrawal body b and that no
// row of the customer's crypto withdrawal list carries b's description
// (unique per request), so that other runs sharing the target do not
// disturb the count.
func refusedNoRow(t *check.T, rule string, r *client.Response, customerID string, mark time.Time, b map[string]any) {
	if r.Status < 400 || r.Status >= 500 {
		t.FatalAt(r, rule, "the withdrawal was answered %d; it must be refused", r.Status)
	}
	if n := withDescription(t, rule, customerID, mark, b["description"]); n != 0 {
		t.Fatalf(rule, "the crypto withdrawal list holds %d rows with the refused request's description %v: a refused request must create no row", n, b["description"])
	}
}

// withdrawalsMark is the newest crypto withdrawal's created_at before a
// check sends any (shape.Seek.Mark).
func withdrawalsMark(t *check.T, customerID string) time.Time {
	return cryptoWithdrawals(t, customerID).Mark(t, "CWD-020")
}

// withDescription counts the customer's crypto withdrawals made since mark
// (the front of the list, newest first) whose description is d.
func withDescription(t *check.T, rule, customerID string, mark time.Time, d any) int {
	n := 0
	for _, it := range cryptoWithdrawals(t, customerID).Newer(t, rule, mark) {
		if it.Raw["description"] == d {
			n++
		}
	}
	return n
}

func jsonText(v any) string { b, _ := json.Marshal(v); return fmt.Sprint(string(b)) }
