package redact

import (
	"bytes"
	"encoding/base64"
	"fmt"
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

// TestEscapedFormsAreMasked: a secret rendered in HTML ('+' as "&#43;"),
// JSON ('<' as "\u003c", '/' as "\/"), XML or a shell word is still
// masked whole, known or found by its shape.
func TestEscapedFormsAreMasked(t *testing.T) {
	const known = `Kn+own/Sec=ret<&>"'_-9`
	const whsec = "svc_whsec_Ab+/Cd9+Ef/Gh+Ij/Kl+Mn/Op+Qr/St+Uv/Wx+Yz/01="
	r := New(known)
	for _, s := range []string{known, whsec, "svc_sandbox_0123456789abcdef." + known[:10]} {
		forms := append(Escaped(s), url.QueryEscape(s))
		if s != known {
			// Found by shape: any encoder's escape of '+' is still one.
			forms = append(forms, strings.ReplaceAll(s, "+", `\u002b`), strings.ReplaceAll(s, "+", "&#x2B;"))
		}
		for _, f := range forms {
			out := r.String("x " + f + " y")
			if out != "x *** y" && out != "x svc_sandbox_0123456789abcdef.*** y" {
				t.Errorf("%q rendered as %q is masked as %q", s, f, out)
			}
		}
	}
}

// TestValueMasksEveryReachableString: Value masks strings in fields,
// slices, maps (keys and values), interfaces, pointers and byte slices.
func TestValueMasksEveryReachableString(t *testing.T) {
	const s = "Hidden+Value/99"
	type inner struct {
		B      []byte
		hidden string
	}
	v := struct {
		A   string
		L   []string
		M   map[string]string
		K   map[string]int
		Any map[string]any
		P   *inner
		I   any
	}{A: s, L: []string{"a " + s}, M: map[string]string{"k": s}, K: map[string]int{s: 1}, Any: map[string]any{"x": s, "n": []any{s}},
		P: &inner{B: []byte(s), hidden: s}, I: s}
	New(s).Value(&v)
	got := fmt.Sprintf("%v %v %v %v %v %s %v", v.A, v.L, v.M, v.K, v.Any, v.P.B, v.I)
	if strings.Contains(got, s) {
		t.Errorf("Value left the secret: %s", got)
	}
	if v.P.hidden != s {
		t.Error("Value touched an unexported field")
	}
}
