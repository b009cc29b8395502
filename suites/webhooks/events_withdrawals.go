package webhooks

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// Fiat withdrawal events produced by the bank's outcomes (document 2,
// Events: Event types and emitting outcomes; Payload fields /
// withdrawal.completed).

func eventsWithdrawalsChecks() []check.Check {
	return []check.Check{
		{
			ID:     "webhooks/event-fiat-withdrawal-completed-and-returned",
			Title:  "A completed fiat withdrawal emits withdrawal.completed with the documented fiat payload; a bank return emits withdrawal.returned, balance adjusted, with the reversing entry",
			Rules:  []string{"EVT-113", "EVT-114", "EVT-115", "EVT-116", "EVT-117", "EVT-118", "EVT-119", "EVT-120", "EVT-121", "EVT-122", "EVT-059", "FWD-010", "FWD-014", "EVT-125", "WHM-003"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.tenant", "customers.active_personal", "beneficiaries.gbp", "webhook_url"},
			Run: func(t *check.T) {
				in, subID, stop := listen(t, "tenant", "withdrawal.completed", "withdrawal.returned")
				defer stop()
				cust := t.Customer("active_personal")
				ctl := t.Control()
				if err := ctl.CustomerFee(t.Context(), cust, 40); err != nil {
					t.Fatalf("EVT-118", "control: fee: %v", err)
				}
				defer func() { _ = ctl.CustomerFee(t.Context(), cust, -1) }()
				r := t.Do(t.Client("tenant"), client.Request{Method: http.MethodPost, Path: api.Customer(cust) + "/banking/withdrawals", IdempotencyKey: t.NewKey(),
					JSON: map[string]any{"beneficiary_id": t.Beneficiary("gbp"), "currency": "GBP", "amount": 1234, "rail": "FPS", "description": "TS event"}})
				id := shape.String(t, "FWD-006", fresh.Setup(t, "FWD-018", r, "submit a fiat withdrawal"), "withdrawal.id")
				if err := ctl.WithdrawalOutcome(t.Context(), id, "Completed"); err != nil {
					t.Fatalf("FWD-010", "control: complete: %v", err)
				}
				in.await(subID, 1)
				var env map[string]any
				for _, rec := range forSub(in.records(), subID) {
					if e := envelopeOf(t, "EVT-006", rec); rec.EventType == "withdrawal.completed" && e["id"] == id {
						verified(t, rec, "withdrawal.completed delivery")
						env = e
					}
				}
				if env == nil {
					t.Fatalf("FWD-010", "no withdrawal.completed delivery for the completed withdrawal %s", id)
				}
				d, _ := env["data"].(map[string]any)
				for _, k := range []string{"customer_id", "tenant_id", "withdrawal_id", "type", "amount_minor", "currency", "status", "fee_minor", "provider_transaction_id",
					"completed_at", "beneficiary_id", "beneficiary_iban_masked", "beneficiary_name", "asset_code", "destination_address_masked", "blockchain_tx_hash"} {
					if _, ok := d[k]; !ok {
						t.Errorf("EVT-113", "withdrawal.completed data lacks %s: %v", k, d)
					}
				}
				want := map[string]struct {
					rule string
					v    any
				}{
					"type": {"EVT-114", "fiat"}, "amount_minor": {"EVT-115", 1234}, "currency": {"EVT-116", "GBP"}, "status": {"EVT-117", "completed"},
					"fee_minor": {"EVT-118", 40}, "beneficiary_name": {"EVT-121", nil}, "asset_code": {"EVT-122", nil},
					"customer_id": {"EVT-113", cust}, "withdrawal_id": {"EVT-113", id}, "beneficiary_id": {"EVT-113", t.Beneficiary("gbp")},
				}
				for _, k := range slices.Sorted(maps.Keys(want)) {
					w := want[k]
					if _, has := d[k]; !has {
						continue // absent: EVT-113 above
					}
					if fmt.Sprint(d[k]) != fmt.Sprint(w.v) {
						t.Errorf(w.rule, "withdrawal.completed data.%s is %v, want %v", k, d[k], w.v)
					}
				}
				ben := fresh.Success(t, "EVT-125", t.Do(t.Client("tenant"), client.Request{Method: http.MethodGet, Path: fresh.Beneficiaries(cust) + "/" + t.Beneficiary("gbp")}))
				full, _ := shape.Get(ben, "beneficiary.account_number")
				if iban, _ := shape.Get(ben, "beneficiary.iban"); iban != nil {
					full = iban
				}
				masked, isString := d["beneficiary_iban_masked"].(string)
				if d["beneficiary_iban_masked"] != nil && (!isString || (full != nil && full != "" && strings.Contains(masked, fmt.Sprint(full)))) {
					t.Errorf("EVT-125", "beneficiary_iban_masked is %v: want null or a masked string that never shows the full account identifier", d["beneficiary_iban_masked"])
				}
				if p, _ := d["provider_transaction_id"].(string); p == "" {
					t.Errorf("EVT-119", "withdrawal.completed data.provider_transaction_id is %v, want the provider reference or the withdrawal id", d["provider_transaction_id"])
				}
				if d["completed_at"] != env["occurred_at"] {
					t.Errorf("EVT-120", "data.completed_at %v differs from occurred_at %v", d["completed_at"], env["occurred_at"])
				}
				if err := ctl.WithdrawalOutcome(t.Context(), id, "Returned"); err != nil {
					t.Fatalf("FWD-014", "control: return: %v", err)
				}
				in.await(subID, 2)
				ret := one(t, "FWD-014", in.events(subID, "withdrawal.returned", id), "withdrawal.returned of the returned withdrawal")
				if ret["balance_adjusted"] != true {
					t.Errorf("EVT-059", "withdrawal.returned data.balance_adjusted is %v, want true", ret["balance_adjusted"])
				}
				if l, _ := ret["ledger_transaction_id"].(string); l == "" {
					t.Errorf("EVT-059", "withdrawal.returned data.ledger_transaction_id is %v, want the reversing entry", ret["ledger_transaction_id"])
				}
			},
		},
	}
}
