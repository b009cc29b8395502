// Package verify checks one webhook delivery of the Partner Money-Movement API
// the way a receiver must: both header families present and consistent, both
// signature schemes recomputed over the raw body with the subscription secret
// (compared in constant time), the body hash, the X-Webhook-Timestamp format
// and a replay tolerance.
//
// It is the harness's own implementation, written from document 2 (Events /
// Headers) and independent of the sandbox. It is internal to the module: the
// webhook checks and properties use it, and `touchstone receive` runs it as
// the receiver an integrator points their deliveries at.
//
//	res := verify.Delivery(r.Header, rawBody, secret, verify.Options{})
//	if !res.OK() { /* answer 401; res.Failures says which rule failed */ }
package verify

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// DefaultTolerance is the replay tolerance the harness uses when none is
// given: 5 minutes either side of the receiver's clock (rule EVT-024, an
// interpretation of "a replay tolerance of a few minutes").
const DefaultTolerance = 5 * time.Minute

// The headers of a delivery (document 2, Events / Headers). Both families are
// sent on every delivery.
const (
	HeaderID          = "X-Webhook-Id"
	HeaderEvent       = "X-Webhook-Event"
	HeaderDeliveryID  = "X-Webhook-Delivery-Id"
	HeaderAttemptID   = "X-Webhook-Delivery-Attempt-Id"
	HeaderTimestamp   = "X-Webhook-Timestamp"
	HeaderSignature   = "X-Webhook-Signature"
	SvcID             = "x-svc-webhook-id"
	SvcEvent          = "x-svc-event-type"
	SvcEndpointID     = "x-svc-delivery-endpoint-id"
	SvcTimestamp      = "x-svc-signature-timestamp"
	SvcPayloadSHA256  = "x-svc-payload-sha256"
	SvcSignature      = "x-svc-signature"
	HeaderCorrelation = "x-correlation-id"
)

// Options tune a verification. The zero value uses DefaultTolerance and the
// real clock.
type Options struct {
	// Tolerance is the largest accepted distance, past or future, between the
	// signing instant and Now. Zero means DefaultTolerance.
	Tolerance time.Duration
	// Now is the receiver's clock (a virtual clock in tests). Nil means time.Now.
	Now func() time.Time
}

// Failure is one broken rule: the catalogue rule id and what was wrong. A
// reason never contains the secret.
type Failure struct {
	Rule   string `json:"rule"`
	Reason string `json:"reason"`
}

func (f Failure) String() string { return f.Rule + ": " + f.Reason }

// Result is the verdict on one delivery.
type Result struct {
	EventID    string    `json:"webhook_id"`  // X-Webhook-Id
	EventType  string    `json:"event_type"`  // X-Webhook-Event
	EndpointID string    `json:"endpoint_id"` // X-Webhook-Delivery-Id
	AttemptID  string    `json:"attempt_id"`  // X-Webhook-Delivery-Attempt-Id
	SignedAt   time.Time `json:"signed_at"`   // X-Webhook-Timestamp, zero when unreadable
	Failures   []Failure `json:"failures"`    // empty when the delivery verifies
}

// OK reports whether every rule held.
func (r Result) OK() bool { return len(r.Failures) == 0 }

// SignatureOK reports whether both signatures verified and the timestamp was
// within tolerance: the failures that make a receiver answer 401. Header
// consistency failures (a differing x-svc-event-type, say) are reported by
// OK but do not make the delivery unauthentic.
func (r Result) SignatureOK() bool {
	for _, f := range r.Failures {
		switch f.Rule {
		case "EVT-009", "EVT-014", "EVT-015", "EVT-016", "EVT-017", "EVT-018", "EVT-021", "EVT-024":
			return false
		}
	}
	return true
}

var (
	// ISO 8601 round-trip: date-time with seven fractional digits and an
	// offset (Z or ±hh:mm).
	timestampRE = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{7}(Z|[+-]\d{2}:\d{2})$`)
	unixRE      = regexp.MustCompile(`^[0-9]{1,19}$`)
	sigRE       = regexp.MustCompile(`^sha256=[0-9a-f]{64}$`)
	hexRE       = regexp.MustCompile(`^[0-9a-f]{64}$`)
)

type verifier struct {
	h    http.Header
	fail []Failure
}

func (v *verifier) add(rule, format string, args ...any) {
	v.fail = append(v.fail, Failure{Rule: rule, Reason: fmt.Sprintf(format, args...)})
}

// one returns the single value of header name; absent or repeated headers
// are failures of rule EVT-009 (both families on every delivery).
func (v *verifier) one(name string) (string, bool) {
	vals := v.h.Values(name)
	switch len(vals) {
	case 0:
		v.add("EVT-009", "header %s is missing", name)
		return "", false
	case 1:
		return vals[0], true
	default:
		v.add("EVT-009", "header %s is sent %d times", name, len(vals))
		return "", false
	}
}

// Delivery verifies one delivery: its headers, its raw body exactly as
// received, and the subscription secret (the whole string as returned at
// registration or rotation, used as UTF-8 bytes: rules EVT-021, EVT-022).
func Delivery(h http.Header, body []byte, secret string, o Options) Result {
	tol := o.Tolerance
	if tol <= 0 {
		tol = DefaultTolerance
	}
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	v := &verifier{h: h}
	key := []byte(secret)

	id, idOK := v.one(HeaderID)
	svcID, svcIDOK := v.one(SvcID)
	event, eventOK := v.one(HeaderEvent)
	svcEvent, svcEventOK := v.one(SvcEvent)
	endpoint, endpointOK := v.one(HeaderDeliveryID)
	svcEndpoint, svcEndpointOK := v.one(SvcEndpointID)
	attempt, _ := v.one(HeaderAttemptID)
	ts, tsOK := v.one(HeaderTimestamp)
	sig, sigOK := v.one(HeaderSignature)
	unix, unixOK := v.one(SvcTimestamp)
	payloadHash, payloadHashOK := v.one(SvcPayloadSHA256)
	svcSig, svcSigOK := v.one(SvcSignature)
	res := Result{EventID: id, EventType: event, EndpointID: endpoint, AttemptID: attempt}

	if idOK && svcIDOK && id != svcID {
		v.add("EVT-010", "X-Webhook-Id %q differs from x-svc-webhook-id %q", id, svcID)
	}
	if eventOK && svcEventOK && event != svcEvent {
		v.add("EVT-011", "X-Webhook-Event %q differs from x-svc-event-type %q", event, svcEvent)
	}
	if endpointOK && svcEndpointOK && endpoint != svcEndpoint {
		v.add("EVT-012", "X-Webhook-Delivery-Id %q differs from x-svc-delivery-endpoint-id %q", endpoint, svcEndpoint)
	}

	if ct := h.Get("Content-Type"); ct != "" {
		if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
			v.add("EVT-001", "Content-Type %q is not application/json", ct)
		}
	} else {
		v.add("EVT-001", "Content-Type is missing (want application/json)")
	}

	// Body: the envelope type must be the header's event type, and the
	// envelope id is the resource's, never the event id.
	var env struct {
		ID        *string `json:"id"`
		Type      *string `json:"type"`
		EventType *string `json:"eventType"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		v.add("EVT-001", "body is not a JSON object: %v", err)
	} else {
		bodyType := env.Type
		if bodyType == nil {
			bodyType = env.EventType
		}
		if eventOK && bodyType != nil && *bodyType != event {
			v.add("EVT-011", "X-Webhook-Event %q differs from the envelope's event type %q", event, *bodyType)
		}
		if idOK && env.ID != nil && *env.ID == id {
			v.add("EVT-010", "X-Webhook-Id equals the envelope id %q (the event id must differ from it)", id)
		}
	}

	// X-Webhook-Timestamp: format, tolerance, and the scheme over it.
	if tsOK {
		if !timestampRE.MatchString(ts) {
			v.add("EVT-014", "X-Webhook-Timestamp %q is not an ISO 8601 date-time with seven fractional digits and an offset", ts)
		} else if t, err := time.Parse(time.RFC3339Nano, ts); err != nil {
			v.add("EVT-014", "X-Webhook-Timestamp %q does not parse: %v", ts, err)
		} else {
			res.SignedAt = t
			if d := now().Sub(t); d > tol || d < -tol {
				v.add("EVT-024", "X-Webhook-Timestamp %s is %s from the receiver clock, beyond the tolerance of %s", ts, d.Round(time.Second), tol)
			}
		}
	}
	if sigOK {
		if !sigRE.MatchString(sig) {
			v.add("EVT-015", "X-Webhook-Signature is not sha256= plus 64 lowercase hex digits")
		} else if tsOK && !macEqual(key, sig, ts, ".", string(body)) {
			if alt := decodedKey(secret); alt != nil && macEqual(alt, sig, ts, ".", string(body)) {
				v.add("EVT-021", "X-Webhook-Signature is made with the secret's base64-decoded bytes, not its UTF-8 bytes")
			} else {
				v.add("EVT-015", "X-Webhook-Signature does not match HMAC-SHA256 over {X-Webhook-Timestamp}.{raw_body} with the secret")
			}
		}
	}

	// The x-svc family: Unix seconds of the same instant, the body hash, and
	// the stronger scheme.
	if unixOK {
		if !unixRE.MatchString(unix) {
			v.add("EVT-016", "x-svc-signature-timestamp %q is not Unix seconds", unix)
		} else if n, err := strconv.ParseInt(unix, 10, 64); err != nil {
			v.add("EVT-016", "x-svc-signature-timestamp %q does not parse: %v", unix, err)
		} else if !res.SignedAt.IsZero() && n != res.SignedAt.Unix() {
			v.add("EVT-016", "x-svc-signature-timestamp %d is not the instant of X-Webhook-Timestamp (%d)", n, res.SignedAt.Unix())
		} else if res.SignedAt.IsZero() {
			// No readable X-Webhook-Timestamp: apply the tolerance here.
			if d := now().Sub(time.Unix(n, 0)); d > tol+time.Second || d < -tol {
				v.add("EVT-024", "x-svc-signature-timestamp %d is %s from the receiver clock, beyond the tolerance of %s", n, d.Round(time.Second), tol)
			}
		}
	}
	sum := sha256.Sum256(body)
	bodyHash := hex.EncodeToString(sum[:])
	if payloadHashOK {
		if !hexRE.MatchString(payloadHash) {
			v.add("EVT-017", "x-svc-payload-sha256 is not 64 lowercase hex digits")
		} else if !hmac.Equal([]byte(payloadHash), []byte(bodyHash)) {
			v.add("EVT-017", "x-svc-payload-sha256 %s is not the SHA-256 of the raw body (%s)", payloadHash, bodyHash)
		}
	}
	if svcSigOK {
		if !sigRE.MatchString(svcSig) {
			v.add("EVT-018", "x-svc-signature is not sha256= plus 64 lowercase hex digits")
		} else if unixOK && svcIDOK && payloadHashOK &&
			!macEqual(key, svcSig, unix, ".", svcID, ".", payloadHash, ".", string(body)) {
			if alt := decodedKey(secret); alt != nil && macEqual(alt, svcSig, unix, ".", svcID, ".", payloadHash, ".", string(body)) {
				v.add("EVT-021", "x-svc-signature is made with the secret's base64-decoded bytes, not its UTF-8 bytes")
			} else {
				v.add("EVT-018", "x-svc-signature does not match HMAC-SHA256 over {x-svc-signature-timestamp}.{x-svc-webhook-id}.{x-svc-payload-sha256}.{raw_body} with the secret")
			}
		}
	}
	res.Failures = v.fail
	return res
}

// decodedKey is the other key a sender may wrongly use: the base64 part
// after "whsec_" decoded to bytes (nil when the secret has none).
func decodedKey(secret string) []byte {
	i := strings.LastIndex(secret, "whsec_")
	if i < 0 {
		return nil
	}
	b, err := base64.StdEncoding.DecodeString(secret[i+len("whsec_"):])
	if err != nil || len(b) == 0 {
		return nil
	}
	return b
}

// macEqual recomputes HMAC-SHA256 over the concatenated parts and compares
// it with the hex digits of a "sha256=<hex>" header in constant time.
func macEqual(key []byte, header string, parts ...string) bool {
	got, err := hex.DecodeString(header[len("sha256="):])
	if err != nil {
		return false
	}
	m := hmac.New(sha256.New, key)
	for _, p := range parts {
		m.Write([]byte(p))
	}
	return hmac.Equal(got, m.Sum(nil))
}
