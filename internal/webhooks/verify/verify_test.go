package verify

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Vectors from /work/shared/notes/standards.md §1 (inputs of the Standard
// Webhooks KAT, secret used as UTF-8 bytes; computed there with Python hmac
// and openssl, and recomputed independently for the ISO timestamp below).
const (
	kSecret       = "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	kID           = "msg_p5jXN8AQM9LWM0D4loKWxJek"
	kUnix         = "1614265330"
	kBody         = `{"test": 2432232314}`
	kTSig         = "fa563f291d632f1bb64880fd7c283362344fb0672729918bb67642d71edeae63" // 1614265330.{body}
	kBodyHash     = "ae858931f67887e8150d6f96c9fe03062c1df36b4464c4ddc8e002c084d5d198"
	kSvcSig       = "8929e08b5fddc4effd4491d42777940af4be82e9e98a653fa0c99c0b04bc3170"
	kSpaceSig     = "3fed48723045638700652a330bb87f9afaa841d8e5bfd3733fe1c6bc1c4fa3bf" // body + one trailing space
	kISO          = "2021-02-25T15:02:10.0000000+00:00"                                // the same instant as kUnix
	kISOSig       = "a579b19e3f918b919a0ee0dbf2a55bb27a6cc4d9693b388402635315d33e1d3a" // {kISO}.{body}, Python hmac
	kEndpoint     = "0b6f4c7e-9a51-4f0e-8a8e-3a1f5d2c9e10"
	kAttempt      = "5d0b1c2e-7f4a-4e63-9d2b-1c8e6f0a3b47"
	productSecret = "svcprdwhsec_" // not used as a key; only to build realistic secrets
)

// mac is HMAC-SHA256 written out in the test, independent of the package.
func mac(key string, parts ...string) string {
	m := hmac.New(sha256.New, []byte(key))
	m.Write([]byte(strings.Join(parts, "")))
	return hex.EncodeToString(m.Sum(nil))
}

func hashHex(b string) string {
	s := sha256.Sum256([]byte(b))
	return hex.EncodeToString(s[:])
}

// kat is the fixed-vector delivery: every value literal.
func kat() http.Header {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set(HeaderID, kID)
	h.Set(SvcID, kID)
	h.Set(HeaderEvent, "customer.created")
	h.Set(SvcEvent, "customer.created")
	h.Set(HeaderDeliveryID, kEndpoint)
	h.Set(SvcEndpointID, kEndpoint)
	h.Set(HeaderAttemptID, kAttempt)
	h.Set(HeaderTimestamp, kISO)
	h.Set(HeaderSignature, "sha256="+kISOSig)
	h.Set(SvcTimestamp, kUnix)
	h.Set(SvcPayloadSHA256, kBodyHash)
	h.Set(SvcSignature, "sha256="+kSvcSig)
	return h
}

var katNow = func() time.Time { return time.Unix(1614265330, 0).Add(40 * time.Second) }

// signed builds a delivery signed by hand at instant at.
func signed(secret, id, body string, at time.Time) http.Header {
	h := kat()
	ts := at.UTC().Format("2006-01-02T15:04:05.0000000Z07:00")
	unix := strconv.FormatInt(at.Unix(), 10)
	h.Set(HeaderID, id)
	h.Set(SvcID, id)
	h.Set(HeaderTimestamp, ts)
	h.Set(SvcTimestamp, unix)
	h.Set(SvcPayloadSHA256, hashHex(body))
	h.Set(HeaderSignature, "sha256="+mac(secret, ts, ".", body))
	h.Set(SvcSignature, "sha256="+mac(secret, unix, ".", id, ".", hashHex(body), ".", body))
	return h
}

func rules(r Result) []string {
	var out []string
	for _, f := range r.Failures {
		if !slices.Contains(out, f.Rule) {
			out = append(out, f.Rule)
		}
	}
	slices.Sort(out)
	return out
}

func TestPublishedVectorsThroughMacEqual(t *testing.T) {
	key := []byte(kSecret)
	if !macEqual(key, "sha256="+kTSig, kUnix, ".", kBody) {
		t.Error("the {ts}.{raw} vector does not verify")
	}
	if !macEqual(key, "sha256="+kSvcSig, kUnix, ".", kID, ".", kBodyHash, ".", kBody) {
		t.Error("the x-svc vector does not verify")
	}
	if macEqual(key, "sha256="+kSpaceSig, kUnix, ".", kBody) {
		t.Error("the signature over body+space verifies over the body")
	}
	if !macEqual(key, "sha256="+kSpaceSig, kUnix, ".", kBody+" ") {
		t.Error("the body+space vector does not verify over body+space")
	}
	if hashHex(kBody) != kBodyHash {
		t.Error("payload sha256 vector")
	}
	// RFC 4231 §4.3 test case 2.
	if !macEqual([]byte("Jefe"), "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843", "what do ya want for nothing?") {
		t.Error("RFC 4231 test case 2")
	}
}

func TestDelivery(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 123456700, time.UTC)
	secret := productSecret + strings.Repeat("Ab3+", 11)
	body := `{"id":"8d0f9a3c-1f2e-4c5b-9a7d-6e5f4c3b2a10","type":"customer.created","occurred_at":"2026-11-24T12:00:00Z","api_version":"2026-05-legacy","data":{}}`
	good := func() http.Header {
		h := signed(secret, "evt-1", body, now)
		return h
	}
	sw := base64.StdEncoding.EncodeToString([]byte("raw-key-bytes-123"))
	swSecret := "whsec_" + sw
	cases := []struct {
		name   string
		h      http.Header
		body   string
		secret string
		now    time.Time
		tol    time.Duration
		want   []string
		sigOK  bool
	}{
		{name: "fixed vector", h: kat(), body: kBody, secret: kSecret, now: katNow(), sigOK: true},
		{name: "fixed vector, wrong secret", h: kat(), body: kBody, secret: kSecret + "x", now: katNow(), want: []string{"EVT-015", "EVT-018"}},
		{name: "fixed vector, body plus a space", h: kat(), body: kBody + " ", secret: kSecret, now: katNow(), want: []string{"EVT-015", "EVT-017", "EVT-018"}},
		{name: "fixed vector, stale", h: kat(), body: kBody, secret: kSecret, now: katNow().Add(10 * time.Minute), want: []string{"EVT-024"}},
		{name: "good", h: good(), body: body, secret: secret, now: now.Add(2 * time.Second), sigOK: true},
		{name: "good, 4 minutes ahead of the receiver", h: good(), body: body, secret: secret, now: now.Add(-4 * time.Minute), sigOK: true},
		{name: "past tolerance", h: good(), body: body, secret: secret, now: now.Add(5*time.Minute + 2*time.Second), want: []string{"EVT-024"}},
		{name: "future past tolerance", h: good(), body: body, secret: secret, now: now.Add(-5*time.Minute - 2*time.Second), want: []string{"EVT-024"}},
		{name: "custom tolerance", h: good(), body: body, secret: secret, now: now.Add(20 * time.Second), tol: 10 * time.Second, want: []string{"EVT-024"}},
		{name: "re-encoded body", h: good(), body: strings.ReplaceAll(body, ",", ", "), secret: secret, now: now, want: []string{"EVT-015", "EVT-017", "EVT-018"}},
		{name: "signature without the timestamp", h: func() http.Header {
			h := good()
			h.Set(HeaderSignature, "sha256="+mac(secret, body))
			return h
		}(), body: body, secret: secret, now: now, want: []string{"EVT-015"}},
		{name: "Standard Webhooks style decoded secret", h: func() http.Header {
			raw, _ := base64.StdEncoding.DecodeString(sw)
			return signed(string(raw), "evt-1", body, now)
		}(), body: body, secret: swSecret, now: now, want: []string{"EVT-021"}}, // the key is the UTF-8 bytes, not the decoded ones
		{name: "timestamp plus one second, old signatures", h: func() http.Header {
			h := good()
			h.Set(HeaderTimestamp, now.Add(time.Second).UTC().Format("2006-01-02T15:04:05.0000000Z07:00"))
			h.Set(SvcTimestamp, strconv.FormatInt(now.Unix()+1, 10))
			return h
		}(), body: body, secret: secret, now: now, want: []string{"EVT-015", "EVT-018"}},
		{name: "timestamp without fraction", h: func() http.Header {
			ts := now.UTC().Format(time.RFC3339)
			h := good()
			h.Set(HeaderTimestamp, ts)
			h.Set(HeaderSignature, "sha256="+mac(secret, ts, ".", body))
			return h
		}(), body: body, secret: secret, now: now, want: []string{"EVT-014"}},
		{name: "timestamp with three fractional digits", h: func() http.Header {
			ts := now.UTC().Format("2006-01-02T15:04:05.000Z07:00")
			h := good()
			h.Set(HeaderTimestamp, ts)
			h.Set(HeaderSignature, "sha256="+mac(secret, ts, ".", body))
			return h
		}(), body: body, secret: secret, now: now, want: []string{"EVT-014"}},
		{name: "timestamp without offset", h: func() http.Header {
			ts := now.UTC().Format("2006-01-02T15:04:05.0000000")
			h := good()
			h.Set(HeaderTimestamp, ts)
			h.Set(HeaderSignature, "sha256="+mac(secret, ts, ".", body))
			return h
		}(), body: body, secret: secret, now: now, want: []string{"EVT-014"}},
		{name: "timestamp with a +02:00 offset", h: func() http.Header {
			ts := now.In(time.FixedZone("", 2*3600)).Format("2006-01-02T15:04:05.0000000-07:00")
			h := good()
			h.Set(HeaderTimestamp, ts)
			h.Set(HeaderSignature, "sha256="+mac(secret, ts, ".", body))
			return h
		}(), body: body, secret: secret, now: now, sigOK: true},
		{name: "unix seconds of another instant", h: func() http.Header {
			h := good()
			unix := strconv.FormatInt(now.Unix()-60, 10)
			h.Set(SvcTimestamp, unix)
			h.Set(SvcSignature, "sha256="+mac(secret, unix, ".", "evt-1", ".", hashHex(body), ".", body))
			return h
		}(), body: body, secret: secret, now: now, want: []string{"EVT-016"}},
		{name: "svc signature sha1 prefix", h: func() http.Header {
			h := good()
			h.Set(SvcSignature, "sha1="+strings.TrimPrefix(h.Get(SvcSignature), "sha256="))
			return h
		}(), body: body, secret: secret, now: now, want: []string{"EVT-018"}},
		{name: "signature empty after sha256=", h: func() http.Header {
			h := good()
			h.Set(HeaderSignature, "sha256=")
			return h
		}(), body: body, secret: secret, now: now, want: []string{"EVT-015"}},
		{name: "signature in uppercase hex", h: func() http.Header {
			h := good()
			h.Set(HeaderSignature, strings.ToUpper(h.Get(HeaderSignature)[7:]))
			h.Set(HeaderSignature, "sha256="+h.Get(HeaderSignature))
			return h
		}(), body: body, secret: secret, now: now, want: []string{"EVT-015"}},
		{name: "signature not hex", h: func() http.Header {
			h := good()
			h.Set(HeaderSignature, "sha256="+strings.Repeat("zz", 32))
			return h
		}(), body: body, secret: secret, now: now, want: []string{"EVT-015"}},
		{name: "payload hash of another body", h: func() http.Header {
			h := good()
			h.Set(SvcPayloadSHA256, hashHex(body+" "))
			return h
		}(), body: body, secret: secret, now: now, want: []string{"EVT-017", "EVT-018"}},
		{name: "ids differ between families", h: func() http.Header {
			h := good()
			h.Set(HeaderID, "evt-2")
			return h
		}(), body: body, secret: secret, now: now, want: []string{"EVT-010"}, sigOK: true},
		{name: "event id equals the envelope id", h: signed(secret, "8d0f9a3c-1f2e-4c5b-9a7d-6e5f4c3b2a10", body, now),
			body: body, secret: secret, now: now, want: []string{"EVT-010"}, sigOK: true},
		{name: "event type differs between families", h: func() http.Header {
			h := good()
			h.Set(SvcEvent, "kyc.approved")
			return h
		}(), body: body, secret: secret, now: now, want: []string{"EVT-011"}, sigOK: true},
		{name: "event type differs from the envelope", h: func() http.Header {
			h := good()
			h.Set(HeaderEvent, "kyc.approved")
			h.Set(SvcEvent, "kyc.approved")
			return h
		}(), body: body, secret: secret, now: now, want: []string{"EVT-011"}, sigOK: true},
		{name: "endpoint ids differ", h: func() http.Header {
			h := good()
			h.Set(SvcEndpointID, "other")
			return h
		}(), body: body, secret: secret, now: now, want: []string{"EVT-012"}, sigOK: true},
		{name: "header sent twice", h: func() http.Header {
			h := good()
			h.Add(HeaderSignature, h.Get(HeaderSignature))
			return h
		}(), body: body, secret: secret, now: now, want: []string{"EVT-009"}},
		{name: "not JSON content type", h: func() http.Header {
			h := good()
			h.Set("Content-Type", "text/plain")
			return h
		}(), body: body, secret: secret, now: now, want: []string{"EVT-001"}, sigOK: true},
	}
	for _, name := range []string{HeaderID, HeaderEvent, HeaderDeliveryID, HeaderAttemptID, HeaderTimestamp, HeaderSignature,
		SvcID, SvcEvent, SvcEndpointID, SvcTimestamp, SvcPayloadSHA256, SvcSignature} {
		h := good()
		h.Del(name)
		cases = append(cases, struct {
			name   string
			h      http.Header
			body   string
			secret string
			now    time.Time
			tol    time.Duration
			want   []string
			sigOK  bool
		}{name: "missing " + name, h: h, body: body, secret: secret, now: now, want: []string{"EVT-009"}})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			now := c.now
			res := Delivery(c.h, []byte(c.body), c.secret, Options{Tolerance: c.tol, Now: func() time.Time { return now }})
			if got := rules(res); !slices.Equal(got, c.want) {
				t.Errorf("failed rules %v, want %v; failures: %v", got, c.want, res.Failures)
			}
			if res.SignatureOK() != (c.sigOK || len(c.want) == 0) {
				t.Errorf("SignatureOK %v; failures %v", res.SignatureOK(), res.Failures)
			}
			for _, f := range res.Failures {
				if strings.Contains(f.Reason, c.secret) {
					t.Errorf("a reason prints the secret: %s", f.Reason)
				}
			}
		})
	}
}

// TestReceiverRefusesEveryFailedDelivery: a receiver answers 2xx only to a
// delivery that verified in full, and a 4xx to every one it judges failed
// (the sender dead-letters those): 401 when it is not shown authentic, 400
// when it is authentic but its unsigned id or event-type headers disagree
// or its body is empty; and a refused delivery never makes the genuine one
// with the same id look like a repeat.
func TestReceiverRefusesEveryFailedDelivery(t *testing.T) {
	at := katNow().Add(-10 * time.Second)
	good := func() http.Header { return signed(kSecret, "evt-1", kBody, at) }
	with := func(h http.Header, name, value string) http.Header {
		if value == "" {
			h.Del(name)
		} else {
			h.Set(name, value)
		}
		return h
	}
	rc := &Receiver{Secret: func(*http.Request) string { return kSecret }, Options: Options{Now: katNow}}
	cases := []struct {
		name, method, body string
		h                  http.Header
		want               int
		rule               string
	}{
		{"ids disagree (X-Webhook-Id is covered by no signature)", "POST", kBody, with(signed(kSecret, "evt-2", kBody, at), HeaderID, "evt-swapped"), http.StatusBadRequest, "EVT-010"},
		{"event types disagree", "POST", kBody, with(signed(kSecret, "evt-3", kBody, at), SvcEvent, "customer.updated"), http.StatusBadRequest, "EVT-011"},
		{"empty body", "POST", "", signed(kSecret, "evt-4", "", at), http.StatusBadRequest, "EVT-001"},
		{"no attempt id", "POST", kBody, with(signed(kSecret, "evt-5", kBody, at), HeaderAttemptID, ""), http.StatusUnauthorized, "EVT-009"},
		{"forged, with the genuine id", "POST", kBody, signed(kSecret+"x", "evt-1", kBody, at), http.StatusUnauthorized, "EVT-015"},
		{"not a POST", "GET", kBody, good(), http.StatusMethodNotAllowed, "EVT-001"},
		{"genuine", "POST", kBody, good(), http.StatusOK, ""},
		{"genuine again", "POST", kBody, good(), http.StatusOK, ""},
	}
	var recs []Record
	rc.OnRecord = func(r Record) { recs = append(recs, r) }
	for _, c := range cases {
		req := httptest.NewRequest(c.method, "/hooks", strings.NewReader(c.body))
		req.Header = c.h
		w := httptest.NewRecorder()
		rc.ServeHTTP(w, req)
		rec := recs[len(recs)-1]
		if w.Code != c.want || rec.Status != c.want {
			t.Errorf("%s: answered %d (record %d), want %d; failures %v", c.name, w.Code, rec.Status, c.want, rec.Failures)
		}
		if c.rule != "" && (rec.Verdict != "fail" || !slices.Contains(rules(rec.Result), c.rule)) {
			t.Errorf("%s: verdict %s, rules %v, want a failure under %s", c.name, rec.Verdict, rules(rec.Result), c.rule)
		}
	}
	if genuine, again := recs[len(recs)-2], recs[len(recs)-1]; genuine.Duplicate || !again.Duplicate {
		t.Errorf("the genuine delivery after a forged one with its id: duplicate %v; its repeat: duplicate %v (want false, true)", genuine.Duplicate, again.Duplicate)
	}
}
