package payoutbatches

import (
	"net/http"
	"sort"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// Reads (document 1, Endpoints / Payout batches): the list newest first
// with items null and real pagination, by-id with items in sequence order,
// and the two flat 404s.

func readsChecks() []check.Check {
	return []check.Check{
		{
			ID:     "payoutbatches/list",
			Title:  "GET payout-batches lists newest first (created_at, then id, descending), items null, real pagination; a status filter does not narrow it",
			Rules:  []string{"PB-042", "PB-006", "PB-043", "PAGE-024", "PAGE-025"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant", "customers.active_business"},
			Run: func(t *check.T) {
				// The active business customer holds no beneficiary, so its
				// batches are Rejected, and no other check lists them: the
				// totals cannot move under this check.
				path := fresh.BatchesPath(t.Customer("active_business"))
				var made []string
				for i := 0; i < 3; i++ {
					r := t.Do(t.Client("tenant"), client.Request{Method: http.MethodPost, Path: path, IdempotencyKey: t.NewKey(),
						JSON: map[string]any{"currency": "GBP", "items": []any{fresh.BatchItem("1c7e5b90-3f2a-4d8c-b6e1-9a0d4f7c2e58", 100+i, "List me")}}})
					b, _ := shape.EnvelopeAnswer(t, r, shape.Want{Rule: "PB-042", Status: http.StatusOK})["payout_batch"].(map[string]any)
					made = append(made, shape.String(t, "PB-042", b, "id"))
				}
				// Newest first: the three lead the list, however many batches
				// earlier runs left; the front page is what the rules need.
				r := t.Do(t.Client("tenant"), client.Request{Method: http.MethodGet, Path: path + "?limit=20"})
				data := shape.EnvelopeAnswer(t, r, shape.Want{Rule: "PB-042", Status: http.StatusOK})
				pg := shape.Pagination(t, "PAGE-024", data)
				// The list's member is not named: the single array member of
				// data is taken as the list (the reading PAGE-025 takes).
				key := shape.ListKey(t, "PAGE-025", data, "")
				rows := shape.Items(t, "PB-042", data, key, true)
				if pg.Total < 3 || pg.PerPage != 20 || len(rows) != min(pg.Total, 20) {
					t.FatalAt(r, "PB-042", "pagination %+v with %d rows after creating 3 batches", pg, len(rows))
				}
				for i, row := range rows {
					if v, ok := row.Raw["items"]; !ok || v != nil {
						t.ErrorAt(r, "PB-006", "list row %d has items %v (present %v), want null", i, v, ok)
					}
				}
				if !sort.SliceIsSorted(rows, func(i, j int) bool {
					if !rows[i].CreatedAt.Equal(rows[j].CreatedAt) {
						return rows[i].CreatedAt.After(rows[j].CreatedAt)
					}
					return rows[i].ID > rows[j].ID
				}) {
					t.FatalAt(r, "PB-042", "the list is not newest first with a descending id tiebreak")
				}
				pos := map[string]int{}
				for i, row := range rows {
					pos[row.ID] = i
				}
				for _, id := range made {
					if _, ok := pos[id]; !ok {
						t.FatalAt(r, "PB-042", "batch %s created by this check is not listed", id)
					}
				}
				small := t.Do(t.Client("tenant"), client.Request{Method: http.MethodGet, Path: path + "?limit=1&page=2"})
				sd := shape.EnvelopeAnswer(t, small, shape.Want{Rule: "PB-042", Status: http.StatusOK})
				if sp := shape.Pagination(t, "PB-042", sd); sp.Total != pg.Total || sp.PerPage != 1 || sp.CurrentPage != 2 || sp.LastPage != pg.Total {
					t.ErrorAt(small, "PB-042", "limit=1&page=2 pagination %+v, want total %d, per_page 1, current_page 2, last_page %d", sp, pg.Total, pg.Total)
				}
				if srows := shape.Items(t, "PB-042", sd, key, true); len(srows) != 1 || srows[0].ID != rows[1].ID {
					t.ErrorAt(small, "PB-042", "page 2 of size 1 is not the second row of the full list")
				}
				filtered := t.Do(t.Client("tenant"), client.Request{Method: http.MethodGet, Path: path + "?limit=1&status=Completed&from=2099-01-01"})
				fd := shape.EnvelopeAnswer(t, filtered, shape.Want{Rule: "PB-043", Status: http.StatusOK})
				if fp := shape.Pagination(t, "PB-043", fd); fp.Total < pg.Total {
					t.ErrorAt(filtered, "PB-043", "status/date query parameters narrowed the list to %d of %d", fp.Total, pg.Total)
				}
			},
		},
		{
			ID:     "payoutbatches/read-by-id",
			Title:  "GET payout-batches/{id} returns the batch with its items in sequence order",
			Rules:  []string{"PB-044", "PB-008"},
			Labels: []string{check.Mutating},
			Needs:  needs,
			Run: func(t *check.T) {
				ben := t.Beneficiary("gbp")
				items := []any{}
				for i := 1; i <= 6; i++ {
					items = append(items, fresh.BatchItem(ben, 1000-i*100, "Seq check"))
				}
				b := fresh.Batch(t, "PB-044", map[string]any{"currency": "GBP", "items": items})
				got := fresh.ReadBatch(t, "PB-044", shape.String(t, "PB-044", b, "id"))
				arr := shape.Array(t, "PB-044", got, "items")
				if len(arr) != 6 {
					t.Fatalf("PB-044", "by-id read has %d items, want 6", len(arr))
				}
				batchItems(t, "PB-044", got) // numbered 1..6 (PB-008) before the order is judged
				for i, x := range arr {
					it, _ := x.(map[string]any)
					if seq := fresh.Int(t, "PB-044", it, "sequence"); seq != i+1 {
						t.Fatalf("PB-044", "items[%d] has sequence %d: items are not in sequence order", i, seq)
					}
					if amt := fresh.Int(t, "PB-008", it, "amount"); amt != 1000-(i+1)*100 {
						t.Fatalf("PB-008", "sequence %d carries amount %d, want %d (the %d. item sent)", i+1, amt, 1000-(i+1)*100, i+1)
					}
				}
			},
		},
		{
			ID:     "payoutbatches/read-not-found",
			Title:  "Reads answer the flat 404s: 'Customer was not found.' for an unknown or another tenant's customer (list and by id), 'Payout batch was not found.' for an unknown or another customer's batch, byte-identical",
			Rules:  []string{"PB-101", "PB-102"},
			Labels: []string{check.Mutating},
			Needs:  append(needs, "customers.active_business", "customers.other_tenant"),
			Run: func(t *check.T) {
				c := t.Client("tenant")
				unknown := "0b9e4c1a-7d2f-4e63-8a15-3c6d9f2e8b71"
				for _, cust := range []string{unknown, t.Customer("other_tenant")} {
					for _, p := range []string{fresh.BatchesPath(cust), fresh.BatchesPath(cust) + "/" + unknown} {
						r := t.Do(c, client.Request{Method: http.MethodGet, Path: p})
						if m := shape.FlatAnswer(t, r, shape.Want{Rule: "PB-101", Status: http.StatusNotFound}); m["title"] != "Customer was not found." {
							t.ErrorAt(r, "PB-101", "404 title %v, want 'Customer was not found.'", m["title"])
						}
					}
				}
				b := fresh.Batch(t, "PB-102", map[string]any{"currency": "GBP", "items": []any{fresh.BatchItem(t.Beneficiary("gbp"), 100, "Mine")}})
				id := shape.String(t, "PB-102", b, "id")
				other := t.Do(c, client.Request{Method: http.MethodGet, Path: fresh.BatchesPath(t.Customer("active_business")) + "/" + id})
				none := t.Do(c, client.Request{Method: http.MethodGet, Path: fresh.BatchesPath(t.Customer("active_business")) + "/" + unknown})
				for _, r := range []*client.Response{other, none} {
					if m := shape.FlatAnswer(t, r, shape.Want{Rule: "PB-102", Status: http.StatusNotFound}); m["title"] != "Payout batch was not found." {
						t.ErrorAt(r, "PB-102", "404 title %v, want 'Payout batch was not found.'", m["title"])
					}
				}
				if string(other.Body) != string(none.Body) {
					t.ErrorAt(other, "PB-102", "another customer's batch answers a different body than an unknown batch")
				}
			},
		},
	}
}
