// Package accounts checks fiat accounts, balances and fiat deposits
// (document 1, What the service does; Two refusals to know; Resources /
// Fiat account, Balances, Deposit; States / Fiat account provisioning;
// Endpoints / Fiat accounts, beneficiaries, balances, Sub-customers and
// Deposits and withdrawals; document 2, Policy-gate codes, Operation codes /
// Fiat accounts, V2/fiat/accounts).
package accounts

import (
	"encoding/json"
	"net/http"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// Paths of the area.
func accountsPath(customerID string) string { return api.Customer(customerID) + "/banking/accounts" }
func balancePath(customerID string) string  { return api.Customer(customerID) + "/banking/balance" }
func depositsPath(customerID string) string { return api.Customer(customerID) + "/banking/deposits" }
func nestedPath(parent, child string) string {
	return api.Customer(parent) + "/end-customers/" + child
}

// open posts an account body for the customer with the tenant key.
func open(t *check.T, customerID string, body map[string]any) *client.Response {
	return t.Do(t.Client("tenant"), client.Request{Method: http.MethodPost, Path: accountsPath(customerID), JSON: body, IdempotencyKey: t.NewKey()})
}

func get(t *check.T, key, path string) *client.Response {
	return t.Do(t.Client(key), client.Request{Method: http.MethodGet, Path: path})
}

// opened asserts a 200/201 envelope with data.account (id, status) under
// rule and returns the account.
func opened(t *check.T, rule string, r *client.Response) map[string]any {
	d := fresh.Success(t, rule, r)
	a, _ := d["account"].(map[string]any)
	if a == nil {
		t.FatalAt(r, "FIAT-004", "the answer has no data.account object: %s", shape.Clip(r.Body))
	}
	shape.String(t, "FIAT-004", a, "id")
	shape.String(t, "FIAT-004", a, "status")
	return a
}

// ctl calls a sandbox control operation (needs-control checks only).
func ctl(t *check.T, path string, body map[string]any) map[string]any {
	var out map[string]any
	if err := t.Control().Call(t.Context(), http.MethodPost, path, body, &out); err != nil {
		t.NoVerdict(err)
	}
	return out
}

// outcome moves an account to an internal provisioning state through the
// control API (the provider's outcome).
func outcome(t *check.T, accountID, status string) {
	ctl(t, "/fiat/accounts/"+accountID+"/outcome", map[string]any{"status": status})
}

// policy replaces the tenant routing and provider configuration that
// applies to the customer (control API).
func policy(t *check.T, customerID string, p map[string]any) {
	ctl(t, "/fiat/policy/"+customerID, p)
}

// compliance sets a customer's compliance-side state (control API).
func compliance(t *check.T, customerID, state string) {
	ctl(t, "/money-policy/compliance/"+customerID, map[string]any{"state": state})
}

// deposit delivers an incoming fiat payment to an account (control API)
// and returns the deposit id.
func deposit(t *check.T, accountID string, amount any, fee int64, sender, reference string, held bool) string {
	out := ctl(t, "/fiat/deposits", map[string]any{"account_id": accountID, "amount_minor": amount, "fee_minor": fee, "sender": sender, "reference": reference, "held": held})
	id, _ := out["deposit_id"].(string)
	if id == "" {
		t.NoVerdict(errString("control: the deposit returned no id"))
	}
	return id
}

type errString string

func (e errString) Error() string { return string(e) }

// completedAccount opens an account in currency for a fresh customer and
// completes it through the control API; it returns the account as read.
func completedAccount(t *check.T, customerID, currency string) map[string]any {
	a := opened(t, "FIAT-022", open(t, customerID, map[string]any{"currency": currency}))
	id := a["id"].(string)
	outcome(t, id, "Completed")
	return readAccount(t, customerID, id)
}

// readAccount is GET .../banking/accounts/{id} (200 expected) and returns
// data.account.
func readAccount(t *check.T, customerID, id string) map[string]any {
	d := shape.EnvelopeAnswer(t, get(t, "tenant", accountsPath(customerID)+"/"+id), shape.Want{Rule: "FIAT-018", Status: http.StatusOK})
	a, _ := d["account"].(map[string]any)
	if a == nil || a["id"] != id {
		t.Fatalf("FIAT-018", "GET .../banking/accounts/%s answered data.account %v", id, d["account"])
	}
	return a
}

// accountsOf reads data.accounts of the list route at path.
func accountsOf(t *check.T, rule, key, path string) []map[string]any {
	d := shape.EnvelopeAnswer(t, get(t, key, path), shape.Want{Rule: rule, Status: http.StatusOK})
	var out []map[string]any
	for _, x := range shape.Array(t, rule, d, "accounts") {
		if m, ok := x.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// balanceOf reads the Available balance row of currency (nil when absent).
func balanceOf(t *check.T, customerID, currency string) map[string]any {
	d := shape.EnvelopeAnswer(t, get(t, "tenant", balancePath(customerID)), shape.Want{Rule: "BAL-004", Status: http.StatusOK})
	for _, x := range shape.Array(t, "BAL-004", d, "balances") {
		if m, ok := x.(map[string]any); ok && m["currency"] == currency {
			return m
		}
	}
	return nil
}

// minorText is a balance row's balance_minor as its exact JSON text ("0"
// when the row is absent).
func minorText(t *check.T, row map[string]any) string {
	if row == nil {
		return "0"
	}
	n, ok := row["balance_minor"].(json.Number)
	if !ok {
		t.Fatalf("BAL-002", "balance_minor is %v (%T), want a JSON integer", row["balance_minor"], row["balance_minor"])
	}
	return n.String()
}

// stringOrNull tells whether v is a string or null.
func stringOrNull(v any) bool {
	if v == nil {
		return true
	}
	_, ok := v.(string)
	return ok
}
