package property

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/google/uuid"
	"pgregory.net/rapid"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// The idempotency store (document 1, Common rules): a model of keys on
// PATCH /customers/{id} over two fresh customers and up to two callers (API
// keys tenant and pascal_scopes). Actions send a fresh key (runs), retry a
// stored key identically (replay byte for byte, no re-execution: IDEM-008,
// IDEM-019), with a changed body (409 idempotency_key_reused: IDEM-011), on
// the other customer or with a query string (409: IDEM-010, IDEM-017), or
// under the other caller (executes: IDEM-016). The invariant reads both
// customers back and compares their jurisdictions with the model.

var jurisdictions = []string{"GB", "DE", "FR", "ES", "IE", "NL"}

type sent struct {
	caller, cust int
	key, j       string
	first        *client.Response
}

// idemMachine models two customers and up to two callers (API keys).
type idemMachine struct {
	t       *check.T
	callers []*client.Client
	ids     [2]string
	j       [2]string // the model's jurisdictions
	keys    []sent
	used    map[[2]string]bool // (caller, key) pairs that hold a record
	log     steps
}

func (m *idemMachine) patch(caller, cust int, key, j string, query url.Values) *client.Response {
	c := m.callers[caller]
	r := m.t.Do(c, client.Request{Method: http.MethodPatch, Path: api.P + "/customers/" + m.ids[cust], Query: query, IdempotencyKey: key,
		Body: []byte(`{"jurisdiction":"` + j + `"}`), Header: http.Header{"Content-Type": {"application/json"}}})
	what := fmt.Sprintf("PATCH customer %d jurisdiction %s as %s with key %s", cust+1, j, c.KeyName, key)
	if len(query) > 0 {
		what += " and ?" + query.Encode()
	}
	m.log.add(what, r)
	return r
}

func (m *idemMachine) pick(rt *rapid.T) sent {
	if len(m.keys) == 0 {
		rt.Skip("no key yet")
	}
	return m.keys[rapid.IntRange(0, len(m.keys)-1).Draw(rt, "k")]
}

// Fresh sends a new key: the operation runs and the model moves.
func (m *idemMachine) Fresh(rt *rapid.T) {
	caller := rapid.IntRange(0, len(m.callers)-1).Draw(rt, "caller")
	cust := rapid.IntRange(0, 1).Draw(rt, "customer")
	j := rapid.SampledFrom(jurisdictions).Draw(rt, "j")
	key := "ts-" + uuid.NewString()
	r := m.patch(caller, cust, key, j, nil)
	if r.Status != http.StatusOK {
		m.log.fail(rt, "IDEM-008: a fresh key answered %d, want 200", r.Status)
	}
	m.j[cust] = j
	m.keys = append(m.keys, sent{caller, cust, key, j, r})
	m.used[[2]string{strconv.Itoa(caller), key}] = true
}

// Replay retries a stored key with the identical request: the stored
// answer byte for byte, and the customer does not change.
func (m *idemMachine) Replay(rt *rapid.T) {
	s := m.pick(rt)
	r := m.patch(s.caller, s.cust, s.key, s.j, nil)
	if r.Status != s.first.Status || !bytes.Equal(r.Body, s.first.Body) ||
		r.Header.Get("Content-Type") != s.first.Header.Get("Content-Type") {
		m.log.fail(rt, "IDEM-019: the identical retry answered %d %q, want the first answer %d %q byte for byte",
			r.Status, shape.Clip(r.Body), s.first.Status, shape.Clip(s.first.Body))
	}
}

// Changed retries a stored key with another body: 409
// idempotency_key_reused, and nothing runs.
func (m *idemMachine) Changed(rt *rapid.T) {
	s := m.pick(rt)
	j := rapid.SampledFrom(jurisdictions).Filter(func(x string) bool { return x != s.j }).Draw(rt, "other")
	m.reused(rt, "IDEM-011", "a changed body", m.patch(s.caller, s.cust, s.key, j, nil))
}

// OtherPath retries a stored key with the same body on the other customer
// or with a query string added: 409 idempotency_key_reused.
func (m *idemMachine) OtherPath(rt *rapid.T) {
	s := m.pick(rt)
	if rapid.Bool().Draw(rt, "query") {
		m.reused(rt, "IDEM-010/IDEM-017", "a query string added (the path includes the query)", m.patch(s.caller, s.cust, s.key, s.j, url.Values{"ts": {"1"}}))
		return
	}
	m.reused(rt, "IDEM-010", "another path", m.patch(s.caller, 1-s.cust, s.key, s.j, nil))
}

// OtherCaller sends a stored key's identical request under the other API
// key, which has no record of it: it executes (IDEM-016).
func (m *idemMachine) OtherCaller(rt *rapid.T) {
	if len(m.callers) < 2 {
		rt.Skip("one caller")
	}
	s := m.pick(rt)
	other := 1 - s.caller
	if m.used[[2]string{strconv.Itoa(other), s.key}] {
		rt.Skip("the other caller holds this key already")
	}
	if m.j[s.cust] == s.j {
		rt.Skip("the customer already has this jurisdiction: execution and replay look alike")
	}
	r := m.patch(other, s.cust, s.key, s.j, nil)
	if r.Status != http.StatusOK {
		m.log.fail(rt, "IDEM-016: another API key with the same key answered %d %q, want 200 (its own record)", r.Status, shape.Clip(r.Body))
	}
	if got := m.read(rt, s.cust); got != s.j {
		m.log.fail(rt, "IDEM-016: another API key's request with the same key answered 200 but customer %d's jurisdiction is %s, want %s: it was replayed from the first caller's record instead of executing", s.cust+1, got, s.j)
	}
	m.j[s.cust] = s.j
	m.keys = append(m.keys, sent{other, s.cust, s.key, s.j, r})
	m.used[[2]string{strconv.Itoa(other), s.key}] = true
}

func (m *idemMachine) reused(rt *rapid.T, rule, what string, r *client.Response) {
	if r.Status != http.StatusConflict || problemCode(r) != "idempotency_key_reused" {
		m.log.fail(rt, "%s: the same key with %s answered %d %q, want 409 idempotency_key_reused", rule, what, r.Status, shape.Clip(r.Body))
	}
}

// Check reads both customers back: their jurisdictions are the model's
// (a retry that re-executed, or a refused one that ran, moves one).
func (m *idemMachine) Check(rt *rapid.T) {
	for i := range m.ids {
		if got := m.read(rt, i); got != m.j[i] {
			m.log.fail(rt, "IDEM-008: customer %d's jurisdiction is %s, the model's %s: a retry re-executed, a refused request ran, or a write was lost", i+1, got, m.j[i])
		}
	}
}

// read is customer i's jurisdiction, read with the first caller.
func (m *idemMachine) read(rt *rapid.T, i int) string {
	r := m.t.Do(m.callers[0], client.Request{Method: http.MethodGet, Path: api.P + "/customers/" + m.ids[i]})
	m.log.add(fmt.Sprintf("GET customer %d", i+1), r)
	var env struct {
		Data struct {
			Jurisdiction string `json:"jurisdiction"`
			Customer     *struct {
				Jurisdiction string `json:"jurisdiction"`
			} `json:"customer"`
		} `json:"data"`
	}
	if r.Status != http.StatusOK || json.Unmarshal(r.Body, &env) != nil {
		m.log.fail(rt, "reading customer %d back answered %d %q", i+1, r.Status, shape.Clip(r.Body))
	}
	if env.Data.Customer != nil {
		return env.Data.Customer.Jurisdiction
	}
	return env.Data.Jurisdiction
}

// problemCode is the code member of a problem+json answer ("" otherwise).
func problemCode(r *client.Response) string {
	var p struct {
		Code string `json:"code"`
	}
	if r.ContentType() != "application/problem+json" || json.Unmarshal(r.Body, &p) != nil {
		return ""
	}
	return p.Code
}

// createCustomer makes the case's customer (a fixture step: no verdict on failure).
func createCustomer(t *check.T, c *client.Client) string {
	r := t.Do(c, client.Request{Method: http.MethodPost, Path: api.P + "/customers", IdempotencyKey: t.NewKey(),
		JSON: map[string]any{"email": "ts-" + uuid.NewString() + "@example.com", "jurisdiction": "GB"}})
	var env struct {
		Data struct {
			ID       string `json:"id"`
			Customer *struct {
				ID string `json:"id"`
			} `json:"customer"`
		} `json:"data"`
	}
	if r.Status/100 != 2 || json.Unmarshal(r.Body, &env) != nil {
		t.NoVerdict(fmt.Errorf("cannot create a customer for the property: POST /customers answered %d", r.Status))
	}
	if env.Data.Customer != nil {
		return env.Data.Customer.ID
	}
	return env.Data.ID
}

// idempotencyChecks are the checks of idempotency.go.
func idempotencyChecks() []check.Check {
	return []check.Check{
		{
			ID:     "property/idempotency-store",
			Title:  "random sequences of fresh keys, identical retries, retries with a changed body, path, query or caller on PATCH /customers/{id} (two customers, two API keys) match the idempotency model",
			Rules:  []string{"IDEM-008", "IDEM-010", "IDEM-011", "IDEM-016", "IDEM-017", "IDEM-019"},
			Labels: []string{check.Mutating, Label}, Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				c := t.Client("tenant")
				counted(c) // thousands of steps: the failure message carries the shrunk ones
				callers := []*client.Client{c}
				if t.Profile().Key("pascal_scopes") != "" {
					o := t.Client("pascal_scopes")
					counted(o)
					callers = append(callers, o)
				} else {
					t.NotJudged("profile has no keys.pascal_scopes: the model uses one caller, so who 'the caller' is is not exercised; add keys.pascal_scopes", "IDEM-016")
				}
				run(t, "property/idempotency-store", []string{"IDEM-008", "IDEM-010", "IDEM-011", "IDEM-016", "IDEM-017", "IDEM-019"}, func(rt *rapid.T) {
					m := &idemMachine{t: t, callers: callers, j: [2]string{"GB", "GB"}, used: map[[2]string]bool{}}
					m.ids = [2]string{createCustomer(t, c), createCustomer(t, c)}
					rt.Repeat(rapid.StateMachineActions(m))
				})
			},
		},
	}
}
