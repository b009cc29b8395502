package shape

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/touchstone-harness/touchstone/internal/check"
)

// Page is data.pagination of a paged v1 list (document 1, Pagination).
type Page struct {
	CurrentPage int `json:"current_page"`
	LastPage    int `json:"last_page"`
	PerPage     int `json:"per_page"`
	Total       int `json:"total"`
}

// Pagination reads data.pagination exactly: an object whose members
// current_page, last_page, per_page and total are JSON integers.
func Pagination(t *check.T, rule string, data map[string]any) Page {
	raw, ok := data["pagination"].(map[string]any)
	if !ok {
		t.Fatalf(rule, "data.pagination is %v, want an object", data["pagination"])
	}
	var p Page
	for name, dst := range map[string]*int{
		"current_page": &p.CurrentPage, "last_page": &p.LastPage, "per_page": &p.PerPage, "total": &p.Total,
	} {
		n, isNum := raw[name].(json.Number)
		if !isNum {
			t.Fatalf(rule, "data.pagination.%s is %v, want an integer", name, raw[name])
		}
		i, err := strconv.Atoi(n.String())
		if err != nil {
			t.Fatalf(rule, "data.pagination.%s is %v, want an integer", name, raw[name])
		}
		*dst = i
	}
	return p
}

// Item is one row of a list: its id, its created_at and the raw object.
type Item struct {
	ID        string
	CreatedAt time.Time
	Raw       map[string]any
}

// Items reads the list at data[key] as an array of objects, each with a
// string id; when withCreated is true each must also carry an ISO 8601
// created_at with offset.
func Items(t *check.T, rule string, data map[string]any, key string, withCreated bool) []Item {
	arr, ok := data[key].([]any)
	if !ok {
		t.Fatalf(rule, "data.%s is %v, want an array", key, data[key])
	}
	out := make([]Item, 0, len(arr))
	for i, x := range arr {
		m, ok := x.(map[string]any)
		if !ok {
			t.Fatalf(rule, "data.%s[%d] is %v, want an object", key, i, x)
		}
		id, ok := m["id"].(string)
		if !ok || id == "" {
			t.Fatalf(rule, "data.%s[%d].id is %v, want a string", key, i, m["id"])
		}
		it := Item{ID: id, Raw: m}
		if withCreated {
			s, ok := m["created_at"].(string)
			if !ok {
				t.Fatalf(rule, "data.%s[%d].created_at is %v, want a timestamp", key, i, m["created_at"])
			}
			ts, err := time.Parse(time.RFC3339Nano, s)
			if err != nil {
				t.Fatalf(rule, "data.%s[%d].created_at %q is not ISO 8601 with offset: %v", key, i, s, err)
			}
			it.CreatedAt = ts
		}
		out = append(out, it)
	}
	return out
}

// ListKey finds the member of data holding the list: want when given,
// otherwise the single array-valued member other than pagination (the
// reading recorded as PAGE-025 for lists whose key is not named).
func ListKey(t *check.T, rule string, data map[string]any, want string) string {
	if want != "" {
		return want
	}
	var found []string
	for k, v := range data {
		if _, ok := v.([]any); ok && k != "pagination" {
			found = append(found, k)
		}
	}
	if len(found) != 1 {
		t.Fatalf(rule, "data holds %d array members %v, want exactly one list", len(found), found)
	}
	return found[0]
}
