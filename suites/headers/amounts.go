package headers

// Amount member types across the v1 money reads (document 1, Resources /
// Response envelope (v1): "*_minor are integers; *_major and executed_rate
// are JSON numbers or null"; ENV-007).

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
)

// amountReads are the v1 reads that carry amounts: balances, deposits,
// withdrawals, conversions, fees and internal transfers of the profile's
// customers (each read only where the profile names its customer).
func amountReads(t *check.T) []sampled {
	tk := t.Client("tenant")
	get := func(path string, q url.Values) sampled {
		return sampled{what: "GET " + path, r: t.Do(tk, client.Request{Method: http.MethodGet, Path: path, Query: q}), v1: true}
	}
	var out []sampled
	customers := t.Profile().CustomerMap()
	for _, name := range []string{"active_personal", "active_business", "exchange"} {
		id := customers[name]
		if id == "" {
			continue
		}
		c := api.Customer(id)
		for _, p := range []string{"/banking/balance", "/banking/deposits", "/banking/withdrawals", "/banking/conversion-requests", "/crypto/withdrawals", "/crypto/deposits", "/fees"} {
			out = append(out, get(c+p, url.Values{"limit": {"20"}}))
		}
	}
	if parent, child := customers["parent"], customers["child"]; parent != "" && child != "" {
		out = append(out, get(api.Customer(parent)+"/end-customers/"+child+"/internal-transfers", nil))
	}
	out = append(out, get(api.P+"/commercial-config", nil))
	return out
}

// amountTypes walks one JSON body with the literal text of every number
// kept and reports each amount member of the wrong type; it returns how
// many amount members it saw.
func amountTypes(body []byte) (seen int, wrong []string) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return 0, nil
	}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(x)) {
				val := x[k]
				p := path + "." + k
				switch {
				case strings.HasSuffix(k, "_minor"):
					seen++
					if n, ok := val.(json.Number); !ok || strings.ContainsAny(n.String(), ".eE") {
						wrong = append(wrong, fmt.Sprintf("%s is %s, want a JSON integer", p, literal(val)))
					}
				case strings.HasSuffix(k, "_major") || k == "executed_rate":
					seen++
					if _, ok := val.(json.Number); !ok && val != nil {
						wrong = append(wrong, fmt.Sprintf("%s is %s, want a JSON number or null", p, literal(val)))
					}
				}
				walk(p, val)
			}
		case []any:
			for i, e := range x {
				walk(fmt.Sprintf("%s[%d]", path, i), e)
			}
		}
	}
	walk("$", v)
	return seen, wrong
}

func literal(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// amountsChecks are the checks of amounts.go.
func amountsChecks() []check.Check {
	return []check.Check{
		{
			ID:    "headers/amount-member-types",
			Title: "across the v1 money reads every *_minor member is a JSON integer and every *_major member and executed_rate a JSON number or null",
			Rules: []string{"ENV-007"},
			Needs: []string{"keys.tenant", "customers.active_personal"},
			Run: func(t *check.T) {
				total := 0
				for _, s := range amountReads(t) {
					if s.r.Status/100 != 2 {
						continue
					}
					seen, wrong := amountTypes(s.r.Body)
					total += seen
					if len(wrong) > 0 {
						t.ErrorAt(s.r, "ENV-007", "%s: %s", s.what, strings.Join(wrong, "; "))
					}
				}
				// Reads that answered no amount prove nothing about amount
				// types: no verdict rather than a vacuous pass.
				t.Logf("%d amount members read", total)
				if total < 5 {
					t.NoVerdict(fmt.Errorf("the money reads answered %d amount members in all; the check needs at least 5 (balances, deposits, withdrawals, fees) to judge", total))
				}
			},
		},
	}
}
