package idempotency

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// In progress (document 1, Common rules): while a first attempt runs, an
// identical request is 409 idempotency_key_in_progress and a different one
// 409 idempotency_key_reused. With the control API the sandbox holds POST
// /customers for 400 ms, so that the later requests surely meet the first
// in flight. A target without it answers as fast as it does: requests
// released together either meet the first in flight (409) or arrive after
// it completed (the replay, byte for byte); either way the key executes
// once. The burst is sent again with a fresh key until one meets the first
// in flight (the in-progress answer is then observed) or tries bursts have
// passed (the check then skips: in-progress was not observed).

const hold = 400 * time.Millisecond

// tries bounds the bursts sent to a target without the control API.
const tries = 8

// concurrencyChecks are the checks of concurrency.go.
func concurrencyChecks() []check.Check {
	return []check.Check{
		{
			ID:     "idempotency/in-progress",
			Alone:  check.WithControl,
			Title:  "two identical concurrent POSTs: one 2xx, one 409 idempotency_key_in_progress (or, without a hold, the replay); the retry replays the 2xx byte for byte",
			Rules:  []string{"IDEM-012", "IDEM-022", "IDEM-019", "CUST-009"},
			Labels: []string{check.Mutating}, Needs: []string{"keys.tenant"},
			Run: func(t *check.T) { inFlight(t, 2, "IDEM-012", "retry after the in-progress answer") },
		},
		{
			ID:     "idempotency/in-progress-different-body",
			Alone:  check.WithControl,
			Title:  "two concurrent POSTs with one key and different bodies: one 2xx, one 409 idempotency_key_reused that creates nothing",
			Rules:  []string{"IDEM-020", "IDEM-022", "ERR-024", "CUST-009"},
			Labels: []string{check.Mutating}, Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				mark := customersMark(t) // every customer made from here on is newer
				c := t.Client("tenant")
				held := slowCreates(t)
				defer held()
				// Whether a pair met in flight cannot be told from the
				// answers (a different body after completion is 409
				// reused too): without a hold, several pairs raise the odds.
				pairs := 1
				if !t.ServesControl() {
					pairs = 3
					t.Logf("no hold on POST /customers (no control API): %d pairs sent together, each body with %d KiB of JSON whitespace; whether they met in flight is not observable", pairs, padding>>10)
				}
				for range pairs {
					key := t.NewKey()
					emails := []string{freshEmail(), freshEmail()}
					rs := make([]*client.Response, 2)
					t.Go(2, func(i int) {
						req := client.Request{Method: http.MethodPost, Path: customers, IdempotencyKey: key, JSON: map[string]any{"email": emails[i], "jurisdiction": "GB"}}
						if pairs > 1 {
							req = spaced(req)
						}
						rs[i] = t.Do(c, req)
					})
					ok, reused := split(t, "IDEM-020", rs, "idempotency_key_reused")
					if len(ok) != 1 || len(reused) != 1 {
						t.Fatalf("IDEM-020", "two concurrent requests with one key and different bodies gave %d 2xx and %d 409 reused (statuses %s), want one of each", len(ok), len(reused), statuses(rs))
					}
					for i, r := range rs {
						want := 1
						if r.Status == http.StatusConflict {
							want = 0
						}
						if n := countByReference(t, mark, emails[i]); n != want {
							t.Fatalf("IDEM-020", "request %d answered %d but %d customers have its email, want %d", i+1, r.Status, n, want)
						}
					}
				}
			},
		},
		{
			ID:     "idempotency/concurrent-execute-once",
			Alone:  check.WithControl,
			Title:  "ten identical concurrent POSTs execute once: one 2xx, nine 409 idempotency_key_in_progress (or, without a hold, replays), no 5xx; one customer",
			Rules:  []string{"IDEM-012", "IDEM-008", "CUST-009"},
			Labels: []string{check.Mutating}, Needs: []string{"keys.tenant"},
			Run: func(t *check.T) { inFlight(t, 10, "IDEM-008", "retry after the concurrent burst") },
		},
	}
}

// inFlight sends n identical POST /customers with one key, released
// together, and judges the answers: with the hold, one 2xx and n-1 409
// idempotency_key_in_progress; without it, 2xx answers that are all the
// one execution's (byte for byte) and 409 in_progress for the rest, at
// least one 409 in some burst (else the check skips: not observed). The
// retry replays the 2xx and exactly one customer has the email (countRule).
func inFlight(t *check.T, n int, countRule, retry string) {
	mark := customersMark(t) // every customer made from here on is newer
	c := t.Client("tenant")
	release := slowCreates(t)
	defer release()
	held := t.ServesControl()
	if !held {
		t.Logf("no hold on POST /customers (no control API): each body carries %d KiB of JSON whitespace, which the target parses while the later requests arrive", padding>>10)
	}
	for try := 1; ; try++ {
		email := freshEmail()
		req := client.Request{Method: http.MethodPost, Path: customers, IdempotencyKey: t.NewKey(), JSON: map[string]any{"email": email, "jurisdiction": "GB"}}
		if !held {
			req = spaced(req)
		}
		rs := make([]*client.Response, n)
		t.Go(n, func(i int) { rs[i] = t.Do(c, req) })
		ok, busy := split(t, "IDEM-012", rs, "idempotency_key_in_progress")
		if held && (len(ok) != 1 || len(busy) != n-1) {
			t.Fatalf("IDEM-012", "%d identical concurrent requests gave %d 2xx and %d 409 in_progress (statuses %s), want 1 and %d", n, len(ok), len(busy), statuses(rs), n-1)
		}
		if len(ok) == 0 {
			t.Fatalf("IDEM-012", "%d identical concurrent requests gave no 2xx (statuses %s): the first attempt must complete", n, statuses(rs))
		}
		if k := countByReference(t, mark, email); k != 1 {
			t.Fatalf(countRule, "%d identical concurrent requests (statuses %s) made %d customers with the email, want 1: the key must execute once", n, statuses(rs), k)
		}
		for _, r := range ok[1:] {
			same(t, ok[0], r, "two 2xx answers to one key and body (one execution, the other its replay)")
		}
		same(t, ok[0], t.Do(c, req), retry)
		if held || len(busy) > 0 {
			if !held {
				t.Logf("burst %d: %d of %d requests met the first in flight (409 idempotency_key_in_progress)", try, len(busy), n)
			}
			return
		}
		if try == tries {
			t.Skipf("in %d bursts of %d identical requests none met the first attempt in flight: every answer was the one execution or its replay (judged), so the in-progress answer (IDEM-012) was not observed; the control API's hold on POST /customers makes the overlap certain", tries, n)
		}
	}
}

// padding is the JSON whitespace a body carries to a target without the
// control API: the first attempt stays in flight while the target reads
// and parses it, so that the requests sent with it can meet it there. The
// body stays well under the 1 MiB of replay protection (IDEM-014).
const padding = 512 << 10

// spaced is req with its JSON body followed by padding spaces (the same
// JSON value: identical requests stay identical).
func spaced(req client.Request) client.Request {
	b, _ := json.Marshal(req.JSON)
	req.JSON = nil
	req.Body = append(b, bytes.Repeat([]byte(" "), padding)...)
	req.Header = http.Header{"Content-Type": {"application/json"}}
	return req
}

// slowCreates holds POST /customers for hold when the target has the
// control API (nothing otherwise); the caller defers the returned func,
// which removes the latency.
func slowCreates(t *check.T) func() {
	if !t.ServesControl() {
		return func() {}
	}
	if err := t.Control().SetLatency(t.Context(), http.MethodPost, customers, hold); err != nil {
		t.NoVerdict(err)
	}
	return func() { _ = t.Control().SetLatency(context.Background(), http.MethodPost, customers, 0) }
}

// split sorts responses into 2xx and 409 problem+json with code; any other
// answer fails the check.
func split(t *check.T, rule string, rs []*client.Response, code string) (ok, conflicts []*client.Response) {
	for i, r := range rs {
		switch {
		case r.Status/100 == 2:
			ok = append(ok, r)
		case r.Status == http.StatusConflict:
			if m, err := r.JSON(); err == nil && m["code"] != code {
				t.Fatalf(rule, "concurrent request %d: 409 with code %v, want %s", i+1, m["code"], code)
			}
			shape.ProblemAnswer(t, r, shape.Want{Rule: "IDEM-022", Status: http.StatusConflict, Code: code})
			conflicts = append(conflicts, r)
		default:
			if shape.BodyCode(r) == code {
				// The conflict's code at another status: judged as such.
				shape.ProblemAnswer(t, r, shape.Want{Rule: rule, Status: http.StatusConflict, Code: code, What: fmt.Sprintf("concurrent request %d", i+1)})
			}
			t.Fatalf(rule, "concurrent request %d: status %d, want 2xx or 409 %s; body: %s", i+1, r.Status, code, shape.Clip(r.Body))
		}
	}
	return ok, conflicts
}

func statuses(rs []*client.Response) string {
	s := ""
	for i, r := range rs {
		if i > 0 {
			s += ","
		}
		s += fmt.Sprint(r.Status)
	}
	return s
}
