package crypto

import (
	"math/big"
	"net/http"

	"github.com/google/uuid"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// depositsChecks are the checks of deposits.go.
func depositsChecks() []check.Check {
	return []check.Check{
		{
			ID:     "cryptodeposits/list-detail-and-credit",
			Title:  "A confirmed crypto deposit credits the asset's balance and is listed (paged data.deposits) and readable (data.deposit) with sender null, reference the transaction hash, the custodian's provider_reference, amount in atomic units and asset_scale; one held for review is listed and readable and credits nothing; another customer's deposit is a 404 byte-identical to a nonexistent one",
			Rules:  []string{"CRYP-001", "DEP-001", "DEP-002", "DEP-003", "DEP-004", "DEP-005", "DEP-006", "DEP-008", "PAGE-020", "BIND-020", "CUST-022"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.tenant", "crypto.customer"},
			Run: func(t *check.T) {
				cust := fresh.Activated(t, "CRYP-001")
				issued(t, "CRYP-027", cust, "ETH")
				// 9007199254740993 wei: one above 2^53, exact only without float.
				const amount = "9007199254740993"
				// The custodian's side: the deposit id, the chain hash and its
				// own transaction id (provider_reference, when its control
				// API reports it).
				var sent struct {
					ID                string `json:"id"`
					TxHash            string `json:"tx_hash"`
					ProviderReference string `json:"provider_reference"`
				}
				if err := t.Control().Call(t.Context(), http.MethodPost, "/crypto/deposits/"+cust, map[string]any{"asset": "ETH", "amount_atomic": amount}, &sent); err != nil {
					t.NoVerdict(err)
				}
				id, hash := sent.ID, sent.TxHash
				want, _ := new(big.Int).SetString(amount, 10)
				if got := available(t, "CRYP-001", cust, "ETH"); got.Cmp(want) != 0 {
					t.Fatalf("CRYP-001", "after a confirmed deposit of %s wei the available ETH balance is %s", amount, got)
				}
				d := shape.EnvelopeAnswer(t, get(t, path(cust, "/deposits?page=1&limit=10")), shape.Want{Rule: "DEP-008", Status: http.StatusOK})
				pg := shape.Pagination(t, "PAGE-020", d)
				items := shape.Items(t, "DEP-002", d, "deposits", false)
				if pg.Total != 1 || len(items) != 1 || items[0].ID != id {
					t.Fatalf("DEP-008", "the crypto deposits list holds total %d, %d rows; want the one deposit %s", pg.Total, len(items), id)
				}
				r := get(t, path(cust, "/deposits/"+id))
				dep, _ := shape.EnvelopeAnswer(t, r, shape.Want{Rule: "DEP-008", Status: http.StatusOK})["deposit"].(map[string]any)
				if dep == nil {
					t.FatalAt(r, "DEP-002", "the crypto deposit detail has no data.deposit object")
				}
				for _, row := range []map[string]any{items[0].Raw, dep} {
					if s, has := row["sender"]; !has || s != nil {
						t.Fatalf("DEP-003", "crypto deposit sender is %v (present %v), want null", s, has)
					}
					if row["reference"] != hash {
						t.Fatalf("DEP-004", "crypto deposit reference is %v, want the transaction hash %s", row["reference"], hash)
					}
					if ref := shape.String(t, "DEP-005", row, "provider_reference"); sent.ProviderReference != "" && ref != sent.ProviderReference {
						t.Fatalf("DEP-005", "crypto deposit provider_reference is %q, want the custodian's transaction id %q", ref, sent.ProviderReference)
					}
					if got := atomic(t, "DEP-006", row, "amount"); got.Cmp(want) != 0 {
						t.Fatalf("DEP-006", "crypto deposit amount is %s, want %s (atomic units, exact)", got, amount)
					}
					if sc := shape.Int(t, "DEP-006", row, "asset_scale"); sc != 18 {
						t.Fatalf("DEP-006", "ETH deposit asset_scale is %d, want 18", sc)
					}
				}
				// A deposit held for review is still readable from the list
				// (and by id); it credits nothing.
				held, err := t.Control().CryptoHeldDeposit(t.Context(), cust, "ETH", "5000")
				if err != nil {
					t.NoVerdict(err)
				}
				d = shape.EnvelopeAnswer(t, get(t, path(cust, "/deposits?page=1&limit=10")), shape.Want{Rule: "DEP-008", Status: http.StatusOK})
				listed := false
				for _, it := range shape.Items(t, "DEP-002", d, "deposits", false) {
					listed = listed || it.ID == held
				}
				if !listed {
					t.Fatalf("DEP-001", "the deposit %s held for review is not in the crypto deposits list; held deposits are readable from the lists", held)
				}
				shape.EnvelopeAnswer(t, get(t, path(cust, "/deposits/"+held)), shape.Want{Rule: "DEP-001", Status: http.StatusOK, What: "the held crypto deposit's detail"})
				if got := available(t, "CRYP-001", cust, "ETH"); got.Cmp(want) != 0 {
					t.Fatalf("CRYP-001", "after a deposit held for review the available ETH balance is %s, want %s: only confirmed deposits credit it", got, amount)
				}
				other := t.Crypto("customer")
				mine := get(t, path(other, "/deposits/"+id))
				none := get(t, path(other, "/deposits/"+uuid.NewString()))
				shape.FlatAnswer(t, mine, shape.Want{Rule: "BIND-020", Status: http.StatusNotFound})
				shape.SameResponse(t, "BIND-020", mine, none, "another customer's crypto deposit and a nonexistent one")
			},
		},
	}
}
