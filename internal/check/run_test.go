package check

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/profile"
	"github.com/touchstone-harness/touchstone/internal/redact"
)

// wrongServer answers every request 200 {} — a target that honours nothing.
//
// Its plan's clock (a real one: no control API) starts 10 s into a clock
// minute and runs with the wall clock, and its answers carry no Date: a
// test of a few seconds never meets a window's last seconds, where the
// plan grants nothing (TestWaitingChecksLeaveRoomForFailedAuth found "no
// room" when CI ran it at :58).
func wrongServer(t *testing.T) *Target {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Date"] = nil
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{}`))
	}))
	t.Cleanup(srv.Close)
	p := &profile.Profile{BaseURL: srv.URL, Keys: profile.Keys{Tenant: "svc_sandbox_0123456789abcdef.s3cretvalue"}}
	tgt := &Target{Profile: p, HTTP: srv.Client(), Redactor: redact.New(p.Secrets()...)}
	begun := time.Now()
	base := begun.Truncate(time.Minute).Add(10 * time.Second)
	tgt.Plan().Now = func() time.Time { return base.Add(time.Since(begun)) }
	return tgt
}

func TestRunRecordsFailureUnderRule(t *testing.T) {
	c := &Check{ID: "demo/needs-401", Title: "t", Rules: []string{"AUTH-001"}, Run: func(t *T) {
		r := t.Do(t.Anonymous(), client.Request{Method: "GET", Path: "/api/v1/partner/me"})
		if r.Status != 401 {
			t.FatalAt(r, "AUTH-002", "status %d, want 401", r.Status)
		}
	}}
	res := Run(context.Background(), wrongServer(t), c)
	if res.Status != Failed || len(res.Failures) != 1 || res.Failures[0].Rule != "AUTH-002" {
		t.Fatalf("result %+v", res)
	}
	if res.Failures[0].Exchange == nil || !strings.Contains(res.Summary(), "curl -sS -i -X GET") {
		t.Errorf("failure carries no evidence: %s", res.Summary())
	}
}

// A failure about one response carries that response's exchange as its
// evidence, not the last request the check sent (a read-back).
func TestFailureEvidenceIsTheExchangeAtFault(t *testing.T) {
	c := &Check{ID: "demo/evidence", Title: "t", Rules: []string{"AUTH-001"}, Run: func(t *T) {
		r := t.Do(t.Anonymous(), client.Request{Method: "GET", Path: "/api/v1/partner/me"})
		t.Do(t.Anonymous(), client.Request{Method: "GET", Path: "/api/v1/partner/customers/read-back"})
		t.ErrorAt(r, "AUTH-002", "status %d, want 401", r.Status)
		t.Fatalf("AUTH-001", "a failure not about one response")
	}}
	res := Run(context.Background(), wrongServer(t), c)
	if len(res.Failures) != 2 {
		t.Fatalf("failures %+v", res.Failures)
	}
	if got := res.Failures[0].Exchange.Request.URL; !strings.HasSuffix(got, "/me") {
		t.Errorf("ErrorAt evidence is %s, want the /me exchange it is about", got)
	}
	if got := res.Failures[1].Exchange.Request.URL; !strings.HasSuffix(got, "/read-back") {
		t.Errorf("Fatalf evidence is %s, want the last exchange", got)
	}
}

func TestRunSkipsMissingFixtureAndControl(t *testing.T) {
	tgt := wrongServer(t)
	for _, c := range []*Check{
		{ID: "demo/a", Title: "t", Rules: []string{"X-001"}, Needs: []string{"customers.child"}, Run: func(*T) {}},
		{ID: "demo/b", Title: "t", Rules: []string{"X-001"}, Labels: []string{NeedsControl}, Run: func(*T) {}},
		{ID: "demo/c", Title: "t", Rules: []string{"X-001"}, Run: func(t *T) { t.Client("subject") }},
	} {
		if res := Run(context.Background(), tgt, c); res.Status != Skipped || res.SkipReason == "" {
			t.Errorf("%s: status %s reason %q, want skipped with a reason", c.ID, res.Status, res.SkipReason)
		}
	}
}

func TestRunRefusesMutatingWithLiveKey(t *testing.T) {
	tgt := wrongServer(t)
	tgt.Profile.Keys.Tenant = "svc_live_0123456789abcdef.s3cretvalue"
	ran := false
	c := &Check{ID: "demo/mutates", Title: "t", Rules: []string{"X-001"}, Labels: []string{Mutating}, Run: func(*T) { ran = true }}
	res := Run(context.Background(), tgt, c)
	if ran || res.Status != Skipped || !strings.Contains(res.SkipReason, "--allow-live") {
		t.Fatalf("live key: ran=%v status=%s reason=%q", ran, res.Status, res.SkipReason)
	}
	tgt.AllowLive = true
	if res := Run(context.Background(), tgt, c); !ran || res.Status != Passed {
		t.Fatalf("with --allow-live: ran=%v status=%s", ran, res.Status)
	}
}

func TestTransportErrorIsNoVerdict(t *testing.T) {
	tgt := wrongServer(t)
	tgt.Profile.BaseURL = "http://127.0.0.1:1"
	c := &Check{ID: "demo/x", Title: "t", Rules: []string{"X-001"}, Run: func(t *T) {
		t.Do(t.Anonymous(), client.Request{Method: "GET", Path: "/"})
	}}
	if res := Run(context.Background(), tgt, c); res.Status != Error {
		t.Fatalf("status %s, want error (no verdict)", res.Status)
	}
}

func TestHarnessPanicIsNoVerdictNotCrash(t *testing.T) {
	c := &Check{ID: "demo/p", Title: "t", Rules: []string{"X-001"}, Run: func(*T) { var m map[string]int; m["x"] = 1 }}
	if res := Run(context.Background(), wrongServer(t), c); res.Status != Error {
		t.Fatalf("status %s, want error", res.Status)
	}
}
