package control

import (
	"context"
	"net/http"
)

// WithdrawalOutcome records the bank's outcome on a fiat withdrawal:
// "Completed", "Failed", "ManualReview" or "Returned" (of a Completed one).
func (c *Client) WithdrawalOutcome(ctx context.Context, id, status string) error {
	return c.Call(ctx, http.MethodPost, "/withdrawals/"+id+"/outcome", map[string]any{"status": status}, nil)
}

// ParentCompliance makes a parent's compliance state readable or not.
func (c *Client) ParentCompliance(ctx context.Context, parentID string, available bool) error {
	return c.Call(ctx, http.MethodPost, "/withdrawals/parent-compliance/"+parentID, map[string]any{"available": available}, nil)
}

// SetFunds sets a customer's Available funds in a currency (minor units).
func (c *Client) SetFunds(ctx context.Context, customerID, currency string, minor int64) error {
	return c.Call(ctx, http.MethodPost, "/withdrawals/funds/"+customerID, map[string]any{"currency": currency, "available_minor": minor}, nil)
}

// CustomerFee sets a customer's own fiat withdrawal fee (minor units); a
// negative fee clears it (the tenant default applies again).
func (c *Client) CustomerFee(ctx context.Context, customerID string, feeMinor int64) error {
	return c.Call(ctx, http.MethodPost, "/fees/customers/"+customerID, map[string]any{"fiat_withdrawal_fee_minor": feeMinor}, nil)
}

// Disclosure sets whether a customer's disclosure policy demands the
// transparency object on fiat withdrawals.
func (c *Client) Disclosure(ctx context.Context, customerID string, required bool) error {
	return c.Call(ctx, http.MethodPost, "/withdrawals/disclosure/"+customerID, map[string]any{"required": required}, nil)
}

// SourceAccount sets the state of a customer's source account in a
// currency by its withdrawal refusal code ("" clears it).
func (c *Client) SourceAccount(ctx context.Context, customerID, currency, code string) error {
	return c.Call(ctx, http.MethodPost, "/withdrawals/source-account/"+customerID, map[string]any{"currency": currency, "code": code}, nil)
}

// BeneficiaryOutcome arms a provider-side refusal code for the customer's
// next beneficiary create.
func (c *Client) BeneficiaryOutcome(ctx context.Context, customerID, code string) error {
	return c.Call(ctx, http.MethodPost, "/beneficiary-outcomes/"+customerID, map[string]any{"code": code}, nil)
}
