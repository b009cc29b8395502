package webhooks

import (
	"errors"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/suites/fresh"
	"github.com/touchstone-harness/touchstone/suites/shape"
	"github.com/touchstone-harness/touchstone/suites/webhooks/verify"
)

// inbox is the loopback receiver a delivery check starts: it records every
// delivery, verified with the subscription's current secret against the
// target's clock, and answers each attempt as told.
type inbox struct {
	t   *check.T
	srv *http.Server
	url string

	mu      sync.Mutex
	secrets map[string]string // by subscription id
	now     time.Time
	answers []int // status for attempt i (last repeats); empty means 200
	arrived int
	fixed   map[string]int // answer by attempt id
	recs    []verify.Record
}

// startInbox starts the receiver and points the embedded sandbox's
// deliveries at it. Against a target without the control API the delivery
// checks skip: receiving there needs a public webhook_url forwarded to a
// local receiver address, which this run does not offer yet.
func startInbox(t *check.T) *inbox {
	t.NeedVirtualClock()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.NoVerdict(err)
	}
	in := &inbox{t: t, url: "http://" + ln.Addr().String(), secrets: map[string]string{}, fixed: map[string]int{}}
	rc := &verify.Receiver{
		Secret: func(r *http.Request) string {
			in.mu.Lock()
			defer in.mu.Unlock()
			return in.secrets[r.Header.Get(verify.HeaderDeliveryID)]
		},
		Options: verify.Options{Now: func() time.Time { in.mu.Lock(); defer in.mu.Unlock(); return in.now }},
		OnRecord: func(r verify.Record) {
			in.mu.Lock()
			defer in.mu.Unlock()
			in.recs = append(in.recs, r)
		},
	}
	in.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a := in.arrive(r.Header.Get(verify.HeaderAttemptID))
		if a == stall {
			// Answer only after the sender's 20-second deadline, or when the
			// sender gives up.
			select {
			case <-time.After(stallFor):
			case <-r.Context().Done():
			}
		}
		rc.ServeHTTP(w, r)
	}), ReadHeaderTimeout: 5 * time.Second}
	rc.Answer = func(r verify.Record) int { return in.answer(r.AttemptID) }
	go func() {
		if err := in.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			t.Logf("inbox: %v", err)
		}
	}()
	if err := t.Control().Call(t.Context(), http.MethodPost, "/webhooks/receiver", map[string]any{"url": in.url}, nil); err != nil {
		in.close()
		t.NoVerdict(err)
	}
	in.sync()
	return in
}

func (in *inbox) close() { _ = in.srv.Close() }

// stall in a script makes the receiver answer only after stallFor, past
// the sender's 20-second deadline.
const (
	stall    = -1
	stallFor = 25 * time.Second
)

// arrive counts an arriving attempt and fixes its scripted answer.
func (in *inbox) arrive(attemptID string) int {
	in.mu.Lock()
	defer in.mu.Unlock()
	a := http.StatusOK
	if len(in.answers) > 0 {
		a = in.answers[min(in.arrived, len(in.answers)-1)]
	}
	in.arrived++
	in.fixed[attemptID] = a
	return a
}

// answer is the scripted status of a verified attempt (a delivery that does
// not verify is answered 401); a stalled attempt answers 200 late.
func (in *inbox) answer(attemptID string) int {
	in.mu.Lock()
	defer in.mu.Unlock()
	if a, ok := in.fixed[attemptID]; ok && a != stall {
		return a
	}
	return http.StatusOK
}

// script sets the statuses of the next attempts (the last repeats).
func (in *inbox) script(statuses ...int) {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.answers = statuses
}

func (in *inbox) setSecret(subID, s string) {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.secrets[subID] = s
}

// sync reads the target's clock into the receiver's.
func (in *inbox) sync() {
	clk, err := in.t.Control().Clock(in.t.Context())
	if err != nil {
		in.t.NoVerdict(err)
	}
	in.mu.Lock()
	in.now = clk.Now
	in.mu.Unlock()
}

// advance moves the target clock by d (running the deliveries due on the
// way); the receiver's clock is set to the end instant first, where the
// scheduled attempt is expected.
func (in *inbox) advance(d time.Duration) {
	in.mu.Lock()
	in.now = in.now.Add(d)
	in.mu.Unlock()
	if _, err := in.t.Control().Advance(in.t.Context(), d); err != nil {
		in.t.NoVerdict(err)
	}
	in.sync()
}

// records returns what was received so far.
func (in *inbox) records() []verify.Record {
	in.mu.Lock()
	defer in.mu.Unlock()
	return append([]verify.Record(nil), in.recs...)
}

// emit asks the sandbox to emit an event type about a customer; it returns
// the envelope id.
func (in *inbox) emit(typ, customerID string) string {
	var out struct {
		ResourceID string `json:"resource_id"`
	}
	if err := in.t.Control().Call(in.t.Context(), http.MethodPost, "/webhooks/emit", map[string]any{"type": typ, "customer_id": customerID}, &out); err != nil {
		in.t.NoVerdict(err)
	}
	return out.ResourceID
}

// subscribe registers an endpoint with the key for the event types, with
// the inbox holding its secret; it returns the subscription.
func (in *inbox) subscribe(rule, key string, maxAttempts any, eventTypes ...string) map[string]any {
	body := map[string]any{"url": fresh.WebhookURL(in.t), "eventTypes": eventTypes}
	if maxAttempts != nil {
		body["maxAttempts"] = maxAttempts
	}
	r := fresh.Register(in.t, key, body)
	shape.Status(in.t, rule, r, http.StatusCreated)
	m := shape.Object(in.t, rule, r)
	in.setSecret(shape.String(in.t, rule, m, "subscriptionId"), shape.String(in.t, rule, m, "secret"))
	return m
}

// forSub filters records by X-Webhook-Delivery-Id.
func forSub(recs []verify.Record, subID string) []verify.Record {
	var out []verify.Record
	for _, r := range recs {
		if r.Header.Get(verify.HeaderDeliveryID) == subID {
			out = append(out, r)
		}
	}
	return out
}
