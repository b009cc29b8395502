package ratelimit

import (
	"strconv"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/fresh"
)

// Payout batch create (document 1, Endpoints / Payout batches) lists 429
// rate_limited among its refusals: its route template has the same
// 600-per-minute budget as every other. The burst reuses one
// Idempotency-Key and body, so it creates one batch and replays it 599
// times: a replay reaches the rate limits (step 4) before the idempotency
// store answers, and so consumes budget like any request (RATE-009). The
// first create completes before the replays start: a replay that arrives
// while the original still executes is rightly 409
// idempotency_key_in_progress, not a rate-limit refusal.

func payoutbatchesChecks() []check.Check {
	return []check.Check{
		{
			ID:     "ratelimit/payout-batch-create-budget",
			Title:  "POST payout-batches shares the 600-per-minute route budget: 600 creates (one batch, replayed) pass, the 601st is 429 rate_limited",
			Rules:  []string{"PB-098", "RATE-004"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant", "customers.active_personal", "beneficiaries.gbp"},
			Budget: &check.Budget{Routes: []string{route("tenant", "POST", api.P+"/customers/{id}/payout-batches")}, Tenant: 601 + overflowProbe},
			Run: func(t *check.T) {
				clk := t.Clock()
				c := t.Client("tenant")
				clk.Clear(2 * burstNeed)
				body := map[string]any{"currency": "GBP", "items": []any{fresh.BatchItem(t.Beneficiary("gbp"), 100, "Rent")}}
				create := client.Request{Method: "POST", Path: fresh.BatchesPath(t.Customer("active_personal")), JSON: body, IdempotencyKey: t.NewKey()}
				first := t.Do(c, create)
				allPass(t, "PB-098", []*client.Response{first}, "first POST payout-batches")
				rs := fire(t, repeat(c, create, routeBudget-1))
				create.IdempotencyKey = t.NewKey()
				last := t.Do(c, create)
				sameMinute(t, clk, "the 600 creates and the 601st", first, last)
				allPass(t, "PB-098", rs, create.Method+" "+create.Path+" replayed x"+strconv.Itoa(routeBudget-1))
				// The probes replay the 601st (its key and body): a replay
				// creates nothing.
				limitedOr(t, clk, "PB-098", last, "601st POST payout-batches", c, create)
			},
		},
	}
}
