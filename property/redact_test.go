package property_test

import (
	"bytes"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/touchstone-harness/touchstone/internal/redact"
)

// Pure properties of the harness's redaction (no target): any text holding
// API keys (any product prefix, environment, 16 hex digits, secret part)
// and webhook secrets, written whole or split at random points through the
// line-buffered Writer, comes out with every secret part masked and every
// public prefix kept, and the same bytes either way.

var (
	filler  = rapid.StringMatching(`[ -~\n]{0,40}`).Filter(func(s string) bool { return !strings.ContainsAny(s, "_.") })
	keyGenP = rapid.Custom(func(t *rapid.T) [2]string {
		prefix := rapid.StringMatching(`[a-z0-9]{1,8}_(live|sandbox|test|dev|key)_[0-9a-f]{16}`).Draw(t, "prefix")
		secret := rapid.StringMatching(`[A-Za-z0-9_\-+/=]{8,48}`).Draw(t, "secret")
		return [2]string{prefix, secret}
	})
	whsecGen = rapid.StringMatching(`[A-Za-z0-9]{4}whsec_[A-Za-z0-9+/=]{44}`)
)

func TestRedactionMasksEverySecretWholeOrSplit(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var text strings.Builder
		var secrets, prefixes []string
		for i, n := 0, rapid.IntRange(1, 4).Draw(t, "keys"); i < n; i++ {
			text.WriteString(filler.Draw(t, "before") + " ")
			if rapid.Bool().Draw(t, "webhook") {
				w := whsecGen.Draw(t, "whsec")
				secrets = append(secrets, w)
				text.WriteString(w)
			} else {
				k := keyGenP.Draw(t, "key")
				secrets, prefixes = append(secrets, k[1]), append(prefixes, k[0])
				text.WriteString(k[0] + "." + k[1])
			}
			text.WriteString(" " + filler.Draw(t, "after"))
		}
		text.WriteString("\n")
		in := text.String()
		whole := redact.New().String(in)
		for _, s := range secrets {
			if strings.Contains(whole, s) {
				t.Fatalf("secret %q survives redaction of %q: %q", s, in, whole)
			}
		}
		for _, p := range prefixes {
			if !strings.Contains(whole, p+"."+redact.Mask) {
				t.Fatalf("prefix %q is not kept before the mask in %q", p, whole)
			}
		}
		var out bytes.Buffer
		w := redact.New().Writer(&out)
		rest := in
		for len(rest) > 0 {
			n := rapid.IntRange(1, len(rest)).Draw(t, "write")
			if _, err := w.Write([]byte(rest[:n])); err != nil {
				t.Fatal(err)
			}
			rest = rest[n:]
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if out.String() != whole {
			t.Fatalf("split writes give %q, whole gives %q", out.String(), whole)
		}
	})
}
