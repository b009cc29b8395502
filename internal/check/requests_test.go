package check

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/openapicheck"
	"github.com/touchstone-harness/touchstone/internal/profile"
	"github.com/touchstone-harness/touchstone/internal/redact"
)

// wrongDocument describes POST customers with a closed body that lists
// email only: jurisdiction, which the spec requires and every client
// sends, is missing from the schema.
const wrongDocument = `{"openapi":"3.0.3","info":{"title":"t","version":"1"},"paths":{"/api/v1/partner/customers":{"post":{"operationId":"createCustomer",
"requestBody":{"required":true,"content":{"application/json":{"schema":{"type":"object","additionalProperties":false,"required":["email"],"properties":{"email":{"type":"string"}}}}}},
"responses":{"201":{"description":"created"},"422":{"description":"refused"}}}}}}`

// documentedServer serves doc at both document paths and answers every
// other request with status and an empty JSON object.
func documentedServer(t *testing.T, doc string, status int) *Target {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if strings.HasPrefix(r.URL.Path, "/openapi/") {
			w.Write([]byte(doc))
			return
		}
		w.WriteHeader(status)
		w.Write([]byte(`{}`))
	}))
	t.Cleanup(srv.Close)
	p := &profile.Profile{BaseURL: srv.URL, Keys: profile.Keys{Tenant: "svc_sandbox_0123456789abcdef.s3cretvalue"}}
	tgt := &Target{Profile: p, HTTP: srv.Client(), Redactor: redact.New(p.Secrets()...)}
	var err error
	if tgt.Schemas, err = openapicheck.Load(context.Background(), srv.Client(), srv.URL); err != nil {
		t.Fatal(err)
	}
	return tgt
}

func createCustomer(body string, failing bool) *Check {
	return &Check{ID: "demo/create-customer", Title: "t", Rules: []string{"CUST-001"}, Run: func(t *T) {
		r := t.Do(t.Client("tenant"), client.Request{Method: http.MethodPost, Path: "/api/v1/partner/customers", Body: []byte(body),
			Header: http.Header{"Content-Type": {"application/json"}}, IdempotencyKey: t.NewKey()})
		if failing {
			t.ErrorAt(r, "CUST-001", "a failure of the check's own")
		}
	}}
}

// A request the target accepted is validated against the target's
// documents: a document that leaves out a member the harness always sends
// (and closes the object) is a finding under the response-schema rule,
// whose evidence is that request. A refused request is not judged.
func TestAcceptedRequestNotInTheDocumentIsAFinding(t *testing.T) {
	res := Run(context.Background(), documentedServer(t, wrongDocument, http.StatusCreated),
		createCustomer(`{"email":"ada@example.com","jurisdiction":"GB"}`, false))
	if res.Status != Failed || len(res.Failures) != 1 || res.Failures[0].Rule != SchemaRule {
		t.Fatalf("result %s %+v, want one %s failure", res.Status, res.Failures, SchemaRule)
	}
	f := res.Failures[0]
	if !strings.Contains(f.Message, "request accepted by the target") || !strings.Contains(f.Message, "jurisdiction") {
		t.Errorf("message %q does not say the accepted request's jurisdiction is not in the document", f.Message)
	}
	if f.Exchange == nil || f.Exchange.Request.Method != http.MethodPost {
		t.Errorf("evidence %+v, want the POST", f.Exchange)
	}
	// The same request refused is not judged: the checks send malformed
	// requests on purpose to see them refused.
	res = Run(context.Background(), documentedServer(t, wrongDocument, http.StatusUnprocessableEntity),
		createCustomer(`{"email":"ada@example.com","jurisdiction":"GB"}`, false))
	if res.Status != Passed {
		t.Errorf("refused: result %s %+v, want passed", res.Status, res.Failures)
	}
}

// A body that is not what its own Content-Type says is the harness's
// mistake: no verdict, unless the check failed on its own.
func TestHarnessMistakeIsNoVerdict(t *testing.T) {
	tgt := documentedServer(t, wrongDocument, http.StatusCreated)
	res := Run(context.Background(), tgt, createCustomer(`{"email":`, false))
	if res.Status != Error || !strings.Contains(res.Error, "harness") || len(res.Failures) != 0 {
		t.Fatalf("result %s %q %+v, want no verdict naming the harness", res.Status, res.Error, res.Failures)
	}
	res = Run(context.Background(), tgt, createCustomer(`{"email":`, true))
	if res.Status != Failed || len(res.Failures) != 1 || res.Failures[0].Rule != "CUST-001" {
		t.Fatalf("result %s %+v, want the check's own failure", res.Status, res.Failures)
	}
}

// TestTheMinimumIsTheLargestOfTheBudgets: on a real clock the printed
// minimum is the largest of the failed-auth, tenant and busiest-route
// windows; the tenant's whole-budget minutes count as tenant windows,
// not on top of the failed-auth ones (requests refused at the key step
// spend no tenant budget, so those minutes carry failed authentications
// too).
func TestTheMinimumIsTheLargestOfTheBudgets(t *testing.T) {
	var cs []*Check
	for i := range 5 {
		// 5 × 19 = 95 failed authentications: 5 windows.
		cs = append(cs, &Check{ID: fmt.Sprintf("demo/refusals-%d", i), FailedAuth: 19})
	}
	for i := range 3 {
		cs = append(cs, &Check{ID: fmt.Sprintf("demo/tenant-whole-%d", i), Budget: &Budget{WholeTenant: true, Tenant: 6001}})
	}
	d, why := realClockMinimum(Estimate{Requests: 3 * 6001, wholeRequests: 3 * 6001}, cs, 0)
	if d != 4*time.Minute {
		t.Errorf("minimum %s (%s), want 4m0s: 5 failed-auth windows, the 3 whole-tenant minutes among them", d, why)
	}
	cs = append(cs, &Check{ID: "demo/tenant-whole-3", Budget: &Budget{WholeTenant: true, Tenant: 6001}},
		&Check{ID: "demo/tenant-whole-4", Budget: &Budget{WholeTenant: true, Tenant: 6001}},
		&Check{ID: "demo/tenant-whole-5", Budget: &Budget{WholeTenant: true, Tenant: 6001}})
	d, why = realClockMinimum(Estimate{Requests: 6*6001 + 5000, wholeRequests: 6 * 6001}, cs, 0)
	if d != 6*time.Minute {
		t.Errorf("minimum %s (%s), want 6m0s: 6 whole-tenant minutes and 1 more for the rest", d, why)
	}
	// A run that starts 40 s before the end of a minute whose failed
	// authentications an earlier run spent (a 429 at start-up) has its
	// first failed-auth window in the next minute.
	d, why = realClockMinimum(Estimate{}, cs[:5], 40*time.Second)
	if d != 4*time.Minute+40*time.Second || !strings.Contains(why, "already spent (40s left") {
		t.Errorf("minimum %s (%s), want 4m40s: 5 failed-auth windows from the next minute", d, why)
	}
}

// TestAMinuteSpentBeforeTheRunIsNotInTheMinimum: a 429 to the start-up
// probe marks the current failed-auth window spent, and the plan's
// minimum counts from the next one. Back-to-back real-clock runs began in
// a minute the previous one had spent (its last 20 failures), and were
// held to a bound that counted that minute as theirs.
func TestAMinuteSpentBeforeTheRunIsNotInTheMinimum(t *testing.T) {
	tgt := wrongServer(t) // a real clock
	plan := tgt.Plan()
	now := time.Date(2026, 1, 1, 10, 0, 15, 0, time.UTC)
	plan.Now = func() time.Time { return now }
	if d := plan.FailedAuthSpentFor(); d != 0 {
		t.Fatalf("a fresh plan's window is spent for %s", d)
	}
	plan.Spent()
	if d := plan.FailedAuthSpentFor(); d != 45*time.Second {
		t.Errorf("spent window: %s left, want 45s", d)
	}
	now = now.Add(time.Minute)
	if d := plan.FailedAuthSpentFor(); d != 0 {
		t.Errorf("the next window is spent for %s", d)
	}
}
