package shape_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/profile"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// answerAgainst runs assert on the answer a server gives (status, media
// type, body) and returns the check's result.
func answerAgainst(t *testing.T, status int, media, body string, assert func(*check.T, *client.Response)) *check.Result {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", media)
		w.WriteHeader(status)
		w.Write([]byte(body))
	}))
	defer srv.Close()
	tgt, err := check.NewTarget(context.Background(), &profile.Profile{Name: "t", BaseURL: srv.URL}, false)
	if err != nil {
		t.Fatal(err)
	}
	tgt.Schemas = nil
	return check.Run(context.Background(), tgt, &check.Check{ID: "shape/test", Title: "t", Rules: []string{"ERR-001"}, Run: func(ct *check.T) {
		assert(ct, ct.Do(ct.Anonymous(), client.Request{Method: http.MethodPatch, Path: "/api/v1/partner/customers/x?q=1"}))
	}})
}

const problem403 = `{"type":"about:blank","title":"Forbidden","status":403,"detail":"no","code":"api_key_not_authorized"}`

func TestAnswerHelpers(t *testing.T) {
	want := shape.Want{Rule: "SCOPE-001", ShapeRule: "ERR-003", MediaRule: "ERR-014", Status: 403, Code: "api_key_not_authorized"}
	cases := []struct {
		name                string
		status              int
		media, body         string
		assert              func(*check.T, *client.Response)
		wantRule, wantInMsg string // "" rule: passes
	}{
		{"problem passes", 403, shape.Problem, problem403, func(t *check.T, r *client.Response) { shape.ProblemAnswer(t, r, want) }, "", ""},
		{"wrong status fails under Rule, naming the request", 200, shape.Problem, problem403, func(t *check.T, r *client.Response) { shape.ProblemAnswer(t, r, want) }, "SCOPE-001", "PATCH /api/v1/partner/customers/x: status 200, want 403 api_key_not_authorized"},
		{"wrong media type fails under MediaRule", 403, shape.JSON, problem403, func(t *check.T, r *client.Response) { shape.ProblemAnswer(t, r, want) }, "ERR-014", "Content-Type"},
		{"wrong code fails under ShapeRule", 403, shape.Problem, strings.Replace(problem403, "api_key_not_authorized", "other", 1), func(t *check.T, r *client.Response) { shape.ProblemAnswer(t, r, want) }, "ERR-003", "problem code"},
		{"why is in the message", 500, shape.Problem, problem403, func(t *check.T, r *client.Response) {
			shape.ProblemAnswer(t, r, shape.Want{Rule: "ORDER-007", Status: 401, What: "wrong secret", Why: "the key step comes first"})
		}, "ORDER-007", "wrong secret: status 500, want 401 (the key step comes first)"},
		{"flat 404 passes", 404, shape.JSON, `{"title":"Not Found","detail":"x","status":404,"code":null}`, func(t *check.T, r *client.Response) { shape.FlatAnswer(t, r, shape.Want{Rule: "ERR-004", Status: 404}) }, "", ""},
		{"flat code must be null", 404, shape.JSON, `{"title":"Not Found","detail":"x","status":404}`, func(t *check.T, r *client.Response) { shape.FlatAnswer(t, r, shape.Want{Rule: "ERR-004", Status: 404}) }, "ERR-004", "want null"},
		{"envelope passes", 200, shape.JSON, `{"success":true,"status_code":200,"message":"ok","data":{}}`, func(t *check.T, r *client.Response) {
			shape.EnvelopeAnswer(t, r, shape.Want{Rule: "ENV-001", Status: 200})
		}, "", ""},
		{"refusal needs data.code", 422, shape.JSON, `{"success":false,"status_code":422,"message":"no","data":{"detail":"x"}}`, func(t *check.T, r *client.Response) {
			shape.EnvelopeAnswer(t, r, shape.Want{Rule: "ENV-002", Status: 422, Code: "insufficient_funds"})
		}, "ENV-002", "data.code"},
		{"flat or refusal: the flat body passes", 409, shape.JSON, `{"title":"Conflict","detail":"x","status":409,"code":"reused"}`, func(t *check.T, r *client.Response) {
			shape.FlatOrRefusalAnswer(t, r, shape.Want{Rule: "ITR-021", Status: 409, Code: "reused"})
		}, "", ""},
		{"flat or refusal: the refusal passes", 409, shape.JSON, `{"success":false,"status_code":409,"message":"no","data":{"code":"reused","detail":"x"}}`, func(t *check.T, r *client.Response) {
			shape.FlatOrRefusalAnswer(t, r, shape.Want{Rule: "ITR-021", Status: 409, Code: "reused"})
		}, "", ""},
		{"flat or refusal: an envelope is judged as the refusal", 409, shape.JSON, `{"success":false,"status_code":409,"message":"no","data":{"detail":"x"},"code":"reused"}`, func(t *check.T, r *client.Response) {
			shape.FlatOrRefusalAnswer(t, r, shape.Want{Rule: "ITR-021", Status: 409, Code: "reused"})
		}, "ITR-021", "data.code"},
		{"flat or refusal: wrong status fails under Rule", 200, shape.JSON, `{"title":"Conflict","detail":"x","status":409,"code":"reused"}`, func(t *check.T, r *client.Response) {
			shape.FlatOrRefusalAnswer(t, r, shape.Want{Rule: "ITR-021", Status: 409, Code: "reused"})
		}, "ITR-021", "status 200, want 409 reused"},
		{"flat or refusal: problem+json fails under MediaRule", 409, shape.Problem, `{"title":"Conflict","detail":"x","status":409,"code":"reused"}`, func(t *check.T, r *client.Response) {
			shape.FlatOrRefusalAnswer(t, r, shape.Want{Rule: "ITR-021", MediaRule: "ERR-014", Status: 409, Code: "reused"})
		}, "ERR-014", "Content-Type"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := answerAgainst(t, c.status, c.media, c.body, c.assert)
			if c.wantRule == "" {
				if res.Status != check.Passed {
					t.Fatalf("want a pass, got %s: %s", res.Status, res.Summary())
				}
				return
			}
			if res.Status != check.Failed || len(res.Failures) != 1 {
				t.Fatalf("want one failure, got %s: %s", res.Status, res.Summary())
			}
			f := res.Failures[0]
			if f.Rule != c.wantRule || !strings.Contains(f.Message, c.wantInMsg) || f.Exchange == nil {
				t.Errorf("failure [%s] %q (evidence %v), want [%s] containing %q with the exchange", f.Rule, f.Message, f.Exchange != nil, c.wantRule, c.wantInMsg)
			}
		})
	}
}

// TestCodeAtWrongStatus: a refusal carrying the wanted code at another
// status fails under the error catalogue's sentence for that code alone
// when the check declares it (the refusal's reason was right, the code's
// status was not); under the check's own rule when it does not.
func TestCodeAtWrongStatus(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnprocessableEntity)
		w.Write([]byte(`{"success":false,"status_code":422,"message":"no","data":{"code":"exchange_wallet_missing","detail":"d"}}`))
	}))
	defer srv.Close()
	tgt, err := check.NewTarget(context.Background(), &profile.Profile{Name: "t", BaseURL: srv.URL}, false)
	if err != nil {
		t.Fatal(err)
	}
	tgt.Schemas = nil
	for _, declared := range [][]string{{"CONV-011", "ERR-060"}, {"CONV-011"}} {
		res := check.Run(context.Background(), tgt, &check.Check{ID: "shape/code-status", Title: "t", Rules: declared, Run: func(ct *check.T) {
			r := ct.Do(ct.Anonymous(), client.Request{Method: http.MethodPost, Path: "/api/v1/partner/x"})
			shape.EnvelopeAnswer(ct, r, shape.Want{Rule: "CONV-011", Status: http.StatusConflict, Code: "exchange_wallet_missing"})
		}})
		var rules []string
		for _, f := range res.Failures {
			rules = append(rules, f.Rule)
		}
		want := "CONV-011"
		if len(declared) == 2 {
			want = "ERR-060"
		}
		if strings.Join(rules, ",") != want {
			t.Errorf("declaring %v: failed under %v, want %s", declared, rules, want)
		}
	}
}

// TestStatusAnswerContinue: with Continue a wrong status is recorded and
// the check goes on (StatusAnswer reports false); without it the check
// stops at the first.
func TestStatusAnswerContinue(t *testing.T) {
	for _, cont := range []bool{true, false} {
		var got []bool
		res := answerAgainst(t, 500, shape.JSON, `{}`, func(ct *check.T, r *client.Response) {
			got = append(got, shape.StatusAnswer(ct, r, shape.Want{Rule: "ERR-001", Status: 200, Continue: cont}))
			got = append(got, shape.StatusAnswer(ct, r, shape.Want{Rule: "ERR-002", Status: 500, Continue: cont}))
			got = append(got, shape.StatusAnswer(ct, r, shape.Want{Rule: "ERR-003", Status: 404, Continue: cont}))
		})
		var rules []string
		for _, f := range res.Failures {
			rules = append(rules, f.Rule)
		}
		want, wantGot := "ERR-001", "[]"
		if cont {
			want, wantGot = "ERR-001,ERR-003", "[false true false]"
		}
		if res.Status != check.Failed || strings.Join(rules, ",") != want || fmt.Sprint(got) != wantGot {
			t.Errorf("Continue %v: %s under %v, returned %v; want failed under %s, returned %s", cont, res.Status, rules, got, want, wantGot)
		}
	}
}
