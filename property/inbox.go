package property

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/webhooks/verify"
)

// hookInbox is the properties' loopback webhook receiver (embedded sandbox
// only: the control API points deliveries at it). It records every
// delivery raw and answers the n-th attempt of an event as told.
type hookInbox struct {
	t   *check.T
	srv *http.Server
	url string

	mu     sync.Mutex
	recs   []hookRec
	answer func(endpointID string, n int) int // n counts attempts from 1 per endpoint; nil answers 200
	seen   map[string]int
}

type hookRec struct {
	header http.Header
	body   []byte
	status int
}

// newInbox starts the receiver and points the sandbox's deliveries at it;
// without a control API and a virtual clock the check skips.
func newInbox(t *check.T) *hookInbox {
	if !t.Target().VirtualClock() {
		t.Skipf("webhook properties drive deliveries with the sandbox's control API and virtual clock")
	}
	in := listenInbox(t, "127.0.0.1:0")
	if err := t.Control().Call(t.Context(), http.MethodPost, "/webhooks/receiver", map[string]any{"url": in.url}, nil); err != nil {
		in.close()
		t.NoVerdict(err)
	}
	return in
}

// listenInbox starts the receiver on addr (a loopback port the control API
// points deliveries at, or the run's --receiver-addr, where the profile's
// webhook_url is forwarded).
func listenInbox(t *check.T, addr string) *hookInbox {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.NoVerdict(err)
	}
	in := &hookInbox{t: t, url: "http://" + ln.Addr().String(), seen: map[string]int{}}
	in.srv = &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, verify.MaxBody))
		in.mu.Lock()
		// Attempts are counted per endpoint: the webhook properties send one
		// event to each endpoint they register, and a target that changed
		// X-Webhook-Id between attempts must still get the scripted answers.
		key := r.Header.Get(verify.HeaderDeliveryID)
		in.seen[key]++
		status := http.StatusOK
		if in.answer != nil {
			status = in.answer(r.Header.Get(verify.HeaderDeliveryID), in.seen[key])
		}
		in.recs = append(in.recs, hookRec{header: r.Header.Clone(), body: body, status: status})
		in.mu.Unlock()
		w.WriteHeader(status)
	})}
	go func() {
		if err := in.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			t.Logf("inbox: %v", err)
		}
	}()
	return in
}

// await waits up to 30 s of real time for a delivery to the endpoint.
func (in *hookInbox) await(endpointID string) *hookRec {
	deadline := time.Now().Add(30 * time.Second)
	for {
		in.mu.Lock()
		for i := range in.recs {
			if in.recs[i].header.Get(verify.HeaderDeliveryID) == endpointID {
				r := in.recs[i]
				in.mu.Unlock()
				return &r
			}
		}
		in.mu.Unlock()
		if time.Now().After(deadline) {
			return nil
		}
		select {
		case <-in.t.Context().Done():
			return nil
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func (in *hookInbox) close() { _ = in.srv.Close() }

// take returns and forgets what was received so far.
func (in *hookInbox) take() []hookRec {
	in.mu.Lock()
	defer in.mu.Unlock()
	out := in.recs
	in.recs = nil
	return out
}

func (in *hookInbox) script(f func(endpointID string, n int) int) {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.answer = f
}

// emit has the sandbox emit an event type about a customer.
func (in *hookInbox) emit(typ, customerID string) {
	if err := in.t.Control().Call(in.t.Context(), http.MethodPost, "/webhooks/emit", map[string]any{"type": typ, "customer_id": customerID}, nil); err != nil {
		in.t.NoVerdict(err)
	}
}

// register makes a subscription with key for customer.created (maxAttempts
// when not nil) and returns its id and secret; setup, no verdict on failure.
func (in *hookInbox) register(key string, maxAttempts any) (id, secret string) {
	body := map[string]any{"url": fresh.WebhookURL(in.t), "eventTypes": []string{"customer.created"}}
	if maxAttempts != nil {
		body["maxAttempts"] = maxAttempts
	}
	r := fresh.Register(in.t, key, body)
	m, err := r.JSON()
	if r.Status != http.StatusCreated || err != nil {
		in.t.NoVerdict(fmt.Errorf("registering a webhook subscription answered %d", r.Status))
	}
	id, _ = m["subscriptionId"].(string)
	secret, _ = m["secret"].(string)
	if id == "" || secret == "" {
		in.t.NoVerdict(errors.New("the registration answer has no subscriptionId or secret"))
	}
	return id, secret
}
