package client

import (
	"net/http"
	"strings"
	"testing"
)

// TestCurlNamesEveryKeyByItsRole: a key a check put in a header itself
// (anonymous client, no key name) is named by its profile role; a variant
// built from a profile key's secret keeps its own prefix and takes the
// secret from the role's variable; a fabricated key is shown as is. Never
// the bare ${TOUCHSTONE_KEY}.
func TestCurlNamesEveryKeyByItsRole(t *testing.T) {
	tenant := "svc_sandbox_0123456789abcdef.TenantSecretAbcdefgh"
	reader := "svc_sandbox_1123456789abcdef.ReaderSecretAbcdefgh"
	roles := NewKeyRoles(map[string]string{"tenant": tenant, "read_only": reader, "unused": ""})
	ex := &Exchange{Roles: roles, Request: RequestRecord{Method: "GET", URL: "http://h/x", Header: http.Header{
		"X-Api-Key":     {tenant, "svc_sandbox_0123456789abcde.TenantSecretAbcdefgh", "svc_sandbox_9999999999999999.fabricated"},
		"Authorization": {"Bearer " + reader},
	}}}
	curl := ex.Curl()
	for _, want := range []string{"X-Api-Key: ${TOUCHSTONE_KEY_TENANT}", "Authorization: Bearer ${TOUCHSTONE_KEY_READ_ONLY}",
		"X-Api-Key: svc_sandbox_0123456789abcde.${TOUCHSTONE_KEY_TENANT#*.}", "X-Api-Key: svc_sandbox_9999999999999999.fabricated"} {
		if !strings.Contains(curl, want) {
			t.Errorf("curl line lacks %q:\n%s", want, curl)
		}
	}
	if strings.Contains(curl, "${TOUCHSTONE_KEY}") || strings.Contains(curl, "Secret") && !strings.Contains(curl, "TOUCHSTONE") {
		t.Errorf("bare placeholder or secret in %s", curl)
	}
	for _, s := range []string{"TenantSecretAbcdefgh", "ReaderSecretAbcdefgh"} {
		if strings.Contains(curl, s) {
			t.Errorf("secret %q in %s", s, curl)
		}
	}
	// Without the profile's roles and without a key name: masked.
	bare := &Exchange{Request: RequestRecord{Method: "GET", URL: "http://h/x", Header: http.Header{"X-Api-Key": {tenant}}}}
	if c := bare.Curl(); strings.Contains(c, "${TOUCHSTONE_KEY}") || !strings.Contains(c, "X-Api-Key: ***") {
		t.Errorf("no roles, no key name: %s", c)
	}
}
