package control

import (
	"context"
	"net/http"
)

// InternalTransfers calls an internal-transfers control operation
// ("capability", "eligibility", "limit", "origin", "legacy-decision") with
// its JSON body (fixtures/sandbox/internaltransfers.go documents each).
func (c *Client) InternalTransfers(ctx context.Context, op string, body map[string]any) error {
	return c.Call(ctx, http.MethodPost, "/internal-transfers/"+op, body, nil)
}
