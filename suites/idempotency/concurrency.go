package idempotency

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/suites/shape"
)

// In progress (document 1, Common rules): while a first attempt runs, an
// identical request is 409 idempotency_key_in_progress and a different one
// 409 idempotency_key_reused. The control API holds POST /customers for
// 400 ms so that the second request surely meets the first in flight.

const hold = 400 * time.Millisecond

func init() {
	ctl := []string{check.Mutating, check.NeedsControl}
	check.Register(
		check.Check{
			ID:     "idempotency/in-progress",
			Title:  "two identical concurrent POSTs: one 2xx, one 409 idempotency_key_in_progress; the retry replays the 2xx byte for byte",
			Rules:  []string{"IDEM-012", "IDEM-022", "ERR-025", "IDEM-019"},
			Labels: ctl, Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				mark := customersMark(t) // every customer made from here on is newer
				c := t.Client("tenant")
				defer slowCreates(t)()
				email := freshEmail()
				req := client.Request{Method: http.MethodPost, Path: customers, IdempotencyKey: t.NewKey(), JSON: map[string]any{"email": email, "jurisdiction": "GB"}}
				rs := make([]*client.Response, 2)
				t.Go(2, func(i int) { rs[i] = t.Do(c, req) })
				ok, busy := split(t, "IDEM-012", rs, "idempotency_key_in_progress")
				if len(ok) != 1 || len(busy) != 1 {
					t.Fatalf("IDEM-012", "two identical concurrent requests gave %d 2xx and %d 409 in_progress (statuses %s), want one of each", len(ok), len(busy), statuses(rs))
				}
				same(t, ok[0], t.Do(c, req), "retry after the in-progress answer")
				if n := countByReference(t, mark, email); n != 1 {
					t.Fatalf("IDEM-012", "%d customers have the email, want 1", n)
				}
			},
		},
		check.Check{
			ID:     "idempotency/in-progress-different-body",
			Title:  "two concurrent POSTs with one key and different bodies: one 2xx, one 409 idempotency_key_reused that creates nothing",
			Rules:  []string{"IDEM-020", "IDEM-022", "ERR-024"},
			Labels: ctl, Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				mark := customersMark(t) // every customer made from here on is newer
				c := t.Client("tenant")
				defer slowCreates(t)()
				key := t.NewKey()
				emails := []string{freshEmail(), freshEmail()}
				rs := make([]*client.Response, 2)
				t.Go(2, func(i int) {
					rs[i] = t.Do(c, client.Request{Method: http.MethodPost, Path: customers, IdempotencyKey: key, JSON: map[string]any{"email": emails[i], "jurisdiction": "GB"}})
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
			},
		},
		check.Check{
			ID:     "idempotency/concurrent-execute-once",
			Title:  "ten identical concurrent POSTs execute once: one 2xx, nine 409 idempotency_key_in_progress, no 5xx; one customer",
			Rules:  []string{"IDEM-012", "IDEM-008", "ERR-025"},
			Labels: ctl, Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				mark := customersMark(t) // every customer made from here on is newer
				c := t.Client("tenant")
				defer slowCreates(t)()
				email := freshEmail()
				req := client.Request{Method: http.MethodPost, Path: customers, IdempotencyKey: t.NewKey(), JSON: map[string]any{"email": email, "jurisdiction": "GB"}}
				rs := make([]*client.Response, 10)
				t.Go(len(rs), func(i int) { rs[i] = t.Do(c, req) })
				ok, busy := split(t, "IDEM-012", rs, "idempotency_key_in_progress")
				if len(ok) != 1 || len(busy) != len(rs)-1 {
					t.Fatalf("IDEM-012", "ten identical concurrent requests gave %d 2xx and %d 409 in_progress (statuses %s), want 1 and 9", len(ok), len(busy), statuses(rs))
				}
				same(t, ok[0], t.Do(c, req), "retry after the concurrent burst")
				if n := countByReference(t, mark, email); n != 1 {
					t.Fatalf("IDEM-008", "%d customers have the email, want 1", n)
				}
			},
		},
	)
}

// slowCreates holds POST /customers for hold; the caller defers the
// returned func, which removes the latency.
func slowCreates(t *check.T) func() {
	ctl := t.Control()
	if err := ctl.SetLatency(t.Context(), http.MethodPost, customers, hold); err != nil {
		t.NoVerdict(err)
	}
	return func() { _ = ctl.SetLatency(context.Background(), http.MethodPost, customers, 0) }
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
			shape.ProblemJSON(t, "IDEM-022", r, http.StatusConflict, code)
			conflicts = append(conflicts, r)
		default:
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
