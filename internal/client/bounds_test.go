package client

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/touchstone-harness/touchstone/internal/traffic"
)

func TestEndlessBodyIsBoundedNotACrash(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		chunk := []byte(strings.Repeat("x", 64<<10))
		for r.Context().Err() == nil {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	hc, _ := Transport("", 10*time.Second, 1<<20)
	var rec *Exchange
	c := &Client{BaseURL: srv.URL, HTTP: hc, Record: func(e *Exchange) { rec = e }}
	_, err := c.Do(context.Background(), Request{Method: "GET", Path: "/"})
	var te *TransportError
	if !errors.As(err, &te) || !errors.Is(err, ErrBodyTooLarge) {
		t.Fatalf("Do: %v, want a transport error for a too-large body", err)
	}
	if rec == nil || rec.Response == nil || len(rec.Response.Body) > 64<<10 || !strings.Contains(rec.Error, "too large") {
		t.Fatalf("evidence of the oversized body not kept (bounded): %+v", rec)
	}
	if _, err := c.DoRaw(context.Background(), "GET", "/", nil, nil); !errors.Is(err, ErrBodyTooLarge) {
		t.Fatalf("DoRaw: %v", err)
	}
}

func TestLiveKeyWritesAreRefusedAtTheClient(t *testing.T) {
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.Method)
		w.WriteHeader(204)
	}))
	defer srv.Close()
	hc, _ := Transport("", 5*time.Second, 1<<20)
	live := "svc_live_0123456789abcdef.secretsecret"
	basic := "Basic c3ZjX2xpdmVfMDEyMzQ1Njc4OWFiY2RlZi5zZWNyZXRzZWNyZXQ6" // base64("<live key>:")
	cases := []struct {
		c   *Client
		req Request
	}{
		{&Client{BaseURL: srv.URL, HTTP: hc, Key: live}, Request{Method: "POST", Path: "/"}},
		{&Client{BaseURL: srv.URL, HTTP: hc, Key: live, Bearer: true}, Request{Method: "PATCH", Path: "/"}},
		{&Client{BaseURL: srv.URL, HTTP: hc}, Request{Method: "DELETE", Path: "/", NoAuth: true, Header: http.Header{"x-API-key": {live}}}},
		{&Client{BaseURL: srv.URL, HTTP: hc}, Request{Method: "PUT", Path: "/", Header: http.Header{"Authorization": {"Bearer x", basic}}}},
	}
	for i, tc := range cases {
		_, err := tc.c.Do(context.Background(), tc.req)
		var lw *LiveWriteError
		if !errors.As(err, &lw) {
			t.Errorf("case %d: %s with a live key: %v, want refused", i, tc.req.Method, err)
		}
	}
	raw := &Client{BaseURL: srv.URL, HTTP: hc, Key: live}
	if _, err := raw.DoRaw(context.Background(), "POST", "/", nil, []byte("{}")); err == nil {
		t.Error("DoRaw sent a POST with a live key")
	}
	if len(got) != 0 {
		t.Fatalf("the server saw %v", got)
	}
	if _, err := cases[0].c.Do(context.Background(), Request{Method: "GET", Path: "/"}); err != nil {
		t.Errorf("GET with a live key refused: %v", err)
	}
	AllowLive(hc, true)
	if _, err := cases[0].c.Do(context.Background(), Request{Method: "POST", Path: "/"}); err != nil {
		t.Errorf("POST with --allow-live refused: %v", err)
	}
	if len(got) != 2 {
		t.Fatalf("server saw %v, want GET then POST", got)
	}
	// A client built outside Transport has no opt-in: refused.
	plain := &Client{BaseURL: srv.URL, HTTP: &http.Client{}, Key: live}
	if _, err := plain.Do(context.Background(), Request{Method: "POST", Path: "/"}); err == nil {
		t.Error("a plain http.Client sent a live write")
	}
}

func TestCredentialHeadersMaskedInEveryRendering(t *testing.T) {
	const secret = "S3cretPart0123456789"
	key := "svc_sandbox_0123456789abcdef." + secret
	ex := &Exchange{KeyName: "tenant", Request: RequestRecord{Method: "GET", URL: "http://bob:" + secret + "@h/x", Header: http.Header{
		"authorization": {"Basic c3ZjX3NhbmRib3hfMDEyMzQ1Njc4OWFiY2RlZi5TM2NyZXRQYXJ0MDEyMzQ1Njc4OTo=", "Bearer " + key},
		"X-API-KEY":     {key}, "Cookie": {"session=" + secret}, "Proxy-Authorization": {"Bearer " + secret},
	}}, Response: &ResponseRecord{Status: 401, Header: http.Header{"Set-Cookie": {"s=" + secret}}}}
	js, err := ex.MarshalJSONForTest()
	if err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"curl": ex.Curl(), "transcript": ex.Transcript(), "json": js} {
		if strings.Contains(out, secret) || strings.Contains(out, "c3ZjX3NhbmRib3hfMDEyMzQ1Njc4OWFiY2RlZi5TM2NyZXRQYXJ0MDEyMzQ1Njc4OTo") {
			t.Errorf("%s leaks the secret:\n%s", name, out)
		}
	}
	if tr := ex.Transcript(); !strings.Contains(tr, "Basic *** (base64 of svc_sandbox_0123456789abcdef.***:)") || !strings.Contains(tr, "http://***@h/x") {
		t.Errorf("transcript does not show what was sent, masked:\n%s", tr)
	}
}

// TestDoRawPassesThePlan: a request written byte for byte is counted in
// the run's budgets like any other.
func TestDoRawPassesThePlan(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("{}")) }))
	defer srv.Close()
	hc, _ := Transport("", 5*time.Second, 0)
	p := traffic.New(nil)
	Plan(hc, p)
	c := &Client{BaseURL: srv.URL, HTTP: hc, Key: "svc_test_0123456789abcdef.secret"}
	if _, err := c.DoRaw(context.Background(), "GET", "/api/v1/partner/me", nil, nil); err != nil {
		t.Fatal(err)
	}
	if got := p.Stats().Sent; got != 1 {
		t.Errorf("the plan counted %d requests, want the raw one", got)
	}
}
