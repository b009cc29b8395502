package property

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/google/uuid"
	"pgregory.net/rapid"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/suites/api"
	"github.com/touchstone-harness/touchstone/suites/shape"
)

// The idempotency store (document 1, Common rules): a model of keys on
// PATCH /customers/{id}. Each case gets a fresh customer; actions send a
// fresh key, retry a stored key identically (replay byte for byte, no
// re-execution: IDEM-008, IDEM-019), or retry it with a changed body (409
// idempotency_key_reused: IDEM-011). The invariant reads the customer back
// and compares its jurisdiction with the model (a re-executed retry moves it).

var jurisdictions = []string{"GB", "DE", "FR", "ES", "IE", "NL"}

type sent struct {
	key, j string
	first  *client.Response
}

type idemMachine struct {
	t    *check.T
	c    *client.Client
	id   string
	j    string // the model's jurisdiction
	keys []sent
	log  steps
}

func (m *idemMachine) patch(key, j string) *client.Response {
	r := m.t.Do(m.c, client.Request{Method: http.MethodPatch, Path: api.P + "/customers/" + m.id, IdempotencyKey: key,
		Body: []byte(`{"jurisdiction":"` + j + `"}`), Header: http.Header{"Content-Type": {"application/json"}}})
	m.log.add(fmt.Sprintf("PATCH jurisdiction %s with key %s", j, key), r)
	return r
}

// Fresh sends a new key: the operation runs and the model moves.
func (m *idemMachine) Fresh(rt *rapid.T) {
	j := rapid.SampledFrom(jurisdictions).Draw(rt, "j")
	key := "ts-" + uuid.NewString()
	r := m.patch(key, j)
	if r.Status != http.StatusOK {
		m.log.fail(rt, "IDEM-008: a fresh key answered %d, want 200", r.Status)
	}
	m.j = j
	m.keys = append(m.keys, sent{key, j, r})
}

// Replay retries a stored key with the identical request: the stored
// answer byte for byte, and the customer does not change.
func (m *idemMachine) Replay(rt *rapid.T) {
	if len(m.keys) == 0 {
		rt.Skip("no key yet")
	}
	s := m.keys[rapid.IntRange(0, len(m.keys)-1).Draw(rt, "k")]
	r := m.patch(s.key, s.j)
	if r.Status != s.first.Status || !bytes.Equal(r.Body, s.first.Body) ||
		r.Header.Get("Content-Type") != s.first.Header.Get("Content-Type") {
		m.log.fail(rt, "IDEM-019: the identical retry answered %d %q, want the first answer %d %q byte for byte",
			r.Status, shape.Clip(r.Body), s.first.Status, shape.Clip(s.first.Body))
	}
}

// Changed retries a stored key with another body: 409
// idempotency_key_reused, and nothing runs.
func (m *idemMachine) Changed(rt *rapid.T) {
	if len(m.keys) == 0 {
		rt.Skip("no key yet")
	}
	s := m.keys[rapid.IntRange(0, len(m.keys)-1).Draw(rt, "k")]
	j := rapid.SampledFrom(jurisdictions).Filter(func(x string) bool { return x != s.j }).Draw(rt, "other")
	r := m.patch(s.key, j)
	if r.Status != http.StatusConflict || problemCode(r) != "idempotency_key_reused" {
		m.log.fail(rt, "IDEM-011: the same key with a changed body answered %d %q, want 409 idempotency_key_reused", r.Status, shape.Clip(r.Body))
	}
}

// Check reads the customer back: its jurisdiction is the model's.
func (m *idemMachine) Check(rt *rapid.T) {
	if m.id == "" {
		return
	}
	r := m.t.Do(m.c, client.Request{Method: http.MethodGet, Path: api.P + "/customers/" + m.id})
	m.log.add("GET the customer", r)
	var env struct {
		Data struct {
			Jurisdiction string `json:"jurisdiction"`
			Customer     *struct {
				Jurisdiction string `json:"jurisdiction"`
			} `json:"customer"`
		} `json:"data"`
	}
	if r.Status != http.StatusOK || json.Unmarshal(r.Body, &env) != nil {
		m.log.fail(rt, "reading the customer back answered %d %q", r.Status, shape.Clip(r.Body))
	}
	got := env.Data.Jurisdiction
	if env.Data.Customer != nil {
		got = env.Data.Customer.Jurisdiction
	}
	if got != m.j {
		m.log.fail(rt, "IDEM-008: the customer's jurisdiction is %s, the model's %s: a retry re-executed or a write was lost", got, m.j)
	}
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

func init() {
	check.Register(check.Check{
		ID:     "property/idempotency-store",
		Title:  "random sequences of fresh keys, identical retries and changed-body retries on PATCH /customers/{id} match the idempotency model",
		Rules:  []string{"IDEM-008", "IDEM-011", "IDEM-019"},
		Labels: []string{check.Mutating, Label}, Needs: []string{"keys.tenant"},
		Run: func(t *check.T) {
			c := t.Client("tenant")
			c.Record = nil // thousands of steps: the failure message carries the shrunk ones
			run(t, "property/idempotency-store", []string{"IDEM-008", "IDEM-011", "IDEM-019"}, func(rt *rapid.T) {
				m := &idemMachine{t: t, c: c, j: "GB"}
				m.id = createCustomer(t, c)
				rt.Repeat(rapid.StateMachineActions(m))
			})
		},
	})
}
