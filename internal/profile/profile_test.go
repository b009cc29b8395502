package profile

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const key = "svc_sandbox_0123456789abcdef.secretpart12"

func TestParseRefusesBadProfiles(t *testing.T) {
	dir := t.TempDir()
	notPEM := filepath.Join(dir, "ca.txt")
	os.WriteFile(notPEM, []byte("hello"), 0o600)
	for name, doc := range map[string]string{
		"junk after object": `{"base_url":"http://h:1","keys":{"tenant":"` + key + `"}} {}`,
		"trailing word":     `{"base_url":"http://h:1","keys":{"tenant":"` + key + `"}} x`,
		"unknown field":     `{"base_url":"http://h:1","keys":{"tenant":"` + key + `"},"nope":1}`,
		"userinfo":          `{"base_url":"http://alice:pw123456@h:1","keys":{"tenant":"` + key + `"}}`,
		"user only":         `{"base_url":"http://alice@h:1","keys":{"tenant":"` + key + `"}}`,
		"port too big":      `{"base_url":"http://h:99999","keys":{"tenant":"` + key + `"}}`,
		"port zero":         `{"base_url":"http://h:0","keys":{"tenant":"` + key + `"}}`,
		"empty port":        `{"base_url":"http://h:","keys":{"tenant":"` + key + `"}}`,
		"path":              `{"base_url":"http://h:1/api","keys":{"tenant":"` + key + `"}}`,
		"no key":            `{"base_url":"http://h:1"}`,
		"key without dot":   `{"base_url":"http://h:1","keys":{"tenant":"nodot"}}`,
		"missing ca":        `{"base_url":"https://h:1","keys":{"tenant":"` + key + `"},"ca_bundle":"` + filepath.Join(dir, "none.pem") + `"}`,
		"non-PEM ca":        `{"base_url":"https://h:1","keys":{"tenant":"` + key + `"},"ca_bundle":"` + notPEM + `"}`,
	} {
		_, err := Parse([]byte(doc))
		if err == nil {
			t.Errorf("%s: accepted", name)
			continue
		}
		if strings.Contains(err.Error(), "pw123456") || strings.Contains(err.Error(), "secretpart12") {
			t.Errorf("%s: error echoes a secret: %v", name, err)
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error is not one line: %q", name, err)
		}
	}
}

func TestParseAcceptsAGoodProfileAndResolvesEnv(t *testing.T) {
	t.Setenv("TS_TEST_KEY", "svc_live_0123456789abcdef.fromenv1234")
	ca := filepath.Join(t.TempDir(), "ca.pem")
	os.WriteFile(ca, selfSigned(t), 0o600)
	p, err := Parse([]byte(`{"base_url":"https://h:8443","keys":{"tenant":"` + key + `","live":"env:TS_TEST_KEY"},"ca_bundle":"` + ca + `"}`))
	if err != nil {
		t.Fatal(err)
	}
	if p.Keys.Live != "svc_live_0123456789abcdef.fromenv1234" || !IsLive(p.Keys.Live) || IsLive(p.Keys.Tenant) {
		t.Errorf("keys: %+v", p.Keys)
	}
	secrets := strings.Join(p.Secrets(), ",")
	if !strings.Contains(secrets, "secretpart12") || !strings.Contains(secrets, "fromenv1234") {
		t.Errorf("secrets: %s", secrets)
	}
	if PublicPrefix(key) != "svc_sandbox_0123456789abcdef" || KeyEnvVar("read_only") != "TOUCHSTONE_KEY_READ_ONLY" {
		t.Error("prefix or env var name")
	}
	if _, err := Parse([]byte(`{"base_url":"http://h:1","keys":{"tenant":"env:TS_UNSET_VAR_X"}}`)); err == nil || !strings.Contains(err.Error(), "TS_UNSET_VAR_X") {
		t.Errorf("unset env var: %v", err)
	}
}

func TestWriteThenLoadRoundTrips(t *testing.T) {
	p := &Profile{Name: "x", BaseURL: "http://127.0.0.1:8080", Keys: Keys{Tenant: key}, Customers: Customers{Parent: "cus_1"}}
	path := filepath.Join(t.TempDir(), "p.json")
	if err := p.Write(path); err != nil {
		t.Fatal(err)
	}
	q, err := Load(path)
	if err != nil || q.Keys.Tenant != key || q.CustomerMap()["parent"] != "cus_1" {
		t.Fatalf("round trip: %+v %v", q, err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("profile written with mode %v, want 0600 (it may hold keys)", fi.Mode().Perm())
	}
}

func selfSigned(t *testing.T) []byte {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "t"}, NotBefore: time.Now(), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

// TestKeysLackingOneScope: the keys lacking one scope each are roles like
// any other (lacking.SCOPE, lacking_pascal.SCOPE): resolved from the
// environment, validated, their secrets redacted, their reproduction
// variable a valid shell name.
func TestKeysLackingOneScope(t *testing.T) {
	t.Setenv("TS_TEST_LACKING", "svc_sandbox_00000000000000aa.lackingsecret1")
	p, err := Parse([]byte(`{"base_url":"http://h:1","keys":{"tenant":"` + key + `",
		"lacking":{"accounts:write":"env:TS_TEST_LACKING"},
		"lacking_pascal":{"accounts:write":"svc_sandbox_00000000000000bb.pascalsecret22"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Key(LackingRole("accounts:write", false)); got != "svc_sandbox_00000000000000aa.lackingsecret1" {
		t.Errorf("lacking.accounts:write = %q", got)
	}
	if got := p.Key(LackingRole("accounts:write", true)); got != "svc_sandbox_00000000000000bb.pascalsecret22" {
		t.Errorf("lacking_pascal.accounts:write = %q", got)
	}
	secrets := strings.Join(p.Secrets(), ",")
	if !strings.Contains(secrets, "lackingsecret1") || !strings.Contains(secrets, "pascalsecret22") {
		t.Errorf("secrets to redact: %s", secrets)
	}
	if v := KeyEnvVar(LackingRole("withdrawal-addresses:write", true)); v != "TOUCHSTONE_KEY_LACKING_PASCAL_WITHDRAWAL_ADDRESSES_WRITE" {
		t.Errorf("env var %q", v)
	}
	if _, err := Parse([]byte(`{"base_url":"http://h:1","keys":{"tenant":"` + key + `","lacking":{"accounts:read":"nodot"}}}`)); err == nil || !strings.Contains(err.Error(), "lacking.accounts:read") {
		t.Errorf("a malformed lacking key: %v", err)
	}
	if _, err := Parse([]byte(`{"base_url":"http://h:1","keys":{"tenant":"` + key + `","lacking":{"accounts:read":"env:TS_UNSET_LACKING"}}}`)); err == nil || !strings.Contains(err.Error(), "TS_UNSET_LACKING") {
		t.Errorf("an unset variable: %v", err)
	}
}

// TestLiveRole: the one scan for live keys (the live-key guard of checks
// and of load probes): the first role holding a live key, the live and
// other_environment fixtures left out.
func TestLiveRole(t *testing.T) {
	p := &Profile{Keys: Keys{Tenant: "svc_sandbox_0123456789abcdef.s1", Live: "svc_live_0123456789abcdef.s2", OtherEnvironment: "svc_live_0123456789abcdee.s3"}}
	if r := p.LiveRole(); r != "" {
		t.Errorf("LiveRole = %q, want none (only the live and other_environment fixtures are live)", r)
	}
	p.Keys.Subject = "svc_live_0123456789abcded.s4"
	p.Keys.Lacking = map[string]string{"accounts:read": "svc_live_0123456789abcdec.s5"}
	if r := p.LiveRole(); r != "lacking.accounts:read" {
		t.Errorf("LiveRole = %q, want lacking.accounts:read (first by name)", r)
	}
}
