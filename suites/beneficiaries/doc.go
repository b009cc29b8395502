// Package beneficiaries checks fiat beneficiaries (document 1, Resources /
// Beneficiary (fiat); States / Beneficiary approval; Endpoints / Fiat
// accounts, beneficiaries, balances; document 2, Operation codes /
// Beneficiaries): create one record per selected provider, the PROVIDER_B
// name attributes, approval states and staff decisions, bank registration,
// PATCH replacement, DELETE, and binding reach.
package beneficiaries

import (
	"net/http"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

func get(t *check.T, key, path string) *client.Response {
	return t.Do(t.Client(key), client.Request{Method: http.MethodGet, Path: path})
}

// read is GET .../beneficiaries/{id} with the tenant key; it returns the
// beneficiary (data.beneficiary, or data itself when it is the record).
func read(t *check.T, rule, customerID, id string) map[string]any {
	d := shape.EnvelopeAnswer(t, get(t, "tenant", fresh.Beneficiaries(customerID)+"/"+id), shape.Want{Rule: rule, Status: http.StatusOK})
	if b, ok := d["beneficiary"].(map[string]any); ok {
		return b
	}
	return d
}

// withProvider returns the first record whose provider is p, or nil.
func withProvider(bs []map[string]any, p string) map[string]any {
	for _, b := range bs {
		if b["provider"] == p {
			return b
		}
	}
	return nil
}

// without returns a copy of body without the named keys.
func without(body map[string]any, keys ...string) map[string]any {
	out := map[string]any{}
	for k, v := range body {
		out[k] = v
	}
	for _, k := range keys {
		delete(out, k)
	}
	return out
}

// refused asserts r is not a success: a 2xx is a failure under rule.
func refused(t *check.T, rule string, r *client.Response, what string) {
	if r.Status >= 200 && r.Status < 300 {
		t.FatalAt(r, rule, "%s was accepted (%d); it must be refused", what, r.Status)
	}
}
