// Package fresh creates throw-away resources on a target for checks that
// mutate state (document 1, Identity and customers: POST P/customers is
// find-or-create by email, so a unique email always yields a new customer),
// and reads them back. It registers no checks.
package fresh

import (
	"net/http"

	"github.com/google/uuid"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// Prefix is the v1 partner prefix P.

// Email returns a unique address in a reserved domain.
func Email() string { return "ts-" + uuid.NewString() + "@example.com" }

// Customer creates a new customer with the tenant key (a tenant-wide key is
// not gated by the end-customer programme) and returns its id and email.
// It is setup under CUST-022 (see Setup).
func Customer(t *check.T) (id, email string) {
	email = Email()
	r := t.Do(t.Client("tenant"), client.Request{Method: http.MethodPost, Path: api.P + "/customers",
		JSON: map[string]any{"email": email, "jurisdiction": "GB"}, IdempotencyKey: t.NewKey()})
	data := Setup(t, "CUST-022", r, "create a customer")
	if inner, ok := data["customer"].(map[string]any); ok {
		data = inner
	}
	id, _ = data["id"].(string)
	if id == "" {
		t.FatalAt(r, "CUST-022", "setup: create a customer: the answer has no data.id: %s", shape.Clip(r.Body))
	}
	return id, email
}

// Setup reads the answer to a request a check needs but does not test
// (creating its fixtures). The spec says such a request succeeds, so
// anything but a 2xx v1 envelope is a failure under rule, the documented
// rule the setup relies on, with that exchange as its evidence: a target
// that cannot create a customer fails CUST-022 in every check that needs
// one, rather than leaving them without a verdict. It returns data.
func Setup(t *check.T, rule string, r *client.Response, what string) map[string]any {
	if r.Status/100 == 2 {
		if m, err := r.JSON(); err == nil {
			if data, ok := m["data"].(map[string]any); ok {
				return data
			}
		}
	}
	t.FatalAt(r, rule, "setup: %s: %s %s answered %d: %s", what, r.Exchange.Request.Method, r.Exchange.Request.URL, r.Status, shape.Clip(r.Body))
	return nil
}

// Create posts a customer body with c and asserts a success envelope
// (200 or 201); it returns data, the customer.
func Create(t *check.T, rule string, c *client.Client, body map[string]any) map[string]any {
	r := t.Do(c, client.Request{Method: http.MethodPost, Path: api.P + "/customers", JSON: body, IdempotencyKey: t.NewKey()})
	return Success(t, rule, r)
}

// Success asserts a 200 or 201 envelope and returns data.
func Success(t *check.T, rule string, r *client.Response) map[string]any {
	want := http.StatusOK
	if r.Status == http.StatusCreated {
		want = http.StatusCreated
	}
	return shape.EnvelopeAnswer(t, r, shape.Want{Rule: rule, Status: want, Why: "or 201"})
}

// Read is GET P/customers/{id} with the tenant key (a refreshing read); it
// returns data, the customer.
func Read(t *check.T, rule, id string) map[string]any {
	r := t.Do(t.Client("tenant"), client.Request{Method: http.MethodGet, Path: api.P + "/customers/" + id})
	return shape.EnvelopeAnswer(t, r, shape.Want{Rule: rule, Status: http.StatusOK})
}

// Status reads a customer's lifecycle status (a refreshing read).
func Status(t *check.T, rule, id string) string {
	return shape.String(t, rule, Read(t, rule, id), "status")
}

// Patch sends PATCH P/customers/{id} with the tenant key.
func Patch(t *check.T, id string, body map[string]any) *client.Response {
	return t.Do(t.Client("tenant"), client.Request{Method: http.MethodPatch, Path: api.P + "/customers/" + id, JSON: body, IdempotencyKey: t.NewKey()})
}

// SetStatus PATCHes an accepted status (Suspended, Blocked, Closed) and
// asserts success under rule.
func SetStatus(t *check.T, rule, id, status string) {
	r := Patch(t, id, map[string]any{"status": status})
	data := shape.EnvelopeAnswer(t, r, shape.Want{Rule: rule, Status: http.StatusOK})
	if got := data["status"]; got != status {
		t.Fatalf(rule, "PATCH status %s answered status %v", status, got)
	}
}

// Kind is the verification kind of a user_type: kyc for Personal, kyb for
// Business.
func Kind(t *check.T, rule string, customer map[string]any) string {
	switch ut := shape.String(t, rule, customer, "user_type"); ut {
	case "Personal":
		return "kyc"
	case "Business":
		return "kyb"
	default:
		t.Fatalf(rule, "user_type is %q, want Personal or Business", ut)
		return ""
	}
}

// Initiate opens a verification session of kind (kyc or kyb) with the
// tenant key.
func Initiate(t *check.T, id, kind string) *client.Response {
	return t.Do(t.Client("tenant"), client.Request{Method: http.MethodPost, Path: api.P + "/customers/" + id + "/onboarding/" + kind + "/initiate", IdempotencyKey: t.NewKey()})
}

// Token asks for a fresh SDK token of kind with the tenant key.
func Token(t *check.T, id, kind string) *client.Response {
	return t.Do(t.Client("tenant"), client.Request{Method: http.MethodPost, Path: api.P + "/customers/" + id + "/onboarding/" + kind + "/token", IdempotencyKey: t.NewKey()})
}

// Started creates a customer, opens its verification session (Draft →
// Onboarding) and returns its id and kind.
func Started(t *check.T, rule string) (id, kind string) {
	id, _ = Customer(t)
	kind = Kind(t, rule, Read(t, rule, id))
	Success(t, rule, Initiate(t, id, kind))
	return id, kind
}

// Decide records the identity provider's decision on the customer's latest
// case through the control API ("approved", "rejected", "pending_review").
func Decide(t *check.T, id, decision string) {
	if err := t.Control().VerificationDecision(t.Context(), id, decision); err != nil {
		t.NoVerdict(err)
	}
}

// Staff sets a lifecycle status directly through the control API (a
// compliance or staff action the public API cannot take).
func Staff(t *check.T, id, status string) {
	if err := t.Control().Call(t.Context(), http.MethodPost, "/customers/"+id+"/status", map[string]any{"status": status}, nil); err != nil {
		t.NoVerdict(err)
	}
}

// ListStatus finds a customer the check created in GET P/customers (tenant
// key) and returns its status as listed. The list is newest first, so the
// customer is on the first small page however long the tenant's list has
// grown (shape.Seek). The list never refreshes verification state, so this
// is the stored status. It fails under rule when the customer is not listed.
func ListStatus(t *check.T, rule, id string) string {
	row, ok := shape.Seek{Client: t.Client("tenant"), Path: api.P + "/customers", Items: "customers"}.Find(t, rule, id)
	if !ok {
		t.Fatalf(rule, "customer %s is not in GET /customers", id)
	}
	return shape.String(t, rule, row.Raw, "status")
}

// Hold holds (or releases) a customer's verification for manual review
// before the provider is called, through the control API.
func Hold(t *check.T, id string, hold bool) {
	if err := t.Control().Call(t.Context(), http.MethodPost, "/customers/"+id+"/manual-hold", map[string]any{"hold": hold}, nil); err != nil {
		t.NoVerdict(err)
	}
}

// Programme switches the end-customer programme for a customer through the
// control API.
func Programme(t *check.T, id string, enabled bool) {
	if err := t.Control().Call(t.Context(), http.MethodPost, "/customers/"+id+"/programme", map[string]any{"enabled": enabled, "level": "customer"}, nil); err != nil {
		t.NoVerdict(err)
	}
}

// Activated creates a customer and brings it to Active: initiate, the
// provider approves, a refreshing read.
func Activated(t *check.T, rule string) string {
	id, _ := Started(t, rule)
	Decide(t, id, "approved")
	if got := Status(t, rule, id); got != "Active" {
		t.Fatalf(rule, "customer %s reads %s after an approved case, want Active", id, got)
	}
	return id
}

// ProgrammeOff switches the end-customer programme off for a customer and
// returns a function that switches it back on; call it deferred.
func ProgrammeOff(t *check.T, id string) (restore func()) {
	Programme(t, id, false)
	return func() {
		if err := t.Control().Call(t.Context(), http.MethodPost, "/customers/"+id+"/programme", map[string]any{"enabled": true, "level": "customer"}, nil); err != nil {
			t.Logf("could not switch the end-customer programme back on for %s: %v", id, err)
		}
	}
}

// Gated asserts 403 sub_customer_onboarding_disabled, reading the code
// from the flat error or the envelope's data.code (ERR-052).
func Gated(t *check.T, rule string, r *client.Response) {
	gated(t, rule, r, false)
}

// GatedWhere is Gated for a check that also judges where the refusal
// carries its code (ERR-052: data.code of an envelope or the top-level code
// of a flat body): a 403 whose code is in neither place fails under
// ERR-052, one naming another code under rule.
func GatedWhere(t *check.T, rule string, r *client.Response) {
	gated(t, rule, r, true)
}

func gated(t *check.T, rule string, r *client.Response, where bool) {
	shape.StatusAnswer(t, r, shape.Want{Rule: rule, Status: http.StatusForbidden, Code: "sub_customer_onboarding_disabled"})
	shape.ContentType(t, rule, r, shape.JSON)
	m := shape.Object(t, rule, r)
	code := m["code"]
	if d, ok := m["data"].(map[string]any); ok && code == nil {
		code = d["code"]
	}
	if where && code == nil {
		t.FatalAt(r, "ERR-052", "the 403 carries its code neither in data.code (envelope) nor in code (flat); body: %s", shape.Clip(r.Body))
	}
	if code != "sub_customer_onboarding_disabled" {
		t.Fatalf(rule, "403 code is %v, want sub_customer_onboarding_disabled; body: %s", code, shape.Clip(r.Body))
	}
}

// ProviderUnreachable makes the identity provider unreachable for
// refreshing reads through the control API and returns a function that
// makes it reachable again; call it deferred.
func ProviderUnreachable(t *check.T) (restore func()) {
	if err := t.Control().Call(t.Context(), http.MethodPost, "/provider", map[string]any{"reachable": false}, nil); err != nil {
		t.NoVerdict(err)
	}
	return func() {
		if err := t.Control().Call(t.Context(), http.MethodPost, "/provider", map[string]any{"reachable": true}, nil); err != nil {
			t.Logf("could not make the identity provider reachable again: %v", err)
		}
	}
}
