package payoutbatches

import (
	"bytes"
	"net/http"
	"time"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// Batch idempotency (document 1, Endpoints / Payout batches, Create
// errors): byte-for-byte replay within 24 hours; after 24 hours the retry
// finds the batch by key and returns its current state.

func replayChecks() []check.Check {
	return []check.Check{
		{
			ID:     "payoutbatches/replay-within-24h",
			Title:  "An identical payout-batch retry within 24 hours replays the first response byte for byte; the same key with another body is 409 idempotency_key_reused",
			Rules:  []string{"PB-099", "PB-091"},
			Labels: []string{check.Mutating},
			Needs:  needs,
			Run: func(t *check.T) {
				c, key := t.Client("tenant"), t.NewKey()
				req := client.Request{Method: http.MethodPost, Path: fresh.BatchesPath(t.Customer("active_personal")), IdempotencyKey: key,
					JSON: map[string]any{"currency": "GBP", "items": []any{fresh.BatchItem(t.Beneficiary("gbp"), 4200, "Replay me")}}}
				first := t.Do(c, req)
				b1, _ := shape.EnvelopeAnswer(t, first, shape.Want{Rule: "PB-099", Status: http.StatusOK})["payout_batch"].(map[string]any)
				id := shape.String(t, "PB-099", b1, "id")
				second := t.Do(c, req)
				if second.Status != first.Status || !bytes.Equal(second.Body, first.Body) {
					t.FatalAt(second, "PB-099", "the retry answered %d with a different body than the first attempt (%d)", second.Status, first.Status)
				}
				// The replay created nothing: the batch reads back as created.
				if got := shape.String(t, "PB-099", fresh.ReadBatch(t, "PB-099", id), "id"); got != id {
					t.Fatalf("PB-099", "batch %s reads back as %s", id, got)
				}
				// The same key with another body is a conflict, not a batch.
				req.JSON = map[string]any{"currency": "GBP", "items": []any{fresh.BatchItem(t.Beneficiary("gbp"), 4201, "Replay me")}}
				shape.ProblemAnswer(t, t.Do(c, req), shape.Want{Rule: "PB-091", Status: http.StatusConflict, Code: "idempotency_key_reused"})
			},
		},
		{
			ID:     "payoutbatches/retry-after-24h",
			Alone:  check.WithControl,
			Title:  "An identical retry after 24 hours returns the same batch in its current state with message 'Payout batch retrieved successfully'",
			Rules:  []string{"PB-100"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  needs,
			Run: func(t *check.T) {
				t.NeedVirtualClock()
				c, key := t.Client("tenant"), t.NewKey()
				req := client.Request{Method: http.MethodPost, Path: fresh.BatchesPath(t.Customer("active_personal")), IdempotencyKey: key,
					JSON: map[string]any{"currency": "GBP", "items": []any{fresh.BatchItem(t.Beneficiary("gbp"), 4300, "Late retry")}}}
				first := t.Do(c, req)
				b1, _ := shape.EnvelopeAnswer(t, first, shape.Want{Rule: "PB-100", Status: http.StatusOK})["payout_batch"].(map[string]any)
				id := shape.String(t, "PB-100", b1, "id")
				// Move the batch on so that "current state" is observable.
				if err := fresh.BatchAction(t, id, "submit", "ops-alice"); err != nil {
					t.NoVerdict(err)
				}
				if _, err := t.Control().Advance(t.Context(), 24*time.Hour+time.Minute); err != nil {
					t.NoVerdict(err)
				}
				second := t.Do(c, req)
				data := shape.EnvelopeAnswer(t, second, shape.Want{Rule: "PB-100", Status: http.StatusOK})
				if m := shape.Object(t, "PB-100", second)["message"]; m != "Payout batch retrieved successfully" {
					t.ErrorAt(second, "PB-100", "message %v, want 'Payout batch retrieved successfully'", m)
				}
				b2, _ := data["payout_batch"].(map[string]any)
				if got := shape.String(t, "PB-100", b2, "id"); got != id {
					t.FatalAt(second, "PB-100", "the retry after 24 hours answered batch %s, want the original %s (a new batch was created)", got, id)
				}
				if got := shape.String(t, "PB-100", b2, "status"); got != "PendingApproval" {
					t.ErrorAt(second, "PB-100", "the retry after 24 hours shows status %s, want the current PendingApproval", got)
				}
			},
		},
	}
}
