package redact

import (
	"bytes"
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
