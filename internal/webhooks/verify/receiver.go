package verify

import (
	"io"
	"net/http"
	"sync"
	"time"
)

// MaxBody is the largest delivery body a Receiver reads.
const MaxBody = 10 << 20

// Record is what a Receiver saw of one delivery. It never holds the secret.
type Record struct {
	ReceivedAt time.Time `json:"received_at"`
	// Verdict is "pass" when every rule held, else "fail".
	Verdict string `json:"verdict"`
	// Status is the HTTP status the receiver answered: 2xx only when the
	// delivery verified in full; a 4xx for every delivery it judges failed
	// (see Refusal), which the sender dead-letters without retrying.
	Status int `json:"status"`
	// Duplicate is true when a delivery with this X-Webhook-Id verified
	// before (a retry or a repeat; still answered 2xx when it verifies).
	// Only verified deliveries count: a forged or inconsistent delivery
	// never makes the genuine one look like a repeat.
	Duplicate bool `json:"duplicate"`
	Result
	// Reasons are the failures as "RULE: reason" lines.
	Reasons []string `json:"reasons"`
	// Body is the raw body as received (not written by touchstone receive).
	Body []byte `json:"-"`
	// Header is the request's headers as received.
	Header http.Header `json:"-"`
}

// Receiver is an http.Handler that verifies every delivery it receives.
type Receiver struct {
	// Secret returns the current secret of the subscription a delivery is
	// for (it may change when the secret is rotated; several endpoints can
	// share a receiver: X-Webhook-Delivery-Id names the subscription).
	Secret func(r *http.Request) string
	// Options are passed to Delivery.
	Options Options
	// Answer, when set, chooses the status for a delivery that verified
	// (tests use it to make the sender retry); nil answers 200.
	Answer func(Record) int
	// OnRecord, when set, is called with every record, in arrival order.
	OnRecord func(Record)

	mu   sync.Mutex
	seen map[string]int
}

// Seen reports how many deliveries of the event id were received.
func (rc *Receiver) Seen(eventID string) int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.seen[eventID]
}

func (rc *Receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	now := time.Now
	if rc.Options.Now != nil {
		now = rc.Options.Now
	}
	rec := Record{ReceivedAt: now(), Header: r.Header.Clone()}
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxBody+1))
	rec.Body = body
	switch {
	case r.Method != http.MethodPost:
		rec.Result = Result{Failures: []Failure{{Rule: "EVT-001", Reason: "the delivery is a " + r.Method + ", not a POST"}}}
	case err != nil:
		rec.Result = Result{Failures: []Failure{{Rule: "EVT-001", Reason: "reading the body: " + err.Error()}}}
	case len(body) > MaxBody:
		rec.Result = Result{Failures: []Failure{{Rule: "EVT-001", Reason: "the body is larger than the receiver reads"}}}
	default:
		rec.Result = Delivery(r.Header, body, rc.Secret(r), rc.Options)
	}
	rec.Verdict = "pass"
	if !rec.OK() {
		rec.Verdict = "fail"
	}
	if rec.Failures == nil {
		rec.Failures = []Failure{}
	}
	rec.Reasons = []string{}
	for _, f := range rec.Failures {
		rec.Reasons = append(rec.Reasons, f.String())
	}
	rec.Status = Refusal(r.Method, len(body), err, rec.Result)
	rc.mu.Lock()
	if rc.seen == nil {
		rc.seen = map[string]int{}
	}
	if rec.EventID != "" {
		rec.Duplicate = rc.seen[rec.EventID] > 0
		if rec.OK() {
			rc.seen[rec.EventID]++
		}
	}
	if rec.Status == http.StatusOK && rc.Answer != nil {
		rec.Status = rc.Answer(rec)
	}
	if rc.OnRecord != nil {
		rc.OnRecord(rec)
	}
	rc.mu.Unlock()
	w.WriteHeader(rec.Status)
}

// Refusal is the status a receiver answers a delivery: 200 when it verified
// in full, else a 4xx (never retried by the sender, document 2, Retries):
// 405 for a method other than POST, 400 for an unreadable body, 413 for a
// body larger than MaxBody, 401 when it is not shown authentic (a
// signature or the timestamp failed, or a header of either family is
// missing or repeated: SignatureOK), and 400 when it is authentic but broke
// another rule (the two id, event-type or endpoint headers disagree, the
// body is empty or not the event's JSON, the Content-Type is not JSON).
func Refusal(method string, size int, readErr error, res Result) int {
	switch {
	case method != http.MethodPost:
		return http.StatusMethodNotAllowed
	case readErr != nil:
		return http.StatusBadRequest
	case size > MaxBody:
		return http.StatusRequestEntityTooLarge
	case !res.SignatureOK():
		return http.StatusUnauthorized
	case !res.OK():
		return http.StatusBadRequest
	}
	return http.StatusOK
}
