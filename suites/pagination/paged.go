package pagination

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// Rules of document 1, Pagination, as catalogued.

// declared is a list check's rules: its own, the list's, and PAGE-008,
// the pagination members every list check reads its pages by.
func declared(rules []string, more ...string) []string {
	out := append([]string(nil), rules...)
	for _, r := range more {
		if !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}

// pagedChecks are the checks of paged.go.
func pagedChecks() []check.Check {
	var cs []check.Check
	for _, l := range pagedLists {
		l := l
		needs := append([]string{"keys." + l.key}, l.needs...)
		// Each check's Run is its own function literal naming the
		// aspect's check function, so the rules its assertions name are
		// read from the code (TestChecksAssertWhatTheyDeclare).
		reg := func(slug, title string, rules []string, labels []string, extraNeeds []string, run func(t *check.T)) {
			var alone check.Solitude
			switch {
			case l.written && slug == "id-tiebreak" && l.group != "":
				// Its writers are kept away by the serial group; it is
				// alone for the virtual clock it stands still.
				alone = check.WithControl
			case l.written:
				alone = check.Always
			}
			cs = append(cs, check.Check{
				ID:          "pagination/" + l.name + "-" + slug,
				SerialGroup: l.group,
				Alone:       alone,
				Title:       fmt.Sprintf("%s list: %s", l.name, title),
				Rules:       declared(rules, l.rule, "PAGE-008"),
				Labels:      labels,
				Needs:       append(append([]string(nil), needs...), extraNeeds...),
				Run:         run,
			})
		}
		reg("defaults", "without limit and page the list answers page 1 of 100 rows with the four pagination members",
			[]string{"PAGE-001", "PAGE-005", "PAGE-008"}, nil, nil, func(t *check.T) { checkDefaults(t, l) })
		reg("limit-clamped", "limit 0 and negative clamp to 1, 501 and 10000 clamp to 500, silently (200)",
			[]string{"PAGE-002", "PAGE-003", "PAGE-004", "PAGE-011"}, nil, nil, func(t *check.T) { checkLimitClamped(t, l) })
		reg("page-clamped", "page 0 and -3 are page 1; pages are 1-based",
			[]string{"PAGE-006", "PAGE-005", "PAGE-011", "VER-009"}, nil, nil, func(t *check.T) { checkPageClamped(t, l) })
		reg("non-integer-params", "non-integer limit and page fall back to their defaults, silently (200)",
			[]string{"PAGE-026"}, nil, nil, func(t *check.T) { checkNonInteger(t, l) })
		reg("past-end", "a page past the end is 200 with an empty list and the true totals",
			[]string{"PAGE-007", "PAGE-011"}, nil, nil, func(t *check.T) { checkPastEnd(t, l) })
		reg("last-page", "last_page is ceil(total/per_page) for many limits and the last page holds the remainder",
			[]string{"PAGE-009"}, nil, nil, func(t *check.T) { checkLastPage(t, l) })
		if l.empty != nil {
			reg("last-page-empty", "an empty list reports total 0 and last_page 1, never 0",
				append([]string{"PAGE-009", "PAGE-008", "PAGE-011"}, l.emptyRules...), nil, l.emptyNeeds, func(t *check.T) { checkLastPageEmpty(t, l) })
		}
		reg("total-all-pages", "total is the real count: the last page of several sizes holds the remainder and the next page is empty; pages of several sizes meet without gaps or duplicates at both ends",
			[]string{"PAGE-010", "PAGE-011", "VER-009"}, nil, nil, func(t *check.T) { checkTotals(t, l) })
		reg("newest-first", "rows are newest first by created_at, ties by id descending, across page boundaries, at the front and at the end of the list",
			[]string{"PAGE-012", "PAGE-013", "PAGE-011"}, nil, nil, func(t *check.T) { checkNewestFirst(t, l) })
		if l.create != nil {
			reg("id-tiebreak", "rows created at one instant (standing virtual clock, or together within one second) are ordered by id descending",
				append([]string{"PAGE-013", "PAGE-012"}, l.createRules...), []string{check.Mutating}, nil, func(t *check.T) { checkTiebreak(t, l) })
		}
	}
	return cs
}

// get reads one page with the list's key: 200 envelope (under the list's
// rule), pagination (PAGE-008) and rows.
func get(t *check.T, l pagedList, q url.Values) (shape.Page, []shape.Item) {
	return getWith(t, l, t.Client(l.key), l.path(t), q, l.rule)
}

func getWith(t *check.T, l pagedList, c *client.Client, path string, q url.Values, statusRule string) (shape.Page, []shape.Item) {
	r := t.Do(c, client.Request{Method: http.MethodGet, Path: path, Query: q})
	data := shape.EnvelopeAnswer(t, r, shape.Want{Rule: statusRule, Status: http.StatusOK})
	p := paginationOf(t, l, r, data)
	key := shape.ListKey(t, l.rule, data, l.items)
	return p, shape.Items(t, l.rule, data, key, true)
}

// paginationOf reads data.pagination of a page of l: that the list carries
// one at all is the list's own rule (it is a paged list with
// data.pagination: PAGE-018 to PAGE-024), its four members PAGE-008.
func paginationOf(t *check.T, l pagedList, r *client.Response, data map[string]any) shape.Page {
	if _, ok := data["pagination"]; !ok {
		t.FatalAt(r, l.rule, "the %s list answered no data.pagination: it is a paged list", l.name)
	}
	return shape.Pagination(t, "PAGE-008", data)
}

func q(kv ...string) url.Values {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Set(kv[i], kv[i+1])
	}
	return v
}

func ids(items []shape.Item) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.ID
	}
	return out
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// expectedLastPage is ceil(total/per_page), at least 1.
func expectedLastPage(total, perPage int) int {
	if total == 0 {
		return 1
	}
	return ceilDiv(total, perPage)
}

// A list on a long-lived target grows with every run it serves: a check
// reads the front of the list (its newest rows), and the end through the
// page arithmetic (last_page, the remainder on the last page), never the
// whole list, so it costs the same requests whatever the list's length.

// front reads the first n rows (one page of n) and skips when the list is
// too short to prove anything: a fixture the profile lacks, never a list
// too long.
func front(t *check.T, l pagedList, n int) (shape.Page, []shape.Item) {
	p, rows := get(t, l, q("limit", strconv.Itoa(n), "page", "1"))
	if len(rows) < n && len(rows) < p.Total {
		t.Fatalf("PAGE-010", "limit=%d returned %d rows with total %d", n, len(rows), p.Total)
	}
	if len(rows) < n {
		t.Skipf("the %s list holds %d rows; this check needs at least %d", l.name, len(rows), n)
	}
	return p, rows
}

// pages reads pages from..to (1-based, inclusive) with limit, checking
// current_page, per_page and the row count on each, and returns them with
// their rows concatenated.
func pages(t *check.T, l pagedList, limit, from, to int) (ps []shape.Page, rows []shape.Item) {
	for page := from; page <= to; page++ {
		p, got := get(t, l, q("limit", strconv.Itoa(limit), "page", strconv.Itoa(page)))
		if p.CurrentPage != page || p.PerPage != limit {
			t.Fatalf("PAGE-011", "limit=%d&page=%d reported current_page %d, per_page %d", limit, page, p.CurrentPage, p.PerPage)
		}
		if len(got) > limit {
			t.Fatalf("PAGE-010", "limit=%d&page=%d returned %d rows, more than the limit", limit, page, len(got))
		}
		ps = append(ps, p)
		rows = append(rows, got...)
	}
	return ps, rows
}

func checkDefaults(t *check.T, l pagedList) {
	// page defaults to 1 (PAGE-005): judged first, with a small limit and
	// without, for the rows below are compared as page 1.
	_, a := get(t, l, q("limit", "3"))
	_, b := get(t, l, q("limit", "3", "page", "1"))
	if !slices.Equal(ids(a), ids(b)) {
		t.Fatalf("PAGE-005", "limit=3 without page answered %v, limit=3&page=1 %v: page does not default to 1", ids(a), ids(b))
	}
	p, rows := get(t, l, nil)
	if p.CurrentPage != 1 {
		t.Fatalf("PAGE-005", "without page current_page is %d, want 1", p.CurrentPage)
	}
	if p.PerPage != 100 {
		t.Errorf("PAGE-001", "without limit per_page is %d, want 100", p.PerPage)
	}
	want := min(p.Total, 100)
	if len(rows) != want {
		t.Errorf("PAGE-001", "without limit the page holds %d rows with total %d, want %d", len(rows), p.Total, want)
	}
	p1, rows1 := get(t, l, q("limit", "100", "page", "1"))
	shape.Equal(t, "PAGE-001", ids(rows), ids(rows1), "default page differs from limit=100&page=1")
	shape.Equal(t, "PAGE-001", p, p1, "default pagination differs from limit=100&page=1")
}

func checkLimitClamped(t *check.T, l pagedList) {
	all, rows := front(t, l, 2)
	for _, c := range []struct {
		limit, want int
		rule        string
	}{
		{0, 1, "PAGE-002"},
		{-1, 1, "PAGE-004"},
		{-50, 1, "PAGE-004"},
		{501, 500, "PAGE-003"},
		{10000, 500, "PAGE-003"},
		{1, 1, "PAGE-011"},
		{500, 500, "PAGE-011"},
	} {
		p, got := get(t, l, q("limit", strconv.Itoa(c.limit), "page", "1"))
		if p.PerPage != c.want {
			t.Errorf(c.rule, "limit=%d reported per_page %d, want %d", c.limit, p.PerPage, c.want)
		}
		wantRows := min(all.Total, c.want)
		if len(got) != wantRows {
			t.Errorf(c.rule, "limit=%d returned %d rows, want %d (total %d)", c.limit, len(got), wantRows, all.Total)
		}
		if p.LastPage != expectedLastPage(all.Total, c.want) {
			t.Errorf(c.rule, "limit=%d reported last_page %d, want %d (limit %d, total %d)", c.limit, p.LastPage, expectedLastPage(all.Total, c.want), c.want, all.Total)
		}
		if len(got) > 0 && got[0].ID != rows[0].ID {
			t.Errorf(c.rule, "limit=%d starts with %s, want the newest row %s", c.limit, got[0].ID, rows[0].ID)
		}
	}
}

func checkPageClamped(t *check.T, l pagedList) {
	afterPagingChange(t)
	_, all := front(t, l, 6)
	_, first := get(t, l, q("limit", "3", "page", "1"))
	for _, page := range []string{"0", "-3"} {
		p, got := get(t, l, q("limit", "3", "page", page))
		// The page served is the decision (PAGE-006); what current_page
		// reports of it is judged only once it is page 1 (PAGE-011).
		if !slices.Equal(ids(got), ids(first)) {
			t.Fatalf("PAGE-006", "page=%s answered %v (current_page %d), want page 1's rows %v", page, ids(got), p.CurrentPage, ids(first))
		}
		if p.CurrentPage != 1 {
			t.Errorf("PAGE-011", "page=%s reported current_page %d, want 1", page, p.CurrentPage)
		}
	}
	// 1-based: page 2 of 3 holds rows 4-6 of the whole list.
	p2, second := get(t, l, q("limit", "3", "page", "2"))
	if slices.Equal(ids(second), ids(first)) {
		// On or after the change (afterPagingChange) page is honoured:
		// page 2 answering page 1's rows is the behaviour before it.
		t.Errorf("VER-009", "limit=3&page=2 answered page 1's rows %v: page is not honoured on or after %s", ids(first), pagingChange.Format("2006-01-02"))
	}
	shape.Equal(t, "PAGE-005", p2.CurrentPage, 2, "current_page of page=2")
	shape.Equal(t, "PAGE-005", ids(first), ids(all[0:3]), "page 1 of 3 is not rows 1-3 of the list")
	shape.Equal(t, "PAGE-005", ids(second), ids(all[3:6]), "page 2 of 3 is not rows 4-6 of the list")
}

func checkNonInteger(t *check.T, l pagedList) {
	all, _ := front(t, l, 6)
	_, first := get(t, l, q("limit", "3", "page", "1"))
	for _, v := range []string{"abc", "2.5", ""} {
		p, got := get(t, l, q("limit", v, "page", "1"))
		if p.PerPage != 100 || len(got) != min(all.Total, 100) {
			t.Errorf("PAGE-026", "limit=%q reported per_page %d with %d rows, want the default 100 (%d rows)", v, p.PerPage, len(got), min(all.Total, 100))
		}
		p, got = get(t, l, q("limit", "3", "page", v))
		if p.CurrentPage != 1 {
			t.Errorf("PAGE-026", "page=%q reported current_page %d, want the default 1", v, p.CurrentPage)
		}
		shape.Equal(t, "PAGE-026", ids(got), ids(first), "page=%q rows differ from page 1", v)
	}
}

func checkPastEnd(t *check.T, l pagedList) {
	all, _ := front(t, l, 1)
	last := expectedLastPage(all.Total, 5)
	for _, page := range []int{last + 1, last + 100} {
		r := t.Do(t.Client(l.key), client.Request{Method: http.MethodGet, Path: l.path(t), Query: q("limit", "5", "page", strconv.Itoa(page))})
		data := shape.EnvelopeAnswer(t, r, shape.Want{Rule: "PAGE-007", Status: http.StatusOK})
		p := paginationOf(t, l, r, data)
		rows := shape.Items(t, "PAGE-007", data, shape.ListKey(t, "PAGE-007", data, l.items), false)
		if len(rows) != 0 {
			t.Errorf("PAGE-007", "page %d past the last page %d returned %d rows, want none", page, last, len(rows))
		}
		if p.Total != all.Total || p.LastPage != last || p.PerPage != 5 {
			t.Errorf("PAGE-007", "page %d past the end reported total %d, last_page %d, per_page %d; want the true %d, %d, 5", page, p.Total, p.LastPage, p.PerPage, all.Total, last)
		}
		if p.CurrentPage != page {
			t.Errorf("PAGE-011", "page %d past the end reported current_page %d, want the requested page", page, p.CurrentPage)
		}
	}
}

func checkLastPage(t *check.T, l pagedList) {
	all, _ := front(t, l, 2)
	n := all.Total
	// Limits above 500 clamp (limit-clamped): n-1, n and n+1 are tried
	// when the list is short enough for them.
	limits := []int{1, 2, 3, 5, 7, 10, n - 1, n, n + 1, 100, 499, 500}
	seen := map[int]bool{}
	for _, lim := range limits {
		if lim < 1 || lim > 500 || seen[lim] {
			continue
		}
		seen[lim] = true
		p, _ := get(t, l, q("limit", strconv.Itoa(lim), "page", "1"))
		want := expectedLastPage(n, lim)
		if p.LastPage != want {
			t.Errorf("PAGE-009", "limit=%d with total %d reported last_page %d, want ceil(%d/%d) = %d", lim, n, p.LastPage, n, lim, want)
			continue
		}
		lp, rows := get(t, l, q("limit", strconv.Itoa(lim), "page", strconv.Itoa(want)))
		wantRows := n - (want-1)*lim
		if len(rows) != wantRows || lp.LastPage != want {
			t.Errorf("PAGE-009", "limit=%d: the last page %d holds %d rows (last_page %d), want %d", lim, want, len(rows), lp.LastPage, wantRows)
		}
	}
}

func checkLastPageEmpty(t *check.T, l pagedList) {
	c, path := l.empty(t)
	for _, query := range []url.Values{nil, q("limit", "5"), q("limit", "1", "page", "1")} {
		r := t.Do(c, client.Request{Method: http.MethodGet, Path: path, Query: query})
		data := shape.EnvelopeAnswer(t, r, shape.Want{Rule: l.rule, Status: http.StatusOK})
		p := paginationOf(t, l, r, data)
		rows := shape.Items(t, l.rule, data, shape.ListKey(t, l.rule, data, l.items), false)
		if len(rows) != 0 || p.Total != 0 {
			t.Skipf("the list offered as empty holds %d rows (total %d)", len(rows), p.Total)
		}
		if p.LastPage != 1 {
			t.Errorf("PAGE-009", "empty list (query %q) reported last_page %d, want 1 (never 0)", query.Encode(), p.LastPage)
		}
		if p.CurrentPage != 1 {
			t.Errorf("PAGE-011", "empty list (query %q) reported current_page %d, want 1", query.Encode(), p.CurrentPage)
		}
	}
}

func checkTotals(t *check.T, l pagedList) {
	afterPagingChange(t)
	ref, _ := front(t, l, 6)
	n := ref.Total
	// The real count, read where the list ends: with each limit the page
	// ceil(total/limit) holds exactly the remainder and the page after it
	// nothing. Were the real count other than total, one of the two would
	// show it (more rows, fewer rows, or rows past the end).
	for _, lim := range []int{1, 7, 100} {
		last := expectedLastPage(n, lim)
		ps, at := pages(t, l, lim, last, last)
		psNext, next := pages(t, l, lim, last+1, last+1)
		ps = append(ps, psNext...)
		rows := append(slices.Clone(at), next...)
		if want := n - (last-1)*lim; len(rows) != want || ps[0].Total != n || ps[1].Total != n {
			if len(next) > 0 && slices.Equal(ids(at), ids(next)) && ps[1].Total == len(next) {
				// Page ignored and a total of the page's own rows is the
				// behaviour before the change (PAGE-015); on or after it
				// (afterPagingChange) the dated rule is broken too.
				t.Errorf("VER-009", "limit=%d: pages %d and %d answer the same rows %v with total %d, the rows returned: the behaviour before %s", lim, last, last+1, ids(next), ps[1].Total, pagingChange.Format("2006-01-02"))
			}
			if len(rows) != want {
				t.Fatalf("PAGE-010", "limit=%d: pages %d and %d (the last by total %d, and the next) hold %d rows, want %d: total is not the count over all pages", lim, last, last+1, n, len(rows), want)
			}
			for i, p := range ps {
				if p.Total != n {
					t.Fatalf("PAGE-010", "limit=%d&page=%d reported total %d, want %d, the count over all pages", lim, last+i, p.Total, n)
				}
			}
		}
		seen := map[string]bool{}
		for _, r := range rows {
			if seen[r.ID] {
				t.Fatalf("PAGE-010", "limit=%d: row %s appears twice on the last page", lim, r.ID)
			}
			seen[r.ID] = true
		}
	}
	// No gaps or duplicates where pages meet: the first rows read in pages
	// of 3 and of 7 are one page holding them all, and so are the last.
	const span = 21 // rows compared at each end; a multiple of 3 and 7
	_, first := get(t, l, q("limit", strconv.Itoa(span), "page", "1"))
	tailPage := expectedLastPage(n, span)
	_, last := get(t, l, q("limit", strconv.Itoa(span), "page", strconv.Itoa(tailPage)))
	from := (tailPage - 1) * span // index of the first row of the tail
	for _, lim := range []int{3, 7} {
		_, got := pages(t, l, lim, 1, ceilDiv(len(first), lim))
		shape.Equal(t, "PAGE-010", ids(got[:min(len(got), len(first))]), ids(first), "the first %d rows in pages of %d differ from one page of %d (a gap or a duplicate where pages meet)", len(first), lim, span)
		if tailPage == 1 {
			continue // the list is its first page
		}
		_, got = pages(t, l, lim, from/lim+1, ceilDiv(n, lim))
		shape.Equal(t, "PAGE-010", ids(got), ids(last), "the last %d rows in pages of %d differ from page %d of %d (a gap or a duplicate where pages meet)", len(last), lim, tailPage, span)
	}
}

// newer tells whether a belongs before b: later created_at, or equal
// created_at and greater id (PAGE-013).
func newer(a, b shape.Item) bool {
	if !a.CreatedAt.Equal(b.CreatedAt) {
		return a.CreatedAt.After(b.CreatedAt)
	}
	return a.ID > b.ID
}

func assertOrdered(t *check.T, rows []shape.Item, what string) {
	for i := 1; i < len(rows); i++ {
		a, b := rows[i-1], rows[i]
		if a.CreatedAt.Equal(b.CreatedAt) {
			if a.ID <= b.ID {
				t.Fatalf("PAGE-013", "%s: rows %d and %d share created_at %s but ids are not descending: %s then %s", what, i, i+1, a.CreatedAt.Format("2006-01-02T15:04:05.999999999Z07:00"), a.ID, b.ID)
			}
			continue
		}
		if !newer(a, b) {
			t.Fatalf("PAGE-012", "%s: row %d (%s, created %s) comes before row %d (%s, created %s): not newest first", what, i, a.ID, a.CreatedAt, i+1, b.ID, b.CreatedAt)
		}
	}
}

func checkNewestFirst(t *check.T, l pagedList) {
	const span = 40 // rows read at each end of the list
	ref, _ := front(t, l, 3)
	_, head := get(t, l, q("limit", strconv.Itoa(span), "page", "1"))
	assertOrdered(t, head, fmt.Sprintf("the first %d rows", len(head)))
	_, walked := pages(t, l, 4, 1, ceilDiv(len(head), 4))
	walked = walked[:min(len(walked), len(head))]
	assertOrdered(t, walked, "the first pages of 4 concatenated")
	shape.Equal(t, "PAGE-012", ids(walked), ids(head), "the first pages of 4 concatenated differ from the first %d rows", len(head))
	// The end of the list: its last two pages of span, in order across
	// their boundary.
	last := expectedLastPage(ref.Total, span)
	if last < 2 {
		return
	}
	_, tail := pages(t, l, span, max(2, last-1), last)
	assertOrdered(t, tail, fmt.Sprintf("the last pages of %d concatenated", span))
}

func checkTiebreak(t *check.T, l pagedList) {
	l = tied(t, l)
	created := map[string]bool{}
	for i := 0; i < 3; i++ {
		created[l.create(t)] = true
	}
	// They are the newest rows, so they lead the list.
	_, rows := get(t, l, q("limit", "10", "page", "1"))
	var mine []shape.Item
	for _, r := range rows {
		if created[r.ID] {
			mine = append(mine, r)
		}
	}
	if len(mine) != 3 {
		t.Fatalf("PAGE-012", "the first %d rows of the list hold %d of the 3 rows just created; the newest rows lead the list", len(rows), len(mine))
	}
	if !mine[0].CreatedAt.Equal(mine[1].CreatedAt) || !mine[1].CreatedAt.Equal(mine[2].CreatedAt) {
		t.Skipf("the three rows made at one instant have different created_at (%s, %s, %s): no tie to order", mine[0].CreatedAt, mine[1].CreatedAt, mine[2].CreatedAt)
	}
	for i, r := range mine {
		if rows[i].ID != r.ID {
			t.Fatalf("PAGE-012", "row %d is %s, want the just-created %s among the first three", i+1, rows[i].ID, r.ID)
		}
	}
	assertOrdered(t, rows[:3], "three rows created at one instant")
	_, walked := pages(t, l, 1, 1, 3)
	assertOrdered(t, walked, "three rows created at one instant, one per page")
	shape.Equal(t, "PAGE-013", ids(walked), ids(rows[:3]), "the first three pages of 1 differ from the first three rows")
}
