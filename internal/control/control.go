// Package control is the harness's client for the embedded sandbox's control
// API: it plays the parties the public API cannot (identity provider, staff,
// operators, banks) and moves the sandbox's virtual clock. Real targets have
// no control API; checks that need it are labelled needs-control and skipped.
package control

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/touchstone-harness/touchstone/internal/client"
)

// Client talks to one sandbox's control API.
type Client struct {
	URL  string // e.g. http://127.0.0.1:8080/_sandbox
	HTTP *http.Client
	// OnCall, when set, hears each call before it is sent (the check
	// runner notes the calls that change what other checks see).
	OnCall func(method, path string)
	// OnRefused, when set, hears each call the target does not serve: one
	// its capabilities do not list (*NotServedError, not sent) or one it
	// refused at run time (*RefusedError).
	OnRefused func(err error)
	// Served are the operation ids the target serves (Learn); nil: all.
	Served map[string]bool
	// ServedFrom says where Served was learnt ("capabilities",
	// "openapi.json"), "" when the target published neither.
	ServedFrom string
}

// globalPaths are the control calls whose effect every check sees: the
// clock, a route's latency or armed failures, the identity provider, the
// platform-wide money pause, exchange rates and quotes, tenant defaults.
var globalPaths = []string{"/clock/", "/latency", "/failures", "/provider", "/money-policy/pause",
	"/exchange/rate", "/exchange/quote", "/fees/tenants", "/internal-transfers/capability"}

// Global tells whether a control call changes what every check sees (a
// read never does).
func Global(method, path string) bool {
	if method == http.MethodGet {
		return false
	}
	for _, p := range globalPaths {
		if strings.HasPrefix(path, p) {
			return true
		}
	}
	return false
}

// purposes say what each family of control calls does that the API
// itself cannot (the first prefix that matches wins).
var purposes = []struct{ prefix, what string }{
	{"/clock", "moving the clock"},
	{"/latency", "holding a route's requests in flight"},
	{"/failures", "arming an unexpected server failure"},
	{"/provider", "making the identity provider unreachable"},
	{"/customers/{id}/verification", "the identity provider's decision"},
	{"/customers/{id}/status", "a staff or compliance status change"},
	{"/customers/{id}/manual-hold", "a manual compliance hold"},
	{"/customers/{id}/programme", "a customer's programme setting"},
	{"/onboarding/user-type", "a Draft customer recorded as a business, as the dashboard does"},
	{"/keys/rotation-pair", "a rotated key pair from the dashboard"},
	{"/payout-batches", "payout-batch operators, an interrupted submission or an erased customer at execution"},
	{"/beneficiary-outcomes", "a provider's refusal of a beneficiary"},
	{"/beneficiaries", "staff, bank or provider decisions on a beneficiary"},
	{"/withdrawals", "bank outcomes, funds and policies of fiat withdrawals"},
	{"/fees", "fee settings"},
	{"/internal-transfers", "internal-transfer capability, eligibility, limits and origins"},
	{"/money-policy", "a platform pause or a customer's compliance state"},
	{"/fiat", "provider outcomes, policies, deposits and funds of fiat accounts"},
	{"/crypto-funds", "funded crypto balances"},
	{"/exchange", "live rates, quotes, refusals and conversion outcomes"},
	{"/webhooks/emit", "emitting events"},
	{"/webhooks/receiver", "pointing deliveries at the harness's receiver"},
	{"/webhooks/replay", "a support replay of a delivery"},
	{"/webhooks/rotation-hold", "holding a secret rotation in flight"},
	{"/webhooks", "webhook destination policies"},
	{"/crypto", "crypto policies, custodian outcomes, deposits and staff decisions"},
}

// Purpose says what a control call (its path template, below /_sandbox)
// does that the API itself cannot, or "" for a read of the clock.
func Purpose(method, template string) string {
	if method == http.MethodGet {
		return ""
	}
	for _, p := range purposes {
		if strings.HasPrefix(template, p.prefix) {
			return p.what
		}
	}
	return "sandbox control calls (" + template + ")"
}

// Clock is the sandbox's time.
type Clock struct {
	Now     time.Time `json:"now"`
	Virtual bool      `json:"virtual"`
}

// Call posts (or gets, when in is nil and method is GET) JSON to a control path.
func (c *Client) Call(ctx context.Context, method, path string, in, out any) error {
	if c.OnCall != nil {
		c.OnCall(method, path)
	}
	if op := OperationID(method, path); !c.Serves(op) {
		err := &NotServedError{Op: op, Method: method, Path: path}
		if c.OnRefused != nil {
			c.OnRefused(err)
		}
		return err
	}
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.URL+path, body)
	if err != nil {
		return err
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return fmt.Errorf("control %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	raw, err := client.ReadBody(resp.Body)
	if refusal(resp.StatusCode, raw) {
		err := &RefusedError{Op: OperationID(method, path), Method: method, Path: path, Status: resp.StatusCode, Body: clip(raw)}
		if c.OnRefused != nil {
			c.OnRefused(err)
		}
		return err
	}
	if resp.StatusCode/100 != 2 {
		if len(raw) > 512 {
			raw = raw[:512]
		}
		return fmt.Errorf("control %s %s: %d %s", method, path, resp.StatusCode, bytes.TrimSpace(raw))
	}
	if err != nil {
		return fmt.Errorf("control %s %s: %w", method, path, err)
	}
	if out != nil && len(raw) > 0 {
		return json.Unmarshal(raw, out)
	}
	return nil
}

// Clock reads the sandbox clock.
func (c *Client) Clock(ctx context.Context) (Clock, error) {
	var out Clock
	err := c.Call(ctx, http.MethodGet, "/clock", nil, &out)
	return out, err
}

// Advance moves a virtual clock forward by d.
func (c *Client) Advance(ctx context.Context, d time.Duration) (Clock, error) {
	var out Clock
	err := c.Call(ctx, http.MethodPost, "/clock/advance", map[string]any{"seconds": d.Seconds()}, &out)
	return out, err
}

// NextMinute moves a virtual clock to the start of the next clock minute plus offset.
func (c *Client) NextMinute(ctx context.Context, offset time.Duration) (Clock, error) {
	var out Clock
	err := c.Call(ctx, http.MethodPost, "/clock/next-minute", map[string]any{"offset_seconds": offset.Seconds()}, &out)
	return out, err
}

// SetLatency makes the sandbox hold requests to method+route template for d
// (0 removes it), so that a first attempt can be caught in flight.
func (c *Client) SetLatency(ctx context.Context, method, template string, d time.Duration) error {
	return c.Call(ctx, http.MethodPost, "/latency", map[string]any{"method": method, "route": template, "delay_ms": d.Milliseconds()}, nil)
}

// VerificationDecision records the identity provider's decision on a
// customer's latest verification case: "approved", "rejected" or "pending_review".
func (c *Client) VerificationDecision(ctx context.Context, customerID, decision string) error {
	return c.Call(ctx, http.MethodPost, "/customers/"+customerID+"/verification", map[string]any{"decision": decision}, nil)
}

// RotationPair has the sandbox's dashboard issue a fresh key like the key
// whose public prefix is like (same tenant, environment, binding, scopes and
// allowlist) and rotate it at once with overlap (0: the default). It
// returns the old key and its successor, in full.
func (c *Client) RotationPair(ctx context.Context, like string, overlap time.Duration) (old, succ string, err error) {
	var out struct {
		Old string `json:"old"`
		New string `json:"new"`
	}
	err = c.Call(ctx, http.MethodPost, "/keys/rotation-pair", map[string]any{"like": like, "overlap_hours": overlap.Hours()}, &out)
	return out.Old, out.New, err
}

// PayoutBatchAction is an operator action on a payout batch: "submit",
// "approve" or "reject" by the named operator. It returns the control API's
// error text (with its status) when the sandbox refuses the action.
func (c *Client) PayoutBatchAction(ctx context.Context, batchID, action, operator string) error {
	return c.Call(ctx, http.MethodPost, "/payout-batches/"+batchID+"/"+action, map[string]any{"operator": operator}, nil)
}

// ExecutePayoutBatch has an operator execute an Approved batch; the
// target decides every item's outcome from the world. interrupted names
// the items (by sequence) whose submission is interrupted, a fact no
// request causes: they are left Executing.
func (c *Client) ExecutePayoutBatch(ctx context.Context, batchID string, interrupted ...int) error {
	return c.Call(ctx, http.MethodPost, "/payout-batches/"+batchID+"/execute", map[string]any{"interrupted": append([]int{}, interrupted...)}, nil)
}

// ChangeBeneficiary records a change of a beneficiary after intake.
func (c *Client) ChangeBeneficiary(ctx context.Context, id string) error {
	return c.Call(ctx, http.MethodPost, "/beneficiaries/"+id+"/change", map[string]any{}, nil)
}

// CustomerStatus sets a customer's status as staff would.
func (c *Client) CustomerStatus(ctx context.Context, customerID, status string) error {
	return c.Call(ctx, http.MethodPost, "/customers/"+customerID+"/status", map[string]any{"status": status}, nil)
}

// BeneficiaryDecision records a staff decision on a PendingApproval
// beneficiary: "approved" or "rejected" (with a reason, never returned on v1).
func (c *Client) BeneficiaryDecision(ctx context.Context, id, decision, reason string) error {
	return c.Call(ctx, http.MethodPost, "/beneficiaries/"+id+"/decision", map[string]any{"decision": decision, "reason": reason}, nil)
}

// BankRegistration moves a PROVIDER_B beneficiary's bank registration:
// "Pending", "Registered" or "NeedsReview".
func (c *Client) BankRegistration(ctx context.Context, id, status string) error {
	return c.Call(ctx, http.MethodPost, "/beneficiaries/"+id+"/registration", map[string]any{"status": status}, nil)
}
