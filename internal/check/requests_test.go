package check

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/openapicheck"
	"github.com/touchstone-harness/touchstone/internal/profile"
	"github.com/touchstone-harness/touchstone/internal/redact"
	"github.com/touchstone-harness/touchstone/internal/traffic"
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

// TestTheMinimumIsTheLargestOfTheBounds: on a real clock the printed
// minimum is the longest of the failed-auth limiter's time (19 a minute,
// stopped in the minutes a probe owns that budget), the probes' timetable,
// ordinary traffic through the tenant's limiter (stopped in the minutes a
// probe owns the tenant's whole budget), and through the busiest route's.
func TestTheMinimumIsTheLargestOfTheBounds(t *testing.T) {
	whole := func() *traffic.Slot { return &traffic.Slot{Whole: true, Tenant: 6001} }
	auth := &traffic.Slot{Auth: true, Tenant: 10, Minutes: 2}
	// 96 failures: 95 intervals of 60/19 s = 5 minutes, and 2 minutes of
	// the Auth probe.
	d, why := realClockMinimum(96, 0, 0, []*traffic.Slot{auth})
	if d != 7*time.Minute {
		t.Errorf("minimum %s (%s), want 7m0s", d, why)
	}
	// Six whole-tenant probes: a timetable of minutes 1 to 6.
	slots := []*traffic.Slot{whole(), whole(), whole(), whole(), whole(), whole()}
	d, why = realClockMinimum(0, 0, 0, slots)
	if d != 6*time.Minute || !strings.Contains(why, "timetable") {
		t.Errorf("minimum %s (%s), want 6m0s from the timetable", d, why)
	}
	// Ordinary traffic: 1,900 requests through the tenant's limiter (a
	// burst of 1,500, then 400 a minute), and the two whole minutes it
	// waits out.
	d, why = realClockMinimum(0, 1900, 0, slots[:2])
	if d != 3*time.Minute || !strings.Contains(why, "tenant's limiter") {
		t.Errorf("minimum %s (%s), want 3m0s from the tenant", d, why)
	}
	// 680 requests to one route: a burst of 500, then 90 a minute.
	d, why = realClockMinimum(0, 0, 680, nil)
	if d != 2*time.Minute || !strings.Contains(why, "one route budget") {
		t.Errorf("minimum %s (%s), want 2m0s from the route", d, why)
	}
}
