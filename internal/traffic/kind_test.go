package traffic

import (
	"context"
	"net/http"
	"testing"
)

func TestKindOf(t *testing.T) {
	p := New(nil)
	p.ValidKey = issued
	bg := context.Background()
	bearer := request(bg, http.MethodGet, "/api/v1/partner/me", "")
	bearer.Header.Set("Authorization", "Bearer "+betaKey)
	for _, c := range []struct {
		name             string
		r                *http.Request
		budgets, failed  bool
		key, method, tpl string
	}{
		{"no key", request(bg, http.MethodGet, "/api/v1/partner/me", ""), false, true, "-", "GET", "/api/v1/partner/me"},
		{"a key never issued", request(bg, http.MethodGet, "/api/v1/partner/customers/17", unknownKey), false, true, "svc_nobody", "GET", "/api/v1/partner/customers/{id}"},
		{"a valid key sent to be refused", request(ExpectKeyRefusal(bg), http.MethodPost, "/api/v1/partner/payouts", readOnlyKey), false, true, "svc_ro", "POST", "/api/v1/partner/payouts"},
		{"a valid key", request(bg, http.MethodPost, "/api/v1/partner/payouts", alphaKey), true, false, "svc_alpha", "POST", "/api/v1/partner/payouts"},
		{"a valid key on the v2 surface", request(bg, http.MethodGet, "/api/v2/public/accounts/12/transactions", alphaKey), true, false, "svc_alpha", "GET", "/api/v2/public/accounts/{id}/transactions"},
		{"a valid bearer token", bearer, true, false, "svc_beta", "GET", "/api/v1/partner/me"},
		{"not /api/, no key", request(bg, http.MethodGet, "/openapi/v1.json", ""), false, false, "-", "GET", "/openapi/v1.json"},
		{"not /api/, a key", request(bg, http.MethodGet, "/_sandbox/clock", alphaKey), false, false, "svc_alpha", "GET", "/_sandbox/clock"},
	} {
		k := p.KindOf(c.r)
		want := Kind{Bucket: Bucket{Key: c.key, Method: c.method, Template: c.tpl}, Budgets: c.budgets, FailedAuth: c.failed}
		if k != want {
			t.Errorf("%s: %+v, want %+v", c.name, k, want)
		}
	}
	// Without ValidKey every key passes the key step.
	q := New(nil)
	if k := q.KindOf(request(bg, http.MethodGet, "/api/v1/partner/me", unknownKey)); !k.Budgets || k.FailedAuth {
		t.Errorf("no ValidKey: %+v", k)
	}
}

func TestIsFailedAuth(t *testing.T) {
	for _, c := range []struct {
		status int
		code   string
		want   bool
	}{
		{401, CodeAuthenticationFailed, true},
		{401, "", true},
		{403, CodeNotAuthorized, true},
		{403, "policy_forbidden", false},
		{403, "", false},
		{429, "rate_limited", false},
		{200, "", false},
	} {
		if got := IsFailedAuth(c.status, c.code); got != c.want {
			t.Errorf("IsFailedAuth(%d, %q) = %v", c.status, c.code, got)
		}
	}
}
