package property

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/google/uuid"
	"pgregory.net/rapid"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
)

// The Idempotency-Key grammar (document 1, Common rules; IDEM-002..004,
// IDEM-006): a key is valid exactly when it has 8 to 256 characters, each
// visible ASCII (0x21-0x7E). Random keys around both length limits, some
// with a space inside, are sent on PATCH /customers/{id}; the model predicts
// 200 for a valid key and 400 idempotency_key_invalid otherwise.

// keyGen draws a key: a length near a limit or anywhere, unique visible
// characters, optionally a space at an interior position.
var keyGen = rapid.Custom(func(rt *rapid.T) string {
	n := rapid.OneOf(rapid.IntRange(1, 12), rapid.IntRange(250, 262), rapid.IntRange(1, 300)).Draw(rt, "len")
	return keyOf(rt, n)
})

// boundary are the lengths every run sends before the random ones, so the
// limits are always probed (a property run is a handful of cases by default).
var boundary = []int{1, 7, 8, 9, 255, 256, 257}

// keyOf draws a key of n characters.
func keyOf(rt *rapid.T, n int) string {
	base := strings.ReplaceAll(uuid.NewString(), "-", "")
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(base)
		base = strings.ReplaceAll(uuid.NewString(), "-", "")
	}
	k := []byte(b.String()[:n])
	if n >= 3 && rapid.Bool().Draw(rt, "space") {
		k[rapid.IntRange(1, n-2).Draw(rt, "at")] = ' '
	}
	if n >= 1 && rapid.Bool().Draw(rt, "punct") {
		k[rapid.IntRange(0, n-1).Draw(rt, "pat")] = rapid.SampledFrom([]byte("!~\"'{}/\\:;")).Draw(rt, "p")
	}
	return string(k)
}

// validKey is the model: 8..256 visible ASCII characters.
func validKey(k string) bool {
	if len(k) < 8 || len(k) > 256 {
		return false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 0x21 || k[i] > 0x7E {
			return false
		}
	}
	return true
}

// keysChecks are the checks of keys.go.
func keysChecks() []check.Check {
	return []check.Check{
		{
			ID:     "property/idempotency-key-grammar",
			Title:  "random Idempotency-Keys around both length limits, with and without a space inside, are accepted exactly when 8-256 visible ASCII characters",
			Rules:  []string{"IDEM-002", "IDEM-003", "IDEM-004", "ERR-019"},
			Labels: []string{check.Mutating, Label}, Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				c := t.Client("tenant")
				counted(c)
				id := createCustomer(t, c)
				// probe sends k and returns the model's complaint ("" when the
				// answer is the predicted one).
				probe := func(k string, log *steps) string {
					r := t.Do(c, client.Request{Method: http.MethodPatch, Path: api.P + "/customers/" + id, IdempotencyKey: k,
						Body: []byte(`{"jurisdiction":"GB"}`), Header: http.Header{"Content-Type": {"application/json"}}})
					log.add("PATCH with a key of "+strconv.Itoa(len(k))+" characters", r)
					rule := "IDEM-004"
					switch {
					case len(k) < 8:
						rule = "IDEM-002"
					case len(k) > 256:
						rule = "IDEM-003"
					}
					if validKey(k) {
						if r.Status != http.StatusOK {
							return fmt.Sprintf("%s: a valid key (%d visible characters) answered %d, want 200", rule, len(k), r.Status)
						}
						return ""
					}
					if problemCode(r) == "idempotency_key_invalid" && r.Status != http.StatusBadRequest {
						rule = "ERR-019" // refused for the key, at another status: the code's own sentence
					}
					if r.Status != http.StatusBadRequest || problemCode(r) != "idempotency_key_invalid" {
						return fmt.Sprintf("%s: an invalid key (%d characters, space inside: %v) answered %d, want 400 idempotency_key_invalid",
							rule, len(k), strings.Contains(k, " "), r.Status)
					}
					return ""
				}
				// The limits first, every run (a default run draws few cases).
				for _, n := range boundary {
					var log steps
					k := fixedKey(n)
					if msg := probe(k, &log); msg != "" {
						rule, _, _ := strings.Cut(msg, ":")
						t.Fatalf(rule, "%s\nsteps:\n%s", msg, &log)
					}
				}
				run(t, "property/idempotency-key-grammar", []string{"IDEM-002", "IDEM-003", "IDEM-004", "ERR-019"}, func(rt *rapid.T) {
					var log steps
					if msg := probe(keyGen.Draw(rt, "key"), &log); msg != "" {
						log.fail(rt, "%s", msg)
					}
				})
			},
		},
	}
}

// fixedKey is a unique visible key of n characters.
func fixedKey(n int) string {
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(strings.ReplaceAll(uuid.NewString(), "-", ""))
	}
	return b.String()[:n]
}
