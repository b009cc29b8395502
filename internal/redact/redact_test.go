package redact

import (
	"bytes"
	"encoding/base64"
	"net/url"
	"strings"
	"testing"
)

func TestRedactsKnownSecretsKeysAndWebhookSecrets(t *testing.T) {
	r := New("hunter2-secret")
	in := "a hunter2-secret b svc_sandbox_0123456789abcdef.AbCdEfGh12345678 c svc_whsec_" + strings.Repeat("A", 43) + "= d"
	out := r.String(in)
	for _, leak := range []string{"hunter2-secret", "AbCdEfGh12345678", "svc_whsec_"} {
		if strings.Contains(out, leak) {
			t.Errorf("output still contains %q: %s", leak, out)
		}
	}
	if !strings.Contains(out, "svc_sandbox_0123456789abcdef.***") {
		t.Errorf("public prefix not kept: %s", out)
	}
}

func TestWriterCatchesSecretSplitAcrossWrites(t *testing.T) {
	var buf bytes.Buffer
	w := New("topsecretvalue").Writer(&buf)
	w.Write([]byte("x topsec"))
	w.Write([]byte("retvalue y\nnext"))
	w.Close()
	if strings.Contains(buf.String(), "topsecretvalue") || !strings.Contains(buf.String(), "next") {
		t.Fatalf("writer output %q", buf.String())
	}
}

func TestRedactsEncodedFormsOfEverySecret(t *testing.T) {
	const prefix, secret = "svc_sandbox_0123456789abcdef", "Zx9+q/Lm0pQ7-rT_s2=Wv"
	key := prefix + "." + secret
	r := New(secret)
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	inputs := map[string]string{
		"basic key:":      "Authorization: Basic " + b64(key+":"),
		"basic :key":      "Authorization: Basic " + b64(":"+key),
		"basic x:key":     "basic " + b64("ab:"+key),
		"base64 url":      base64.URLEncoding.EncodeToString([]byte("k=" + key)),
		"query escaped":   "GET /x?key=" + url.QueryEscape(key),
		"path escaped":    "GET /x/" + url.PathEscape(key),
		"json basic":      `"Authorization": ["Basic ` + b64("zz"+key+":") + `"]`,
		"userinfo in url": "http://user:" + secret + "@example.test/x",
	}
	for name, in := range inputs {
		out := r.String(in)
		if strings.Contains(out, secret) || strings.Contains(out, url.QueryEscape(secret)) {
			t.Errorf("%s: secret left in %q", name, out)
		}
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
			for _, tok := range strings.FieldsFunc(out, func(c rune) bool { return strings.ContainsRune(" \"[]:?=/", c) }) {
				if dec, err := enc.DecodeString(tok); err == nil && strings.Contains(string(dec), secret) {
					t.Errorf("%s: %q decodes to the secret", name, tok)
				}
			}
		}
	}
	if out := r.String("Authorization: Basic " + b64("someone:hunter2")); strings.Contains(out, b64("someone:hunter2")) {
		t.Errorf("an unknown Basic credential after an Authorization header was left: %s", out)
	}
	for align := 0; align < 3; align++ {
		tok := b64(strings.Repeat("z", align) + key + ":")
		if out := r.String("x " + tok + " y"); out != "x *** y" {
			t.Errorf("alignment %d: the whole encoded token is not masked: %q", align, out)
		}
	}
	if out := r.String("see https://alice:pa55@host.test/p"); strings.Contains(out, "pa55") || !strings.Contains(out, "https://***@host.test/p") {
		t.Errorf("userinfo: %s", out)
	}
}
