package webhooks

import (
	"errors"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/shape"
	"github.com/touchstone-harness/touchstone/internal/webhooks/verify"
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
	// controlled: the embedded sandbox drives deliveries and the clock.
	controlled bool
	recs       []verify.Record
}

// startInbox starts the receiver. Against the embedded sandbox (control
// API, virtual clock) it listens on a free loopback port and points the
// sandbox's deliveries at it. Against another target it listens on the
// run's --receiver-addr, where the user forwards the profile's webhook_url,
// and verifies with the real clock; without one the check skips.
func startInbox(t *check.T) *inbox {
	tgt := t.Target()
	addr, controlled := "127.0.0.1:0", tgt.Control != nil && tgt.VirtualClock()
	if !controlled {
		if tgt.ReceiverAddr == "" {
			t.Skipf("delivery checks need a receiver: the embedded sandbox (control API, virtual clock), or the profile's webhook_url forwarded to run --receiver-addr")
		}
		addr = tgt.ReceiverAddr
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.NoVerdict(err)
	}
	in := &inbox{t: t, url: "http://" + ln.Addr().String(), secrets: map[string]string{}, fixed: map[string]int{}, controlled: controlled}
	opts := verify.Options{}
	if controlled {
		opts.Now = func() time.Time { in.mu.Lock(); defer in.mu.Unlock(); return in.now }
	}
	rc := &verify.Receiver{
		Secret: func(r *http.Request) string {
			in.mu.Lock()
			defer in.mu.Unlock()
			return in.secrets[r.Header.Get(verify.HeaderDeliveryID)]
		},
		Options: opts,
		OnRecord: func(r verify.Record) {
			in.mu.Lock()
			defer in.mu.Unlock()
			in.recs = append(in.recs, r)
		},
	}
	in.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a := in.arrive(r.Header.Get(verify.HeaderAttemptID))
		if a/100 == 3 {
			// A scripted redirect points at this receiver (EVT-036: it
			// must not be followed).
			w.Header().Set("Location", in.url+redirectPath)
		}
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
	if controlled {
		if err := t.Control().Call(t.Context(), http.MethodPost, "/webhooks/receiver", map[string]any{"url": in.url}, nil); err != nil {
			in.close()
			t.NoVerdict(err)
		}
		in.sync()
	}
	return in
}

// await waits for deliveries to the subscription: at once against the
// embedded sandbox (it delivers inside the producing call), up to 30 s of
// real time against another target.
func (in *inbox) await(subID string, n int) []verify.Record {
	deadline := time.Now().Add(30 * time.Second)
	for {
		recs := forSub(in.records(), subID)
		if len(recs) >= n || in.controlled || time.Now().After(deadline) {
			return recs
		}
		time.Sleep(200 * time.Millisecond)
	}
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

// setSecret holds a subscription's current secret for verifying its
// deliveries, and has the run mask it wherever it is written.
func (in *inbox) setSecret(subID, s string) {
	if red := in.t.Target().Redactor; red != nil && s != "" {
		red.Add(s)
	}
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
	if !in.controlled {
		in.t.Skipf("this check drives retries with the sandbox's virtual clock")
	}
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
	shape.StatusAnswer(in.t, r, shape.Want{Rule: rule, Status: http.StatusCreated})
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
