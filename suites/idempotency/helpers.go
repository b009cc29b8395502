package idempotency

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

const (
	customers = api.P + "/customers"
)

// Rules of document 1, Common rules, and document 2, Errors/Limits.

// mib is the replay-protection size limit (document 2, Limits).
const mib = 1 << 20

// freshEmail is an email no customer has.
func freshEmail() string { return "ts-" + uuid.NewString() + "@example.com" }

// customerOf reads the customer out of a 2xx customer response: data
// itself, or data.customer when the target nests it.
func customerOf(t *check.T, rule string, r *client.Response) map[string]any {
	if r.Status/100 != 2 {
		t.Fatalf(rule, "status %d, want 2xx; body: %s", r.Status, shape.Clip(r.Body))
	}
	data := shape.EnvelopeAnswer(t, r, shape.Want{Rule: rule, Status: r.Status})
	if inner, ok := data["customer"].(map[string]any); ok {
		return inner
	}
	return data
}

// createCustomer creates a fresh customer with the tenant key and returns
// its id (setup: see fresh.Customer).
func createCustomer(t *check.T) string {
	id, _ := fresh.Customer(t)
	return id
}

// readCustomer reads a customer with the tenant key.
func readCustomer(t *check.T, id string) map[string]any {
	r := t.Do(t.Client("tenant"), client.Request{Method: http.MethodGet, Path: customers + "/" + id})
	if r.Status != http.StatusOK {
		t.NoVerdict(fmt.Errorf("cannot read customer %s: %d %s", id, r.Status, shape.Clip(r.Body)))
	}
	return customerOf(t, "CUST-010", r)
}

func jurisdiction(t *check.T, id string) string {
	j, _ := readCustomer(t, id)["jurisdiction"].(string)
	return j
}

func reference(t *check.T, id string) string {
	e, _ := readCustomer(t, id)["external_reference"].(string)
	return e
}

// jsonBody is a PATCH body setting the jurisdiction.
func jsonBody(j string) []byte { return []byte(`{"jurisdiction":"` + j + `"}`) }

// patch sends PATCH /customers/{id} with a raw JSON body and a key
// (key "" sends none).
func patch(t *check.T, c *client.Client, id, key string, body []byte) *client.Response {
	return t.Do(c, client.Request{Method: http.MethodPatch, Path: customers + "/" + id, IdempotencyKey: key,
		Body: body, Header: http.Header{"Content-Type": {"application/json"}}})
}

// setJurisdiction changes a customer with a fresh key (the interleaved
// change that tells a replay from a re-execution).
func setJurisdiction(t *check.T, id, j string) {
	r := patch(t, t.Client("tenant"), id, t.NewKey(), jsonBody(j))
	if r.Status != http.StatusOK {
		t.NoVerdict(fmt.Errorf("cannot set the jurisdiction of %s to %s: %d %s", id, j, r.Status, shape.Clip(r.Body)))
	}
}

// customersMark is the newest customer's created_at before a check makes
// any (shape.Seek.Mark).
func customersMark(t *check.T) time.Time {
	return shape.Seek{Client: t.Client("tenant"), Path: customers, Items: "customers"}.Mark(t, "CUST-009")
}

// countByReference counts the tenant's customers made since mark whose
// external_reference is email: the newest rows of the list, read from its
// front, however many customers earlier runs left behind and whatever
// other checks add meanwhile.
func countByReference(t *check.T, mark time.Time, email string) int {
	n := 0
	for _, it := range (shape.Seek{Client: t.Client("tenant"), Path: customers, Items: "customers"}).Newer(t, "CUST-009", mark) {
		if it.Raw["external_reference"] == email {
			n++
		}
	}
	return n
}

// invalidKey asserts the 400 problem+json idempotency_key_invalid.
func invalidKey(t *check.T, rule string, r *client.Response, what string) {
	shape.ProblemAnswer(t, r, shape.Want{Rule: rule, Status: http.StatusBadRequest, Code: "idempotency_key_invalid", What: what})
}

// conflict asserts a 409 problem+json with code under rule.
func conflict(t *check.T, rule string, r *client.Response, code, what string) {
	shape.ProblemAnswer(t, r, shape.Want{Rule: rule, Status: http.StatusConflict, Code: code, ShapeRule: "IDEM-022", What: what})
}

// same asserts a replay: status, Content-Type and body byte for byte.
func same(t *check.T, first, again *client.Response, what string) {
	shape.SameResponse(t, "IDEM-019", first, again, what)
}

// visibleKey is a valid key of exactly n characters (n >= 8).
func visibleKey(n int) string {
	base := strings.ReplaceAll(uuid.NewString()+uuid.NewString(), "-", "")
	var b strings.Builder
	b.WriteString("ts")
	for b.Len() < n {
		b.WriteString(base)
	}
	return b.String()[:n]
}

var errorf = fmt.Errorf

// idOf reads the id of the customer in a 2xx customer response.
func idOf(t *check.T, r *client.Response) string {
	return shape.String(t, "CUST-022", customerOf(t, "CUST-022", r), "id")
}
