package headers

// Document 1, Resources and their fields / Response envelope (v1) and
// Customer: every v1 success body is {success, status_code (the HTTP
// status), message (string), data (object)}; ids are UUID strings;
// customer timestamps are ISO 8601 with an offset.

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

var (
	uuidRe = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
	// ISO 8601 date-time with an offset (Z or ±hh:mm / ±hhmm).
	// ISO 8601 date or date-time, the offset optional.
	isoRe       = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}([Tt]\d{2}:\d{2}(:\d{2}([.,]\d+)?)?([Zz]|[+-]\d{2}(:?\d{2})?)?)?$`)
	isoOffsetRe = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}(:?\d{2})?)$`)
)

// uuidKeys are members that hold ids on the routes read here.
var uuidKeys = map[string]bool{"id": true, "customer_id": true, "parent_customer_id": true}

// walkIDs asserts every id member (and every delegated_customer_ids
// element) under v is a UUID string or null, and counts them.
func walkIDs(t *check.T, v any, path string, n *int) {
	switch x := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			e := x[k]
			p := path + "." + k
			switch {
			case uuidKeys[k]:
				if e == nil && k != "id" {
					continue
				}
				if s, ok := e.(string); !ok || !uuidRe.MatchString(s) {
					// A customer record's own id has its own sentence.
					rule := "ENV-006"
					if k == "id" && x["record_type"] == "Customer" {
						rule = "CUST-001"
					}
					t.Errorf(rule, "%s is %v, want a UUID string", p, e)
				}
				*n++
			case k == "delegated_customer_ids":
				for i, id := range asArray(e) {
					if s, ok := id.(string); !ok || !uuidRe.MatchString(s) {
						t.Errorf("ENV-006", "%s[%d] is %v, want a UUID string", p, i, id)
					}
					*n++
				}
			default:
				walkIDs(t, e, p, n)
			}
		}
	case []any:
		for i, e := range x {
			walkIDs(t, e, path+"["+strconv.Itoa(i)+"]", n)
		}
	}
}

func asArray(v any) []any {
	a, _ := v.([]any)
	return a
}

// customerTimestamps asserts created_at and updated_at of a customer.
func customerTimestamps(t *check.T, c map[string]any, path string) {
	for _, k := range []string{"created_at", "updated_at"} {
		s, ok := c[k].(string)
		if !ok || !isoOffsetRe.MatchString(s) {
			t.Errorf("CUST-008", "%s.%s is %v, want an ISO 8601 timestamp with an offset", path, k, c[k])
		}
	}
}

// isoTimestamps asserts every *_at member of a record is an ISO 8601
// string (or null: a moment that has not happened).
func isoTimestamps(t *check.T, r *client.Response, rec map[string]any, path string) {
	for _, k := range slices.Sorted(maps.Keys(rec)) {
		if !strings.HasSuffix(k, "_at") || rec[k] == nil {
			continue
		}
		if s, ok := rec[k].(string); !ok || !isoRe.MatchString(s) {
			t.ErrorAt(r, "ENV-006", "%s.%s is %v, want an ISO 8601 timestamp", path, k, rec[k])
		}
	}
}

// customerIn finds the customer object in a by-id read: data itself or
// data.customer.
func customerIn(data map[string]any) (map[string]any, string) {
	if c, ok := data["customer"].(map[string]any); ok {
		return c, "data.customer"
	}
	return data, "data"
}

// envelopeHead asserts, before the envelope's members are judged under
// ENV-001, that success is true on a 2xx (ENV-002) and that status_code
// repeats the HTTP status (ENV-003), each stopping the check.
func envelopeHead(t *check.T, r *client.Response, what string) {
	m, err := r.JSON()
	if err != nil {
		return // the envelope judgement says it
	}
	if s, ok := m["success"].(bool); ok && r.Status/100 == 2 && !s {
		t.FatalAt(r, "ENV-002", "%s (%d): envelope success false on a 2xx", what, r.Status)
	}
	if n, ok := m["status_code"].(json.Number); ok && n.String() != strconv.Itoa(r.Status) {
		t.FatalAt(r, "ENV-003", "%s: envelope status_code %s, HTTP status %d; it repeats the HTTP status", what, n, r.Status)
	}
}

// envelopeChecks are the checks of envelope.go.
func envelopeChecks() []check.Check {
	return []check.Check{
		{
			ID:    "headers/envelope-on-reads",
			Title: "v1 reads answer the envelope: success true, status_code equal to the HTTP status, message string, data object",
			Rules: []string{"ENV-001", "ENV-002", "ENV-003", "ENV-009"},
			Needs: []string{"keys.tenant", "customers.active_personal"},
			Run: func(t *check.T) {
				c := t.Client("tenant")
				ap := t.Customer("active_personal")
				for _, path := range []string{api.P + "/me", api.P + "/customers", api.P + "/customers/" + ap, api.P + "/customers/" + ap + "/onboarding/status"} {
					r := t.Do(c, client.Request{Method: http.MethodGet, Path: path})
					envelopeHead(t, r, "GET "+path)
					shape.EnvelopeAnswer(t, r, shape.Want{Rule: "ENV-001", MediaRule: "ENV-009", Status: http.StatusOK, What: fmt.Sprintf("GET %s", path)})
				}
			},
		},
		{
			ID:     "headers/envelope-on-create",
			Title:  "a v1 create answers the envelope with success true and status_code equal to its 2xx status",
			Rules:  []string{"ENV-003", "ENV-002", "ENV-001"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant"},
			Run: func(t *check.T) {
				r := t.Do(t.Client("tenant"), client.Request{Method: http.MethodPost, Path: api.P + "/customers", IdempotencyKey: t.NewKey(),
					JSON: map[string]any{"email": "ts-" + uuid.NewString() + "@example.com", "jurisdiction": "GB"}})
				if r.Status/100 != 2 {
					t.Fatalf("ENV-003", "POST /customers (tenant key, fresh email): status %d, want 2xx; body: %s", r.Status, shape.Clip(r.Body))
				}
				envelopeHead(t, r, "POST /customers")
				shape.EnvelopeAnswer(t, r, shape.Want{Rule: "ENV-003", ShapeRule: "ENV-001", Status: r.Status})
			},
		},
		{
			ID:    "headers/envelope-ids-and-timestamps",
			Title: "ids in v1 bodies are UUID strings; customer timestamps are ISO 8601 with an offset, end-customer timestamps ISO 8601",
			Rules: []string{"ENV-006", "CUST-001", "CUST-008"},
			Needs: []string{"keys.tenant", "customers.active_personal"},
			Run: func(t *check.T) {
				tk := t.Client("tenant")
				n := 0
				// /me of a subject key carries customer_id and delegated ids.
				if t.Profile().Key("subject") != "" {
					r := t.Do(t.Client("subject"), client.Request{Method: http.MethodGet, Path: api.P + "/me"})
					walkIDs(t, shape.EnvelopeAnswer(t, r, shape.Want{Rule: "ENV-006", Status: http.StatusOK}), "data", &n)
				}
				r := t.Do(tk, client.Request{Method: http.MethodGet, Path: api.P + "/customers/" + t.Customer("active_personal")})
				data := shape.EnvelopeAnswer(t, r, shape.Want{Rule: "ENV-006", Status: http.StatusOK})
				walkIDs(t, data, "data", &n)
				cust, at := customerIn(data)
				customerTimestamps(t, cust, at)
				l := t.Do(tk, client.Request{Method: http.MethodGet, Path: api.P + "/customers", Query: url.Values{"limit": {"20"}}})
				ldata := shape.EnvelopeAnswer(t, l, shape.Want{Rule: "ENV-006", Status: http.StatusOK})
				walkIDs(t, ldata, "data", &n)
				for i, x := range shape.Array(t, "ENV-006", ldata, "customers") {
					if m, ok := x.(map[string]any); ok {
						customerTimestamps(t, m, "data.customers["+strconv.Itoa(i)+"]")
					}
				}
				// A list of records other than customers: the parent's end
				// customers, their ids and timestamps.
				if parent := t.Profile().CustomerMap()["parent"]; parent != "" {
					e := t.Do(tk, client.Request{Method: http.MethodGet, Path: api.P + "/customers/" + parent + "/end-customers"})
					edata := shape.EnvelopeAnswer(t, e, shape.Want{Rule: "ENV-006", Status: http.StatusOK})
					walkIDs(t, edata, "data", &n)
					for i, x := range shape.Array(t, "ENV-006", edata, "end_customers") {
						if m, ok := x.(map[string]any); ok {
							isoTimestamps(t, e, m, "data.end_customers["+strconv.Itoa(i)+"]")
						}
					}
				}
				if n == 0 {
					t.Errorf("ENV-006", "no id member found in GET /me, GET /customers/{id} or GET /customers")
				}
			},
		},
	}
}
