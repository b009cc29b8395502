package pagination

import (
	"net/http"
	"net/url"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// unpagedChecks are the checks of unpaged.go.
func unpagedChecks() []check.Check {
	var cs []check.Check
	for _, l := range unpagedLists {
		l := l
		cs = append(cs, check.Check{
			ID:          "pagination/" + l.name + "-unpaged",
			SerialGroup: l.group,
			Title:       l.name + " list: one page with every row, no data.pagination, page and limit ignored",
			Rules:       append([]string{"PAGE-016", "PAGE-017"}, l.rules...),
			Needs:       append([]string{"keys." + l.key}, l.needs...),
			Run:         func(t *check.T) { checkUnpaged(t, l) },
		})
	}
	return cs
}

func checkUnpaged(t *check.T, l unpagedList) {
	read := func(query url.Values) []string {
		r := t.Do(t.Client(l.key), client.Request{Method: http.MethodGet, Path: l.path(t), Query: query})
		data := shape.EnvelopeAnswer(t, r, shape.Want{Rule: l.rules[0], Status: http.StatusOK})
		if p, ok := data["pagination"]; ok {
			t.Fatalf("PAGE-016", "query %q: the unpaged list carries data.pagination %v", query.Encode(), p)
		}
		return ids(shape.Items(t, l.rules[0], data, l.items, false))
	}
	base := read(nil)
	if len(base) == 0 {
		t.Skipf("the %s list is empty; ignoring page and limit cannot be told apart from paging", l.name)
	}
	for _, query := range []url.Values{
		q("page", "2", "limit", "1"),
		q("limit", "1"),
		q("limit", "0"),
		q("page", "999"),
	} {
		shape.Equal(t, "PAGE-017", read(query), base, "query %q changed the unpaged list", query.Encode())
	}
}
