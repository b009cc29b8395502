package control

import (
	"context"
	"net/http"
)

// CryptoPolicy sets the tenant's crypto configuration as it applies to a
// customer: keys trx, usdt_tron, raw_addresses, deposits_disabled,
// wallet_opening_unconfigured, fee_review, network_policy_unconfigured
// (booleans; absent keys keep their value).
func (c *Client) CryptoPolicy(ctx context.Context, customerID string, policy map[string]bool) error {
	in := map[string]any{}
	for k, v := range policy {
		in[k] = v
	}
	return c.Call(ctx, http.MethodPost, "/crypto/policy/"+customerID, in, nil)
}

// CryptoNextAddress makes the customer's next deposit-address request
// stay pending with code (crypto_wallet_provisioning_in_progress or
// crypto_wallet_provider_exception).
func (c *Client) CryptoNextAddress(ctx context.Context, customerID, code string) error {
	return c.Call(ctx, http.MethodPost, "/crypto/next-address/"+customerID, map[string]any{"code": code}, nil)
}

// CryptoWalletRequest records a wallet request for asset in status (the
// customer's newest) and returns its id.
func (c *Client) CryptoWalletRequest(ctx context.Context, customerID, asset, status string) (string, error) {
	var out struct {
		ID string `json:"id"`
	}
	err := c.Call(ctx, http.MethodPost, "/crypto/wallet-request/"+customerID, map[string]any{"asset": asset, "status": status}, &out)
	return out.ID, err
}

// CryptoNextWithdrawal arms the crypto workflow's decision on the
// customer's next withdrawal: outcome "park" (202 ManualReviewRequired) or
// a decision code answered 422 with a row in status (Failed or Blocked).
func (c *Client) CryptoNextWithdrawal(ctx context.Context, customerID, outcome, status string) error {
	return c.Call(ctx, http.MethodPost, "/crypto/next-withdrawal/"+customerID, map[string]any{"outcome": outcome, "status": status}, nil)
}

// CryptoWithdrawalOutcome records the custodian's outcome on a crypto
// withdrawal: ProviderPending, Settled or Failed.
func (c *Client) CryptoWithdrawalOutcome(ctx context.Context, id, status string) error {
	return c.Call(ctx, http.MethodPost, "/crypto/withdrawals/"+id+"/outcome", map[string]any{"status": status}, nil)
}

// WhitelistDecision records a staff decision on a whitelist entry:
// approve (control verified and approved), reject (with reason) or disable.
func (c *Client) WhitelistDecision(ctx context.Context, id, decision, reason string) error {
	return c.Call(ctx, http.MethodPost, "/crypto/whitelist/"+id, map[string]any{"decision": decision, "reason": reason}, nil)
}

// CryptoDeposit delivers a confirmed deposit of amountAtomic (a decimal
// string) to the customer's issued address for asset; it returns the
// deposit id and the transaction hash.
func (c *Client) CryptoDeposit(ctx context.Context, customerID, asset, amountAtomic string) (id, txHash string, err error) {
	var out struct {
		ID     string `json:"id"`
		TxHash string `json:"tx_hash"`
	}
	err = c.Call(ctx, http.MethodPost, "/crypto/deposits/"+customerID, map[string]any{"asset": asset, "amount_atomic": amountAtomic}, &out)
	return out.ID, out.TxHash, err
}

// CryptoFunds sets a customer's Available crypto balance (atomic units as
// a decimal string).
func (c *Client) CryptoFunds(ctx context.Context, customerID, asset, availableAtomic string) error {
	return c.Call(ctx, http.MethodPost, "/crypto-funds/"+customerID, map[string]any{"asset": asset, "available_atomic": availableAtomic}, nil)
}

// CryptoRefreshFailures makes the customer's next n crypto reads answer
// the transient 503 provider_balance_refresh_failed.
func (c *Client) CryptoRefreshFailures(ctx context.Context, customerID string, n int) error {
	return c.Call(ctx, http.MethodPost, "/crypto/refresh-failure/"+customerID, map[string]any{"count": n}, nil)
}

// MoneyMovementPause switches the platform-wide money-movement pause.
func (c *Client) MoneyMovementPause(ctx context.Context, paused bool) error {
	return c.Call(ctx, http.MethodPost, "/money-policy/pause", map[string]any{"paused": paused}, nil)
}

// CryptoHeldDeposit delivers a deposit held for review (not credited, no
// event) to the customer's issued address for asset; it returns its id.
func (c *Client) CryptoHeldDeposit(ctx context.Context, customerID, asset, amountAtomic string) (string, error) {
	var out struct {
		ID string `json:"id"`
	}
	err := c.Call(ctx, http.MethodPost, "/crypto/deposits/"+customerID, map[string]any{"asset": asset, "amount_atomic": amountAtomic, "held": true}, &out)
	return out.ID, err
}
