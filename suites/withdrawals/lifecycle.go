package withdrawals

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"

	"github.com/google/uuid"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// list reads one page of a customer's fiat withdrawals.
func list(t *check.T, customerID, query string) *client.Response {
	return t.Do(t.Client("tenant"), client.Request{Method: http.MethodGet, Path: api.Customer(customerID) + "/banking/withdrawals" + query})
}

// submitted makes a withdrawal that must be taken (setup under rule) and
// returns data.withdrawal.
func submitted(t *check.T, rule, customerID string, b map[string]any) map[string]any {
	d := fresh.Setup(t, rule, withdraw(t, customerID, b), "submit a fiat withdrawal")
	w, _ := d["withdrawal"].(map[string]any)
	if w == nil {
		t.Fatalf(rule, "the withdrawal answer has no data.withdrawal object: %v", d)
	}
	return w
}

// withdrawals is a customer's fiat withdrawal list, read with the tenant key.
func withdrawals(t *check.T, customerID string) shape.Seek {
	return shape.Seek{Client: t.Client("tenant"), Path: api.Customer(customerID) + "/banking/withdrawals", Items: "withdrawals"}
}

// listed finds withdrawal id, made by the check, near the front of the
// customer's list (newest first) and returns the row, or nil.
func listed(t *check.T, rule, customerID, id string) map[string]any {
	if row, ok := withdrawals(t, customerID).Find(t, rule, id); ok {
		return row.Raw
	}
	return nil
}

// statusInList asserts the listed status of withdrawal id.
func statusInList(t *check.T, rule, customerID, id, want string) {
	row := listed(t, rule, customerID, id)
	if row == nil {
		t.Fatalf(rule, "withdrawal %s is not in its customer's list", id)
	}
	if row["status"] != want {
		t.Fatalf(rule, "withdrawal %s is listed with status %v, want %s", id, row["status"], want)
	}
}

func outcome(t *check.T, rule, id, status string) {
	if err := t.Control().WithdrawalOutcome(t.Context(), id, status); err != nil {
		t.Fatalf(rule, "control: withdrawal outcome %s: %v", status, err)
	}
}

// lifecycleChecks are the checks of lifecycle.go.
func lifecycleChecks() []check.Check {
	return slices.Concat(
		withdrawalListChecks(),
		withdrawalRetryChecks(),
		withdrawalOutcomeChecks(),
		withdrawalRefusalChecks(),
		transparencyWhenPolicyDemandsChecks(),
		sourceAccountRefusalsChecks(),
	)
}

// withdrawalListChecks are the withdrawals list: paged, and a child's own only.
func withdrawalListChecks() []check.Check {
	return []check.Check{
		{
			ID:     "withdrawals/list-paged",
			Title:  "GET .../banking/withdrawals pages with limit and page and answers data.withdrawals and data.pagination; a new withdrawal is listed",
			Rules:  []string{"FWD-016", "PAGE-021", "FWD-018", "FWD-006"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant", "customers.active_personal", "beneficiaries.gbp"},
			Run: func(t *check.T) {
				cust := t.Customer("active_personal")
				w := submitted(t, "FWD-018", cust, body(t.Beneficiary("gbp"), "GBP", 101))
				d := shape.EnvelopeAnswer(t, list(t, cust, "?page=1&limit=1"), shape.Want{Rule: "FWD-016", Status: http.StatusOK})
				pg := shape.Pagination(t, "PAGE-021", d)
				items := shape.Items(t, "FWD-016", d, "withdrawals", false)
				if pg.PerPage != 1 || len(items) != 1 || pg.Total < 1 {
					t.Fatalf("FWD-016", "limit=1: per_page %d, %d rows, total %d; want per_page 1, one row, total ≥ 1", pg.PerPage, len(items), pg.Total)
				}
				if listed(t, "FWD-016", cust, shape.String(t, "FWD-006", w, "id")) == nil {
					t.Fatalf("FWD-016", "the new withdrawal %v is not in the list", w["id"])
				}
			},
		},
		{
			ID:     "withdrawals/child-list-own-only",
			Title:  "A child's withdrawal is in the child's withdrawals list and not in the parent's",
			Rules:  []string{"FWD-017", "FWD-006", "FWD-008"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant", "customers.parent", "customers.child", "beneficiaries.child_gbp"},
			Run: func(t *check.T) {
				child, parent := t.Customer("child"), withdrawals(t, t.Customer("parent"))
				mark := parent.Mark(t, "FWD-017") // the child's withdrawal, if listed there, is newer
				w := submitted(t, "FWD-008", child, body(t.Beneficiary("child_gbp"), "GBP", 102))
				id := shape.String(t, "FWD-006", w, "id")
				if listed(t, "FWD-017", child, id) == nil {
					t.Fatalf("FWD-017", "the child's withdrawal %s is not in the child's list", id)
				}
				for _, it := range parent.Newer(t, "FWD-017", mark) {
					if it.ID == id {
						t.Fatalf("FWD-017", "the child's withdrawal %s is in the parent's list", id)
					}
				}
			},
		},
	}
}

// withdrawalRetryChecks are retries: a replay never pays twice and is not a
// status read.
func withdrawalRetryChecks() []check.Check {
	return []check.Check{
		{
			ID:     "withdrawals/retry-replays-never-pays-twice",
			Title:  "A retry with the same Idempotency-Key and body replays the original answer byte for byte and the list holds one withdrawal",
			Rules:  []string{"FWD-019", "FWD-016", "FWD-018"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant", "customers.active_personal", "beneficiaries.gbp"},
			Run: func(t *check.T) {
				cust := t.Customer("active_personal")
				mark := withdrawals(t, cust).Mark(t, "FWD-016")
				b := body(t.Beneficiary("gbp"), "GBP", 103)
				req := client.Request{Method: http.MethodPost, Path: api.Customer(cust) + "/banking/withdrawals", JSON: b, IdempotencyKey: t.NewKey()}
				first := t.Do(t.Client("tenant"), req)
				d := fresh.Setup(t, "FWD-018", first, "submit a fiat withdrawal")
				again := t.Do(t.Client("tenant"), req)
				shape.SameResponse(t, "FWD-019", first, again, "the original withdrawal answer and its retry")
				n := 0
				for _, it := range withdrawals(t, cust).Newer(t, "FWD-016", mark) {
					if it.Raw["description"] == b["description"] {
						n++
					}
				}
				if n != 1 {
					t.Fatalf("FWD-019", "%d withdrawals carry the retried description %q, want 1 (data %v)", n, b["description"], d)
				}
			},
		},
		{
			ID:     "withdrawals/retry-is-not-a-status-read",
			Title:  "After the bank completes a withdrawal, a retry of its request still answers the stored PendingProvider; the list shows Completed",
			Rules:  []string{"FWD-020", "FWD-009", "FWD-010", "FWD-006", "FWD-018"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.tenant", "customers.active_personal", "beneficiaries.gbp"},
			Run: func(t *check.T) {
				cust := t.Customer("active_personal")
				req := client.Request{Method: http.MethodPost, Path: api.Customer(cust) + "/banking/withdrawals", JSON: body(t.Beneficiary("gbp"), "GBP", 104), IdempotencyKey: t.NewKey()}
				first := t.Do(t.Client("tenant"), req)
				w := answered(t, first)
				id := shape.String(t, "FWD-006", w, "id")
				if st := shape.String(t, "FWD-006", w, "status"); st != "PendingProvider" {
					t.FatalAt(first, "FWD-009", "a withdrawal submitted to the bank has status %q, want PendingProvider", st)
				}
				outcome(t, "FWD-010", id, "Completed")
				statusInList(t, "FWD-010", cust, id, "Completed")
				again := t.Do(t.Client("tenant"), req)
				shape.SameResponse(t, "FWD-020", first, again, "the original answer and a retry after completion")
			},
		},
	}
}

// withdrawalOutcomeChecks are the outcomes a withdrawal reaches: failed,
// review, and a 200 that carries Failed.
func withdrawalOutcomeChecks() []check.Check {
	return []check.Check{
		{
			ID:     "withdrawals/failed-and-review-outcomes",
			Alone:  check.WithControl,
			Title:  "A bank failure lists the withdrawal Failed and gives the reserved funds back; ManualReview is unfinished and can still complete",
			Rules:  []string{"FWD-011", "FWD-012", "FWD-013", "FWD-018", "FWD-006"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.tenant", "customers.parent", "customers.child", "beneficiaries.child_gbp"},
			Run: func(t *check.T) {
				child, ben := t.Customer("child"), t.Beneficiary("child_gbp")
				if err := t.Control().SetFunds(t.Context(), child, "GBP", 1_000); err != nil {
					t.Fatalf("FWD-011", "control: set funds: %v", err)
				}
				defer func() { _ = t.Control().SetFunds(t.Context(), child, "GBP", 125_000) }()
				w := submitted(t, "FWD-018", child, body(ben, "GBP", 1_000))
				id := shape.String(t, "FWD-006", w, "id")
				outcome(t, "FWD-011", id, "Failed")
				statusInList(t, "FWD-011", child, id, "Failed")
				// The failed payment took nothing: the same amount can be paid again.
				w = submitted(t, "FWD-011", child, body(ben, "GBP", 1_000))
				id = shape.String(t, "FWD-006", w, "id")
				outcome(t, "FWD-012", id, "ManualReview")
				statusInList(t, "FWD-012", child, id, "ManualReview")
				outcome(t, "FWD-013", id, "Completed")
				statusInList(t, "FWD-013", child, id, "Completed")
			},
		},
		{
			ID:     "withdrawals/200-carries-failed",
			Title:  "A GBP BACS withdrawal to a PROVIDER_B beneficiary answers 200 with data.withdrawal.status Failed",
			Rules:  []string{"FWD-007"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant", "customers.active_personal", "beneficiaries.gbp_provider_b"},
			Run: func(t *check.T) {
				b := body(t.Beneficiary("gbp_provider_b"), "GBP", 105)
				b["rail"] = "BACS"
				r := withdraw(t, t.Customer("active_personal"), b)
				d := shape.EnvelopeAnswer(t, r, shape.Want{Rule: "FWD-007", Status: http.StatusOK})
				if st := shape.String(t, "FWD-007", d, "withdrawal.status"); st != "Failed" {
					t.FatalAt(r, "FWD-007", "a BACS payment PROVIDER_B cannot make has status %q, want Failed", st)
				}
			},
		},
	}
}

// withdrawalRefusalChecks are who pays and who refuses: a child's own funds
// plus its fee, the parent's controls and the refusal codes.
func withdrawalRefusalChecks() []check.Check {
	return []check.Check{
		{
			ID:     "withdrawals/child-own-funds-plus-fee",
			Alone:  check.WithControl,
			Title:  "A child's withdrawal needs its own Available to cover amount plus its effective fee; the parent's balance is no fallback",
			Rules:  []string{"FWD-008", "FEE-004", "FWD-023", "ERR-096"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.tenant", "customers.parent", "customers.child", "beneficiaries.child_gbp"},
			Run: func(t *check.T) {
				child, ben := t.Customer("child"), t.Beneficiary("child_gbp")
				ctl := t.Control()
				if err := ctl.CustomerFee(t.Context(), child, 250); err != nil {
					t.Fatalf("FWD-008", "control: fee: %v", err)
				}
				defer func() { _ = ctl.CustomerFee(t.Context(), child, -1) }()
				if err := ctl.SetFunds(t.Context(), child, "GBP", 10_000); err != nil {
					t.Fatalf("FWD-008", "control: set funds: %v", err)
				}
				defer func() { _ = ctl.SetFunds(t.Context(), child, "GBP", 125_000) }()
				fr := t.Do(t.Client("tenant"), client.Request{Method: http.MethodGet, Path: api.Customer(child) + "/fees"})
				// The read's members are not shown (FEE-002): the child's own
				// effective fee, 250, must be among its values whatever it is
				// called.
				if fees := shape.EnvelopeAnswer(t, fr, shape.Want{Rule: "FEE-004", Status: http.StatusOK}); !holdsInteger(fees, 250) {
					t.ErrorAt(fr, "FEE-004", "the child's fee read does not carry its effective fee 250 (its own, set on the child): %v", fees)
				}
				r := withdraw(t, child, body(ben, "GBP", 9_751))
				refused(t, "FWD-008", r, "a child withdrawal of 9751 with a fee of 250 from 10000 Available (the parent holds plenty)")
				refused(t, "FWD-023", r, "a withdrawal its funds do not cover")
				if m, err := r.JSON(); err == nil {
					if code, _ := shape.Get(m, "data.code"); code == "fiat_withdrawal_failed" && r.Status != http.StatusConflict {
						t.FatalAt(r, "ERR-096", "fiat_withdrawal_failed answered with status %d, want 409", r.Status)
					}
				}
				r = withdraw(t, child, body(ben, "GBP", 9_750))
				shape.EnvelopeAnswer(t, r, shape.Want{Rule: "FEE-004", Status: http.StatusOK})
			},
		},
		{
			ID:     "withdrawals/parent-controls",
			Alone:  check.WithControl,
			Title:  "A child's withdrawal while its parent is not Active is 409 parent_not_active; while the parent's compliance cannot be read, 503 parent_compliance_unavailable",
			Rules:  []string{"ERR-097", "ERR-100"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.tenant", "customers.parent", "customers.child", "beneficiaries.child_gbp"},
			Run: func(t *check.T) {
				child, parent, ben := t.Customer("child"), t.Customer("parent"), t.Beneficiary("child_gbp")
				ctl := t.Control()
				if err := ctl.ParentCompliance(t.Context(), parent, false); err != nil {
					t.Fatalf("ERR-100", "control: parent compliance: %v", err)
				}
				r := withdraw(t, child, body(ben, "GBP", 106))
				_ = ctl.ParentCompliance(t.Context(), parent, true)
				shape.EnvelopeAnswer(t, r, shape.Want{Rule: "ERR-100", Status: http.StatusServiceUnavailable, Code: "parent_compliance_unavailable"})
				if err := ctl.CustomerStatus(t.Context(), parent, "Suspended"); err != nil {
					t.Fatalf("ERR-097", "control: parent status: %v", err)
				}
				r = withdraw(t, child, body(ben, "GBP", 107))
				if err := ctl.CustomerStatus(t.Context(), parent, "Active"); err != nil {
					t.Fatalf("ERR-097", "control: restore parent status: %v", err)
				}
				shape.EnvelopeAnswer(t, r, shape.Want{Rule: "ERR-097", Status: http.StatusConflict, Code: "parent_not_active"})
				// Controls lifted, the same child pays again.
				shape.EnvelopeAnswer(t, withdraw(t, child, body(ben, "GBP", 108)), shape.Want{Rule: "ERR-097", Status: http.StatusOK})
			},
		},
		{
			ID:     "withdrawals/refusal-codes",
			Title:  "Fiat withdrawal refusals: unsupported_currency, beneficiary_not_found, beneficiary_currency_mismatch, unsupported_rail, rail_not_supported_by_beneficiary, invalid_payment_reference (422), beneficiary_not_ready (409)",
			Rules:  []string{"ERR-083", "ERR-085", "ERR-086", "ERR-087", "ERR-088", "ERR-089", "ERR-090", "FWD-002", "FWD-021", "FWD-001"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant", "customers.active_personal", "beneficiaries.gbp", "beneficiaries.gbp_provisioning"},
			Run: func(t *check.T) {
				cust, gbp := t.Customer("active_personal"), t.Beneficiary("gbp")
				with := func(k string, v any) map[string]any { b := body(gbp, "GBP", 109); b[k] = v; return b }
				shape.EnvelopeAnswer(t, withdraw(t, cust, with("currency", "XTS")), shape.Want{Rule: "ERR-083", Status: http.StatusUnprocessableEntity, Code: "unsupported_currency"})
				r := withdraw(t, cust, with("beneficiary_id", uuid.NewString()))
				refused(t, "FWD-001", r, "a withdrawal to no registered beneficiary")
				shape.EnvelopeAnswer(t, r, shape.Want{Rule: "ERR-085", Status: http.StatusUnprocessableEntity, Code: "beneficiary_not_found"})
				shape.EnvelopeAnswer(t, withdraw(t, cust, with("currency", "EUR")), shape.Want{Rule: "ERR-086", Status: http.StatusUnprocessableEntity, Code: "beneficiary_currency_mismatch"})
				shape.EnvelopeAnswer(t, withdraw(t, cust, with("rail", "CARRIER_PIGEON")), shape.Want{Rule: "ERR-087", Status: http.StatusUnprocessableEntity, Code: "unsupported_rail"})
				shape.EnvelopeAnswer(t, withdraw(t, cust, with("rail", "SCT")), shape.Want{Rule: "ERR-088", Status: http.StatusUnprocessableEntity, Code: "rail_not_supported_by_beneficiary"})
				long := ""
				for len(long) <= 140 {
					long += "Ref" + strconv.Itoa(len(long))
				}
				shape.EnvelopeAnswer(t, withdraw(t, cust, with("description", long)), shape.Want{Rule: "FWD-021", Status: http.StatusUnprocessableEntity, Code: "invalid_payment_reference"})
				shape.EnvelopeAnswer(t, withdraw(t, cust, with("description", "line\nbreak")), shape.Want{Rule: "ERR-089", Status: http.StatusUnprocessableEntity, Code: "invalid_payment_reference"})
				shape.EnvelopeAnswer(t, withdraw(t, cust, body(t.Beneficiary("gbp_provisioning"), "GBP", 110)), shape.Want{Rule: "ERR-090", Status: http.StatusConflict, Code: "beneficiary_not_ready"})
				// beneficiary_id is a uuid: another string is refused.
				refused(t, "FWD-002", withdraw(t, cust, with("beneficiary_id", "beneficiary-gbp")), "a withdrawal whose beneficiary_id is not a uuid")
				// The documented body with a camelCase transparency object is taken.
				tb := with("transparency", map[string]any{"purposeCode": "SUPP", "ultimateBeneficiaryName": "Grace Payee"})
				shape.EnvelopeAnswer(t, withdraw(t, cust, tb), shape.Want{Rule: "FWD-002", Status: http.StatusOK})
			},
		},
	}
}

// transparencyWhenPolicyDemandsChecks returns check
// withdrawals/transparency-when-policy-demands (one of lifecycleChecks).
func transparencyWhenPolicyDemandsChecks() []check.Check {
	return []check.Check{
		{
			ID:     "withdrawals/transparency-when-policy-demands",
			Alone:  check.WithControl,
			Title:  "With a disclosure policy that demands it, a withdrawal without transparency is refused and the same body with a camelCase transparency object is taken",
			Rules:  []string{"FWD-005", "FWD-022"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.tenant", "customers.active_personal", "beneficiaries.gbp"},
			Run: func(t *check.T) {
				cust := t.Customer("active_personal")
				if err := t.Control().Disclosure(t.Context(), cust, true); err != nil {
					t.Fatalf("FWD-005", "control: disclosure: %v", err)
				}
				defer func() { _ = t.Control().Disclosure(t.Context(), cust, false) }()
				b := body(t.Beneficiary("gbp"), "GBP", 111)
				refused(t, "FWD-005", withdraw(t, cust, b), "a withdrawal without the transparency object its customer's policy demands")
				b["transparency"] = map[string]any{"purposeCode": "SUPP", "ultimateBeneficiaryName": "Grace Payee"}
				shape.EnvelopeAnswer(t, withdraw(t, cust, b), shape.Want{Rule: "FWD-022", Status: http.StatusOK})
			},
		},
	}
}

// sourceAccountRefusalsChecks returns check
// withdrawals/source-account-refusals (one of lifecycleChecks).
func sourceAccountRefusalsChecks() []check.Check {
	return []check.Check{
		{
			ID:     "withdrawals/source-account-refusals",
			Alone:  check.WithControl,
			Title:  "A source account not ready, client-money blocked, without its pot or missing prerequisites refuses the withdrawal with its 409 code",
			Rules:  []string{"ERR-092", "ERR-093", "ERR-094", "ERR-095"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.tenant", "customers.active_personal", "beneficiaries.eur"},
			Run: func(t *check.T) {
				cust := t.Customer("active_personal")
				defer func() { _ = t.Control().SourceAccount(t.Context(), cust, "EUR", "") }()
				// In a fixed order: a map's would make the first refusal to
				// fail vary from run to run.
				for _, rc := range [][2]string{
					{"ERR-092", "source_account_not_ready"}, {"ERR-093", "withdrawal_client_money_blocked"},
					{"ERR-094", "source_account_pot_missing"}, {"ERR-095", "fiat_withdrawal_prerequisites_missing"},
				} {
					rule, code := rc[0], rc[1]
					if err := t.Control().SourceAccount(t.Context(), cust, "EUR", code); err != nil {
						t.Fatalf(rule, "control: source account: %v", err)
					}
					b := body(t.Beneficiary("eur"), "EUR", 112)
					b["rail"] = "SCT"
					shape.EnvelopeAnswer(t, withdraw(t, cust, b), shape.Want{Rule: rule, Status: http.StatusConflict, Code: code})
				}
			},
		},
	}
}

// holdsInteger tells whether n is one of v's values at any depth (a JSON
// number or a decimal string).
func holdsInteger(v any, n int64) bool {
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			if holdsInteger(e, n) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if holdsInteger(e, n) {
				return true
			}
		}
	case json.Number:
		return x.String() == strconv.FormatInt(n, 10)
	case float64:
		return x == float64(n)
	case string:
		return x == strconv.FormatInt(n, 10)
	}
	return false
}
