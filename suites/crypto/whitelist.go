package crypto

import (
	"net/http"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// entryCount is the number of whitelist entries the customer lists.
func entryCount(t *check.T, rule, customerID string) int {
	d := shape.EnvelopeAnswer(t, get(t, path(customerID, "/withdrawal-addresses")), shape.Want{Rule: rule, Status: http.StatusOK})
	return len(shape.Items(t, rule, d, shape.ListKey(t, rule, d, ""), false))
}

// whitelistChecks are the checks of whitelist.go.
func whitelistChecks() []check.Check {
	return []check.Check{
		{
			ID:     "whitelist/create-pending-and-duplicate",
			Title:  "A whitelist entry starts PendingVerification with rejected_reason null and is listed; a repeat of asset/network/address (asset in another case) is 409 crypto_withdrawal_address_already_exists",
			Rules:  []string{"WLA-001", "WLA-003", "WLA-004", "WLA-005", "WLA-006", "WLA-011", "WLA-012", "WLA-014", "ERR-119", "CUST-022"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant"},
			Run: func(t *check.T) {
				cust, _ := fresh.Customer(t)
				addr := sampleAddress("ETHEREUM")
				body := map[string]any{"asset": "USDT", "network": "ETHEREUM", "address": addr, "label": "Treasury"}
				r := whitelist(t, "tenant", cust, body)
				e := entryOf(fresh.Success(t, "WLA-001", r)) // asset, network, address and label: taken
				id := shape.String(t, "WLA-014", e, "id")
				// The entry starts PendingVerification (WLA-006: as listed),
				// and the create answers it so (WLA-012).
				row := listedEntry(t, "WLA-011", cust, id)
				if row == nil {
					t.Fatalf("WLA-011", "the new entry %s is not listed", id)
				}
				if row["status"] != "PendingVerification" {
					t.Fatalf("WLA-006", "a new whitelist entry is listed with status %v, want PendingVerification", row["status"])
				}
				if st := shape.String(t, "WLA-012", e, "status"); st != "PendingVerification" {
					t.FatalAt(r, "WLA-012", "POST withdrawal-addresses answers status %q, want PendingVerification", st)
				}
				if reason, has := e["rejected_reason"]; !has || reason != nil {
					t.FatalAt(r, "WLA-003", "rejected_reason is %v (present %v) on a PendingVerification entry, want null", reason, has)
				}
				// The same asset/network/address again (WLA-004), then with the
				// asset in another case (reading WLA-005: any asset case).
				dup := whitelist(t, "tenant", cust, body)
				shape.EnvelopeAnswer(t, dup, shape.Want{Rule: "WLA-004", Status: http.StatusConflict, Code: "crypto_withdrawal_address_already_exists"})
				body["asset"] = "usdt"
				dup = whitelist(t, "tenant", cust, body)
				shape.EnvelopeAnswer(t, dup, shape.Want{Rule: "WLA-005", Status: http.StatusConflict, Code: "crypto_withdrawal_address_already_exists"})
				if n := entryCount(t, "WLA-004", cust); n != 1 {
					t.Fatalf("WLA-004", "the customer lists %d entries after the duplicates, want 1", n)
				}
				// A repeat is the same asset, network and address: the address
				// for another asset on the same network is a new entry.
				other := whitelist(t, "tenant", cust, map[string]any{"asset": "USDC", "network": "ETHEREUM", "address": addr, "label": "Treasury USDC"})
				created := http.StatusCreated // or 200, as the first create may answer
				if other.Status == http.StatusOK {
					created = http.StatusOK
				}
				shape.EnvelopeAnswer(t, other, shape.Want{Rule: "WLA-004", Status: created, What: "the USDT entry's address whitelisted for USDC"})
			},
		},
		{
			ID:     "whitelist/required-fields",
			Title:  "A whitelist entry without label, or a USDT entry without network, is refused (400 binding or 422) and creates no entry",
			Rules:  []string{"WLA-001", "WLA-002", "CUST-022"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant"},
			Run: func(t *check.T) {
				cust, _ := fresh.Customer(t)
				for _, b := range []map[string]any{
					{"asset": "BTC", "network": "BITCOIN", "address": sampleAddress("BITCOIN")},
					{"asset": "BTC", "network": "BITCOIN", "address": sampleAddress("BITCOIN"), "label": ""},
					{"asset": "USDT", "address": sampleAddress("ETHEREUM"), "label": "No network"},
				} {
					r := whitelist(t, "tenant", cust, b)
					switch {
					case r.Status == http.StatusBadRequest:
						shape.ProblemAnswer(t, r, shape.Want{Rule: "WLA-002", Status: http.StatusBadRequest})
					case r.Status == http.StatusUnprocessableEntity:
						shape.EnvelopeAnswer(t, r, shape.Want{Rule: "WLA-002", Status: http.StatusUnprocessableEntity})
					case r.Status/100 == 2:
						t.FatalAt(r, "WLA-001", "whitelist body %s was taken (%d): label is required, and network for USDT", jsonText(b), r.Status)
					default:
						t.FatalAt(r, "WLA-002", "whitelist body %s answered %d, want 400 (binding) or 422", jsonText(b), r.Status)
					}
				}
				if n := entryCount(t, "WLA-002", cust); n != 0 {
					t.Fatalf("WLA-002", "refused whitelist bodies created %d entries", n)
				}
				// Network is optional for a single-network asset.
				fresh.Success(t, "WLA-001", whitelist(t, "tenant", cust, map[string]any{"asset": "BTC", "address": sampleAddress("BITCOIN"), "label": "Default network"}))
			},
		},
		{
			ID:     "whitelist/staff-decisions",
			Title:  "Staff approval makes an entry Active (rejected_reason null); a refusal makes it Rejected with rejected_reason; Disabled exists (reason null)",
			Rules:  []string{"WLA-007", "WLA-008", "WLA-009", "WLA-003", "WLA-011", "CUST-022"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.tenant"},
			Run: func(t *check.T) {
				cust, _ := fresh.Customer(t)
				mk := func() string {
					r := whitelist(t, "tenant", cust, map[string]any{"asset": "ETH", "network": "ETHEREUM", "address": sampleAddress("ETHEREUM"), "label": "Desk"})
					return shape.String(t, "WLA-012", entryOf(fresh.Setup(t, "WLA-012", r, "whitelist an address")), "id")
				}
				decide := func(id, decision, reason string) {
					if err := t.Control().WhitelistDecision(t.Context(), id, decision, reason); err != nil {
						t.NoVerdict(err)
					}
				}
				approved, rejected, disabled := mk(), mk(), mk()
				decide(approved, "approve", "")
				decide(rejected, "reject", "Ownership not proven")
				decide(disabled, "disable", "")
				// A slice, not a map: the first failure (and its rule) is the
				// same every run.
				for _, want := range []struct {
					id, rule, status string
					reason           any
				}{
					{approved, "WLA-007", "Active", nil}, {rejected, "WLA-008", "Rejected", "Ownership not proven"}, {disabled, "WLA-009", "Disabled", nil},
				} {
					id := want.id
					row := listedEntry(t, want.rule, cust, id)
					if row == nil {
						t.Fatalf("WLA-011", "entry %s is not in its customer's whitelist list (staff decided %s)", id, want.status)
					}
					if row["status"] != want.status {
						t.Fatalf(want.rule, "entry %s is listed as %v, want status %s", id, row, want.status)
					}
					if reason, has := row["rejected_reason"]; !has || reason != want.reason {
						t.Fatalf("WLA-003", "entry %s (%s) has rejected_reason %v (present %v), want %v", id, want.status, reason, has, want.reason)
					}
				}
			},
		},
		{
			ID:         "whitelist/active-needs-control-and-approval",
			Title:      "A whitelist entry becomes Active only once both hold: staff approval alone, or a deposit from the address alone (or from another address), leaves it PendingVerification; the other fact then makes it Active, in either order",
			Rules:      []string{"WLA-007", "WLA-011", "CUST-022"},
			Labels:     []string{check.Mutating, check.NeedsControl},
			ControlWhy: "the two world facts: a staff approval, and a confirmed inbound deposit from the whitelisted address (the custodian's side)",
			Needs:      []string{"keys.tenant"},
			Run: func(t *check.T) {
				cust := fresh.Activated(t, "WLA-007")
				issued(t, "CRYP-027", cust, "ETH") // receives the verifying deposits
				mk := func() (id, addr string) {
					addr = sampleAddress("ETHEREUM")
					r := whitelist(t, "tenant", cust, map[string]any{"asset": "ETH", "network": "ETHEREUM", "address": addr, "label": "Verify"})
					return shape.String(t, "WLA-012", entryOf(fresh.Setup(t, "WLA-012", r, "whitelist an address")), "id"), addr
				}
				approve := func(id string) {
					if err := t.Control().Call(t.Context(), http.MethodPost, "/crypto/whitelist/"+id, map[string]any{"decision": "staff_approve"}, nil); err != nil {
						t.NoVerdict(err)
					}
				}
				depositFrom := func(source string) {
					if err := t.Control().Call(t.Context(), http.MethodPost, "/crypto/deposits/"+cust, map[string]any{"asset": "ETH", "amount_atomic": "1000", "source_address": source}, nil); err != nil {
						t.NoVerdict(err)
					}
				}
				status := func(id, when, want string) {
					row := listedEntry(t, "WLA-007", cust, id)
					if row == nil {
						t.Fatalf("WLA-011", "entry %s %s is not in its customer's whitelist list", id, when)
					}
					if row["status"] != want {
						t.Fatalf("WLA-007", "entry %s %s is listed as %v, want status %s", id, when, row, want)
					}
				}
				first, firstAddr := mk()
				approve(first)
				status(first, "approved by staff, control of its address never verified", "PendingVerification")
				depositFrom(sampleAddress("ETHEREUM"))
				status(first, "approved, after a deposit from another address", "PendingVerification")
				depositFrom(firstAddr)
				status(first, "approved, after a confirmed deposit from its address", "Active")
				second, secondAddr := mk()
				depositFrom(secondAddr)
				status(second, "after a confirmed deposit from its address, not approved by staff", "PendingVerification")
				approve(second)
				status(second, "control verified, then approved by staff", "Active")
			},
		},
		{
			ID:     "whitelist/no-api-approval",
			Title:  "No API route approves a whitelist entry: PATCH of the entry and POST .../approve are refused and the entry stays PendingVerification",
			Rules:  []string{"WLA-010", "WLA-011", "CUST-022"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant"},
			Run: func(t *check.T) {
				cust, _ := fresh.Customer(t)
				r := whitelist(t, "tenant", cust, map[string]any{"asset": "BTC", "network": "BITCOIN", "address": sampleAddress("BITCOIN"), "label": "Cold"})
				id := shape.String(t, "WLA-012", entryOf(fresh.Setup(t, "WLA-012", r, "whitelist an address")), "id")
				base := path(cust, "/withdrawal-addresses/"+id)
				for _, req := range []client.Request{
					{Method: http.MethodPatch, Path: base, JSON: map[string]any{"status": "Active"}, IdempotencyKey: t.NewKey()},
					{Method: http.MethodPost, Path: base + "/approve", JSON: map[string]any{}, IdempotencyKey: t.NewKey()},
					{Method: http.MethodPut, Path: base, JSON: map[string]any{"status": "Active"}, IdempotencyKey: t.NewKey()},
				} {
					resp := t.Do(t.Client("tenant"), req)
					if resp.Status/100 == 2 {
						t.FatalAt(resp, "WLA-010", "%s %s answered %d: no API route approves a whitelist entry", req.Method, req.Path, resp.Status)
					}
				}
				row := listedEntry(t, "WLA-010", cust, id)
				if row == nil {
					t.Fatalf("WLA-011", "entry %s is not in its customer's whitelist list", id)
				}
				if row["status"] != "PendingVerification" {
					t.Fatalf("WLA-010", "after the attempts the entry is %v, want PendingVerification", row)
				}
			},
		},
		{
			ID:     "whitelist/own-or-direct-child",
			Title:  "A parent-bound key whitelists addresses for its own id and for its direct end customer's id",
			Rules:  []string{"WLA-013"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.subject", "customers.parent", "customers.child"},
			Run: func(t *check.T) {
				for _, who := range []string{"parent", "child"} {
					r := whitelist(t, "subject", t.Customer(who), map[string]any{"asset": "BTC", "network": "BITCOIN", "address": sampleAddress("BITCOIN"), "label": "TS " + who})
					e := entryOf(fresh.Success(t, "WLA-013", r))
					if e["status"] != "PendingVerification" {
						t.FatalAt(r, "WLA-013", "the %s's entry has status %v, want PendingVerification", who, e["status"])
					}
				}
			},
		},
	}
}
