// Package exchange checks currency conversion (document 1, What the service
// does / Exchange; Resources / Conversion request; States / Conversion
// request; Endpoints / Exchange; document 2, Operation codes / Exchange and
// the platform-wide pause). The conversion.completed payload is checked with
// the real deliveries in suites/webhooks.
package exchange

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// conversions is P/customers/{id}/banking/conversion-requests.
func conversions(customerID string) string {
	return api.Customer(customerID) + "/banking/conversion-requests"
}

// convert posts a conversion request with the tenant key.
func convert(t *check.T, customerID string, body map[string]any) *client.Response {
	return t.Do(t.Client("tenant"), client.Request{Method: http.MethodPost, Path: conversions(customerID), JSON: body, IdempotencyKey: t.NewKey()})
}

// body is a conversion request body; amount is sent as given (a
// json.Number stays an exact JSON number).
func body(from, to string, amount any) map[string]any {
	return map[string]any{"from_currency": from, "to_currency": to, "amount_minor": amount}
}

// price reads GET P/transfer/price with the pair parameter (omitted when
// pair is nil).
func price(t *check.T, pair *string) *client.Response {
	q := url.Values{}
	if pair != nil {
		q.Set("pair", *pair)
	}
	return t.Do(t.Client("tenant"), client.Request{Method: http.MethodGet, Path: api.P + "/transfer/price", Query: q})
}

func ptr(s string) *string { return &s }

// created asserts a taken conversion (200 or 201 envelope with
// data.conversion_request carrying id and status) and returns the record:
// a refusal fails under rule, an answer without data.conversion_request
// under CONV-014 (what the POST returns), a record without id or status
// under CONV-004. A check calling it declares both.
func created(t *check.T, rule string, r *client.Response) map[string]any {
	if r.Status != http.StatusOK && r.Status != http.StatusCreated {
		t.FatalAt(r, rule, "the conversion request answered %d, want 200 or 201: %s", r.Status, shape.Clip(r.Body))
	}
	d := shape.EnvelopeAnswer(t, r, shape.Want{Rule: rule, Status: r.Status})
	cr, ok := d["conversion_request"].(map[string]any)
	if !ok {
		t.FatalAt(r, "CONV-014", "POST conversion-requests answered no data.conversion_request object: data has %v", d)
	}
	shape.String(t, "CONV-004", cr, "id")
	shape.String(t, "CONV-004", cr, "status")
	return cr
}

// refused asserts r was not taken (a 2xx fails under takenRule with the
// message) and is the refusal envelope with status and code under rule; it
// returns the envelope's data.
func refused(t *check.T, r *client.Response, rule string, status int, code, takenRule, format string, args ...any) map[string]any {
	if r.Status/100 == 2 {
		t.FatalAt(r, takenRule, format, args...)
	}
	return shape.EnvelopeAnswer(t, r, shape.Want{Rule: rule, Status: status, Code: code})
}

// setup posts a conversion a check needs (not the one under test): a
// refusal fails under rule, the rule the setup relies on.
func setup(t *check.T, rule, customerID string, b map[string]any) map[string]any {
	r := convert(t, customerID, b)
	if r.Status/100 != 2 {
		t.FatalAt(r, rule, "setup: a conversion request answered %d: %s", r.Status, shape.Clip(r.Body))
	}
	return created(t, rule, r)
}

// read is GET .../conversion-requests/{id} through customerID's path.
func read(t *check.T, customerID, id string) *client.Response {
	return t.Do(t.Client("tenant"), client.Request{Method: http.MethodGet, Path: conversions(customerID) + "/" + id})
}

// control sends a sandbox control call; a failure is no verdict.
func control(t *check.T, path string, in map[string]any) {
	if err := t.Control().Call(t.Context(), http.MethodPost, path, in, nil); err != nil {
		t.NoVerdict(fmt.Errorf("control %s: %w", path, err))
	}
}

// activeCustomer creates a fresh customer and makes it Active through the
// control API (state a check changes is never shared).
func activeCustomer(t *check.T) string {
	id, _ := fresh.Customer(t)
	fresh.Staff(t, id, "Active")
	return id
}

// decimal reads a JSON number or a decimal string exactly.
func decimal(v any) (*big.Rat, bool) {
	var s string
	switch x := v.(type) {
	case json.Number:
		s = x.String()
	case string:
		s = strings.TrimSpace(x)
	default:
		return nil, false
	}
	r, ok := new(big.Rat).SetString(s)
	return r, ok
}

// rateOf finds the rate in a price answer (reading CONV-015: the member
// whose name contains "rate" or "price", a positive JSON number or decimal
// string).
func rateOf(data map[string]any) (*big.Rat, string) {
	for _, k := range slices.Sorted(maps.Keys(data)) {
		v := data[k]
		lk := strings.ToLower(k)
		if strings.Contains(lk, "rate") || strings.Contains(lk, "price") {
			if r, ok := decimal(v); ok && r.Sign() > 0 {
				return r, k
			}
		}
	}
	return nil, ""
}

// expiryOf finds the expiry in a price answer (reading CONV-015: the member
// whose name contains "expir", a string).
func expiryOf(data map[string]any) (string, bool) {
	for _, k := range slices.Sorted(maps.Keys(data)) {
		v := data[k]
		if strings.Contains(strings.ToLower(k), "expir") {
			s, ok := v.(string)
			return s, ok && s != ""
		}
	}
	return "", false
}
