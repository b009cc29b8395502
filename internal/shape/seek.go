package shape

import (
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
)

// Seeking a row in a paged list (document 1, Pagination: newest first,
// ties by id descending). A check looks for a row it has just made, so the
// row sits at the front of the list however many rows earlier runs left
// behind: the search reads small pages from the first and stops as soon as
// the answer is known, never walking the list.

// SeekPer is the page size a search reads: the rows made by one check and
// by whatever else wrote to the list meanwhile fit on the first page.
const SeekPer = 20

// seekMaxPages bounds every search (500 rows newer than the sought one), so
// a list that never ends cannot hang a check.
const seekMaxPages = 25

// Seek describes one search: the list route, the member holding its rows
// ("" the single array member, PAGE-025) and the client reading it.
type Seek struct {
	Client *client.Client
	Path   string
	Items  string
	// Since is the earliest created_at the sought row can carry (the row's
	// own, or a time read before it was made). A newest-first list holds
	// it before every row created earlier, so the search ends at the first
	// older row: the row is absent. Zero: only the end of the list (or
	// seekMaxPages pages) ends a search that finds nothing.
	Since time.Time
}

// Find returns the row with id and true, or nil and false when the list
// does not hold it where a newest-first list must (see Since). rule names
// the list's shape rule for the pages read.
func (s Seek) Find(t *check.T, rule, id string) (Item, bool) {
	// Lists render created_at to the second at times (customers): compare
	// whole seconds so that a row of the same second is never passed over.
	horizon := s.Since.Truncate(time.Second)
	first := ""
	for page := 1; page <= seekMaxPages; page++ {
		r := t.Do(s.Client, client.Request{Method: http.MethodGet, Path: s.Path,
			Query: url.Values{"limit": {strconv.Itoa(SeekPer)}, "page": {strconv.Itoa(page)}}})
		data := envelope(t, rule, r, http.StatusOK)
		rows := Items(t, rule, data, ListKey(t, rule, data, s.Items), !s.Since.IsZero())
		if len(rows) > 0 && rows[0].ID == first {
			return Item{}, false // page is not honoured: every page is the first
		}
		if page == 1 && len(rows) > 0 {
			first = rows[0].ID
		}
		for _, row := range rows {
			if row.ID == id {
				return row, true
			}
			if !s.Since.IsZero() && row.CreatedAt.Before(horizon) {
				return Item{}, false
			}
		}
		if len(rows) < SeekPer {
			return Item{}, false
		}
	}
	return Item{}, false
}

// CreatedAt reads a record's created_at (ISO 8601 with offset) under rule,
// for Seek.Since.
func CreatedAt(t *check.T, rule string, record map[string]any) time.Time {
	s := String(t, rule, record, "created_at")
	ts, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatalf(rule, "created_at %q is not ISO 8601 with offset: %v", s, err)
	}
	return ts
}

// Mark is the created_at of the list's newest row (zero for an empty
// list): every row made after it is read carries a created_at at or after
// the mark, so Newer(mark) holds every row a check's later requests made,
// whatever other callers add to the list meanwhile.
func (s Seek) Mark(t *check.T, rule string) time.Time {
	r := t.Do(s.Client, client.Request{Method: http.MethodGet, Path: s.Path, Query: url.Values{"limit": {"1"}, "page": {"1"}}})
	data := envelope(t, rule, r, http.StatusOK)
	rows := Items(t, rule, data, ListKey(t, rule, data, s.Items), true)
	if len(rows) == 0 {
		return time.Time{}
	}
	return rows[0].CreatedAt
}

// Newer returns the rows created at or after since (to the second), reading
// pages of SeekPer from the first until an older row or the end (at most
// seekMaxPages): the rows a check made after its Mark, and any row it must
// not find (a refused request's), for a newest-first list puts them before
// every older row. A row seen on two pages (the list grew between reads)
// is returned once.
func (s Seek) Newer(t *check.T, rule string, since time.Time) []Item {
	horizon := since.Truncate(time.Second)
	seen := map[string]bool{}
	var out []Item
	for page := 1; page <= seekMaxPages; page++ {
		r := t.Do(s.Client, client.Request{Method: http.MethodGet, Path: s.Path,
			Query: url.Values{"limit": {strconv.Itoa(SeekPer)}, "page": {strconv.Itoa(page)}}})
		data := envelope(t, rule, r, http.StatusOK)
		rows := Items(t, rule, data, ListKey(t, rule, data, s.Items), true)
		for _, row := range rows {
			if row.CreatedAt.Before(horizon) {
				return out
			}
			if !seen[row.ID] {
				seen[row.ID] = true
				out = append(out, row)
			}
		}
		if len(rows) < SeekPer {
			return out
		}
	}
	return out
}
