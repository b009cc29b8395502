package property

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"pgregory.net/rapid"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/webhooks/verify"
)

// Webhook signatures (document 2, Events / Headers): the harness's verifier
// (internal/webhooks/verify) accepts exactly what is signed as documented.
// Pure half: a delivery signed here from the document's two schemes
// verifies at any receiver instant within the configured tolerance, fails
// one nanosecond past it either side, and fails after any single-byte
// change to the body, either timestamp, the event id (both families, as a
// forger would) or the secret. Over HTTP: a real delivery from the
// embedded sandbox verifies with the subscription's secret, and the same
// single-byte changes to it fail. A target without the control API sends
// a real delivery too: to a tenant-wide endpoint under the profile's
// webhook_url, forwarded to the run's --receiver-addr, the customer.created
// of a customer the check creates through the API (document 2, Events).

func macHex(key string, parts ...string) string {
	m := hmac.New(sha256.New, []byte(key))
	for _, p := range parts {
		m.Write([]byte(p))
	}
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

// signed builds a delivery's headers as document 2 describes them.
func signed(secret, id, endpoint string, at time.Time, body []byte) http.Header {
	ts := at.Format("2006-01-02T15:04:05.0000000Z07:00")
	unix := strconv.FormatInt(at.Unix(), 10)
	sum := sha256.Sum256(body)
	hash := hex.EncodeToString(sum[:])
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set(verify.HeaderID, id)
	h.Set(verify.SvcID, id)
	h.Set(verify.HeaderEvent, "customer.created")
	h.Set(verify.SvcEvent, "customer.created")
	h.Set(verify.HeaderDeliveryID, endpoint)
	h.Set(verify.SvcEndpointID, endpoint)
	h.Set(verify.HeaderAttemptID, "att-"+id)
	h.Set(verify.HeaderTimestamp, ts)
	h.Set(verify.SvcTimestamp, unix)
	h.Set(verify.SvcPayloadSHA256, hash)
	h.Set(verify.HeaderSignature, macHex(secret, ts, ".", string(body)))
	h.Set(verify.SvcSignature, macHex(secret, unix, ".", id, ".", hash, ".", string(body)))
	return h
}

// flip changes the byte at a drawn position of s to a drawn other value.
func flip(rt *rapid.T, s, label string) string {
	if s == "" {
		return "x"
	}
	b := []byte(s)
	at := rapid.IntRange(0, len(b)-1).Draw(rt, label+" at")
	d := byte(rapid.IntRange(1, 255).Draw(rt, label+" delta"))
	b[at] += d
	return string(b)
}

// mutate applies one drawn single-byte change and says what it was.
func mutate(rt *rapid.T, h http.Header, body []byte, secret string) (http.Header, []byte, string, string) {
	h = h.Clone()
	switch rapid.IntRange(0, 4).Draw(rt, "change") {
	case 0:
		return h, []byte(flip(rt, string(body), "body")), secret, "a body byte"
	case 1:
		h.Set(verify.HeaderTimestamp, flip(rt, h.Get(verify.HeaderTimestamp), "timestamp"))
		return h, body, secret, "an X-Webhook-Timestamp byte"
	case 2:
		h.Set(verify.SvcTimestamp, flip(rt, h.Get(verify.SvcTimestamp), "unix"))
		return h, body, secret, "an x-svc-signature-timestamp byte"
	case 3:
		id := flip(rt, h.Get(verify.SvcID), "id")
		h.Set(verify.SvcID, id)
		h.Set(verify.HeaderID, id)
		return h, body, secret, "an event-id byte (both families)"
	}
	return h, body, flip(rt, secret, "secret"), "a secret byte"
}

// signedAt reads X-Webhook-Timestamp back.
func signedAt(h http.Header) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, h.Get(verify.HeaderTimestamp))
	return t
}

func checkSignatures(rt *rapid.T, h http.Header, body []byte, secret string, tol time.Duration, what string) {
	at := signedAt(h)
	for _, d := range []time.Duration{0, tol, -tol, time.Duration(rapid.Int64Range(-int64(tol), int64(tol)).Draw(rt, "within"))} {
		now := at.Add(d)
		if res := verify.Delivery(h, body, secret, verify.Options{Tolerance: tol, Now: func() time.Time { return now }}); !res.OK() {
			rt.Fatalf("%s: %s does not verify %s from its signing instant (tolerance %s): %v", firstRule(res, "EVT-015"), what, d, tol, res.Failures)
		}
	}
	for _, d := range []time.Duration{tol + 1, -tol - 1} {
		now := at.Add(d)
		if res := verify.Delivery(h, body, secret, verify.Options{Tolerance: tol, Now: func() time.Time { return now }}); res.SignatureOK() {
			rt.Fatalf("EVT-024: %s verifies %s from its signing instant, past the tolerance %s", what, d, tol)
		}
	}
	mh, mb, ms, change := mutate(rt, h, body, secret)
	now := at
	if res := verify.Delivery(mh, mb, ms, verify.Options{Tolerance: tol, Now: func() time.Time { return now }}); res.SignatureOK() {
		rt.Fatalf("EVT-015: %s still verifies after changing %s", what, change)
	}
}

func firstRule(res verify.Result, def string) string {
	if len(res.Failures) > 0 {
		return res.Failures[0].Rule
	}
	return def
}

// signaturesChecks are the checks of signatures.go.
func signaturesChecks() []check.Check {
	rules := []string{"EVT-015", "EVT-018", "EVT-017", "EVT-016", "EVT-014", "EVT-021", "EVT-024"}
	return []check.Check{
		{
			ID:     "property/webhook-signatures",
			Title:  "the verifier accepts exactly what is signed as documented (within the tolerance, inclusive), rejects any single-byte change to body, timestamps, id or secret, and a real delivery verifies",
			Rules:  rules,
			Labels: []string{check.Mutating, Label}, Needs: []string{"keys.subject", "keys.tenant", "customers.parent", "webhook_url"},
			Run: func(t *check.T) {
				var real *hookRec
				var secret string
				switch tgt := t.Target(); {
				case !tgt.VirtualClock() && tgt.ReceiverAddr != "":
					in := listenInbox(t, tgt.ReceiverAddr)
					defer in.close()
					id, sec := in.register("tenant", nil)
					defer fresh.DisableSubscription(t, "tenant", id)
					cust, _ := fresh.Customer(t)
					if real = in.await(id); real == nil {
						t.Fatalf("EVT-025", "no delivery reached the tenant-wide customer.created endpoint within 30 s of creating customer %s", cust)
					}
					secret = sec
				case !tgt.VirtualClock():
					// Only the harness's own verifier could be exercised: that
					// says nothing about the target's signatures.
					t.Skipf("a delivery from the target needs a receiver: the embedded sandbox (control API, virtual clock), or the profile's webhook_url forwarded to run --receiver-addr")
				default:
					in := newInbox(t)
					defer in.close()
					id, sec := in.register("subject", nil)
					defer fresh.DisableSubscription(t, "subject", id)
					in.emit("customer.created", t.Customer("parent"))
					for _, r := range in.take() {
						if r.header.Get(verify.HeaderDeliveryID) == id {
							real, secret = &r, sec
							break
						}
					}
					if real == nil {
						t.Fatalf("EVT-025", "no customer.created delivery reached the subscription's endpoint")
					}
				}
				run(t, "property/webhook-signatures", rules, func(rt *rapid.T) {
					secret0 := rapid.StringMatching(`[a-z]{2,6}_whsec_[A-Za-z0-9+/=]{20,44}|[ -~]{1,64}|[ -~é€]{1,16}`).Draw(rt, "secret")
					body := []byte(rapid.StringMatching(`\{"id":"[a-z0-9-]{1,36}","type":"customer\.created","data":\{"n":(0|[1-9][0-9]{0,19})\}\}`).Draw(rt, "body"))
					at := time.Unix(rapid.Int64Range(1_600_000_000, 2_000_000_000).Draw(rt, "unix"), rapid.Int64Range(0, 9_999_999).Draw(rt, "100ns")*100).UTC()
					if rapid.Bool().Draw(rt, "offset") {
						at = at.In(time.FixedZone("", rapid.SampledFrom([]int{-5 * 3600, 3600, 5*3600 + 1800}).Draw(rt, "zone")))
					}
					tol := time.Duration(rapid.Int64Range(1, 600).Draw(rt, "tolerance s")) * time.Second
					eid := rapid.StringMatching(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`).Draw(rt, "event id")
					checkSignatures(rt, signed(secret0, eid, "sub-1", at, body), body, secret0, tol, "a delivery signed as documented")
					checkSignatures(rt, real.header, real.body, secret, verify.DefaultTolerance, fmt.Sprintf("the target's customer.created delivery %s", real.header.Get(verify.HeaderID)))
				})
			},
		},
	}
}
