package traffic

import (
	"net/http"
	"testing"
)

func TestTemplates(t *testing.T) {
	for in, want := range map[string]string{
		"/api/v1/partner/customers/8c1b2c8e-58f5-4a59-9d60-8a8f1ddc7f4b?x=1":                        "/api/v1/partner/customers/{id}",
		"/api/v1/partner/customers/8c1b2c8e-58f5-4a59-9d60-8a8f1ddc7f4b/crypto/wallets/btc/address": "/api/v1/partner/customers/{id}/crypto/wallets/{asset}/address",
		"/api/v1/partner/me":                                      "/api/v1/partner/me",
		"/api/v2/public/accounts/123/transactions#top":            "/api/v2/public/accounts/{id}/transactions",
		"/api/v1/partner/payouts/by-client-reference/inv-2026-01": "/api/v1/partner/payouts/by-client-reference/{ref}",
	} {
		if got := Template(in); got != want {
			t.Errorf("Template(%q) = %q, want %q", in, got, want)
		}
	}
}

// GET /customers/{a} and GET /customers/{b} share a budget; GET and POST
// on one path do not; nor do two keys.
func TestBucketOf(t *testing.T) {
	r := func(method, path, key string) Bucket {
		req, _ := http.NewRequest(method, "http://target"+path, nil)
		if key != "" {
			req.Header.Set("X-Api-Key", key)
		}
		return BucketOf(req)
	}
	a := r("GET", "/api/v1/partner/customers/8c1b2c8e-58f5-4a59-9d60-8a8f1ddc7f4b", alphaKey)
	if b := r("GET", "/api/v1/partner/customers/2b1b2c8e-58f5-4a59-9d60-8a8f1ddc7f4b", alphaKey); a != b {
		t.Errorf("%s and %s differ", a, b)
	}
	if b := r("POST", "/api/v1/partner/customers/8c1b2c8e-58f5-4a59-9d60-8a8f1ddc7f4b", alphaKey); a == b {
		t.Errorf("GET and POST share %s", a)
	}
	if b := r("GET", "/api/v1/partner/customers/8c1b2c8e-58f5-4a59-9d60-8a8f1ddc7f4b", betaKey); a == b {
		t.Errorf("two keys share %s", a)
	}
	if a.Key != "svc_alpha" {
		t.Errorf("the bucket keeps %q of the key, want its public prefix", a.Key)
	}
	if b := r("GET", "/api/v1/partner/me", ""); b.Key != "-" {
		t.Errorf("no key: %q", b.Key)
	}
}
