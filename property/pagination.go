package property

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"pgregory.net/rapid"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
)

// Pagination (document 1, Pagination) on the tenant's customer list: its
// first 500 rows are read once (their order checked: newest first, id
// descending on equal created_at) with the total, then random limit/page
// pairs (limits around 1, up to 50 and from 495), absent and out-of-range
// values included, are predicted exactly:
// limit absent 100, below 1 -> 1, above 500 -> 500; page below 1 -> 1; the
// rows are the reference's slice (the row count only, for a page beyond the
// first 500 rows of a long list); total the real count; last_page
// max(1, ceil(total/limit)); a page past the end is 200 and empty. Pages
// are drawn over the reference and around the end of the list, so a list
// that earlier runs made long costs no more requests.

type pageRow struct {
	ID        string `json:"id"`
	CreatedAt string `json:"created_at"`
}

type pageAnswer struct {
	Data struct {
		Customers  []pageRow `json:"customers"`
		Pagination struct {
			CurrentPage int `json:"current_page"`
			LastPage    int `json:"last_page"`
			PerPage     int `json:"per_page"`
			Total       int `json:"total"`
		} `json:"pagination"`
	} `json:"data"`
}

func listPage(t *check.T, c *client.Client, q url.Values) (*client.Response, pageAnswer, error) {
	r := t.Do(c, client.Request{Method: http.MethodGet, Path: api.P + "/customers", Query: q})
	var a pageAnswer
	if r.Status != http.StatusOK {
		return r, a, fmt.Errorf("answered %d", r.Status)
	}
	return r, a, json.Unmarshal(r.Body, &a)
}

// paginationChecks are the checks of pagination.go.
func paginationChecks() []check.Check {
	return []check.Check{
		{
			ID:     "property/pagination",
			Alone:  check.Always,
			Title:  "random limit/page pairs (absent and out of range included) on the customer list answer exactly the model's slice, clamps, total and last_page",
			Rules:  []string{"PAGE-001", "PAGE-002", "PAGE-003", "PAGE-004", "PAGE-006", "PAGE-007", "PAGE-009", "PAGE-010", "PAGE-011", "PAGE-012", "PAGE-013"},
			Labels: []string{Label}, Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				c := t.Client("tenant")
				counted(c)
				_, first, err := listPage(t, c, url.Values{"limit": {"500"}, "page": {"1"}})
				if err != nil {
					t.NoVerdict(fmt.Errorf("cannot read the customer list at limit 500: %v", err))
				}
				ref := first.Data.Customers
				for i := 1; i < len(ref); i++ {
					p, _ := time.Parse(time.RFC3339, ref[i-1].CreatedAt)
					q, _ := time.Parse(time.RFC3339, ref[i].CreatedAt)
					switch {
					case q.After(p):
						t.Fatalf("PAGE-012", "rows %d and %d are oldest first (%s then %s)", i, i+1, ref[i-1].CreatedAt, ref[i].CreatedAt)
					case q.Equal(p) && ref[i].ID > ref[i-1].ID:
						t.Fatalf("PAGE-013", "rows %d and %d share created_at %s but their ids ascend (%s, %s)", i, i+1, q, ref[i-1].ID, ref[i].ID)
					}
				}
				total := first.Data.Pagination.Total
				if total < len(ref) || (total > len(ref) && len(ref) < 500) {
					t.Fatalf("PAGE-010", "limit=500 returned %d rows with total %d", len(ref), total)
				}
				rules := []string{"PAGE-010", "PAGE-001", "PAGE-002", "PAGE-003", "PAGE-004", "PAGE-006", "PAGE-007", "PAGE-009", "PAGE-011"}
				run(t, "property/pagination", rules, func(rt *rapid.T) {
					var log steps
					q := url.Values{}
					limit, sent := 100, 100
					if rapid.Bool().Draw(rt, "has limit") {
						sent = rapid.OneOf(rapid.IntRange(-3, 3), rapid.IntRange(1, min(total, 48)+2), rapid.IntRange(495, 10000)).Draw(rt, "limit")
						q.Set("limit", strconv.Itoa(sent))
						limit = min(max(sent, 1), 500)
					}
					last := max(1, (total+limit-1)/limit)
					page, sentPage := 1, 1
					if rapid.Bool().Draw(rt, "has page") {
						known := max(1, (len(ref)+limit-1)/limit) // pages within the reference
						p := rapid.OneOf(rapid.IntRange(-2, known+2), rapid.IntRange(max(-2, last-2), last+2)).Draw(rt, "page")
						q.Set("page", strconv.Itoa(p))
						page, sentPage = max(p, 1), p
					}
					r, a, err := listPage(t, c, q)
					log.add("GET /customers?"+q.Encode(), r)
					if err != nil {
						log.fail(rt, "PAGE-007: GET /customers?%s %v, want 200 with a page", q.Encode(), err)
					}
					pg := a.Data.Pagination
					lo, hi := min((page-1)*limit, total), min(page*limit, total)
					var want []pageRow // the rows predicted one by one: those of the reference
					if hi <= len(ref) {
						want = ref[lo:hi]
					}
					// page 0 or negative: the page served (its rows) is the
					// decision (PAGE-006), judged before what is reported.
					if sentPage < 1 && limit == pg.PerPage && hi <= len(ref) {
						if len(a.Data.Customers) != len(want) {
							log.fail(rt, "PAGE-006: page=%d served %d rows, want page 1's %d", sentPage, len(a.Data.Customers), len(want))
						}
						for i := range want {
							if a.Data.Customers[i].ID != want[i].ID {
								log.fail(rt, "PAGE-006: page=%d served row %d %s, want %s (row %d of page 1)", sentPage, i+1, a.Data.Customers[i].ID, want[i].ID, i+1)
							}
						}
					}
					// The limit served decides last_page: a limit not
					// clamped (or not defaulted) is judged before it.
					rule := "PAGE-011"
					switch {
					case q.Get("limit") == "" && pg.PerPage != 100:
						rule = "PAGE-001"
					case pg.PerPage != limit && sent > 500:
						rule = "PAGE-003"
					case pg.PerPage != limit && sent == 0:
						rule = "PAGE-002"
					case pg.PerPage != limit && sent < 0:
						rule = "PAGE-004"
					case pg.Total != total:
						rule = "PAGE-010"
					case pg.LastPage != last:
						rule = "PAGE-009"
					case pg.CurrentPage != page:
						rule = "PAGE-011" // the page served is judged by its rows
					}
					if pg.Total != total || pg.LastPage != last || pg.PerPage != limit || pg.CurrentPage != page {
						log.fail(rt, "%s: pagination %+v, want {CurrentPage:%d LastPage:%d PerPage:%d Total:%d}", rule, pg, page, last, limit, total)
					}
					if len(a.Data.Customers) != hi-lo {
						log.fail(rt, "PAGE-011: %d rows, want %d (rows %d..%d of %d)", len(a.Data.Customers), hi-lo, lo+1, hi, total)
					}
					for i := range want {
						if a.Data.Customers[i].ID != want[i].ID {
							log.fail(rt, "PAGE-011: row %d is %s, want %s (row %d of the collection)", i+1, a.Data.Customers[i].ID, want[i].ID, lo+i+1)
						}
					}
				})
			},
		},
	}
}
