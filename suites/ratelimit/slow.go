package ratelimit

import (
	"fmt"
	"github.com/touchstone-harness/touchstone/suites/api"
	"net/http"
	"time"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
)

// Real-time forms (labelled slow): for a target whose clock runs by
// itself. They align to the target's clock minute read from its Date
// headers (standards.md section 3, R1-R3) and each waits up to two minutes.

func init() {
	slow := []string{check.Slow}
	check.Register(
		check.Check{
			ID:     "ratelimit/route-budget-real-time",
			Title:  "real clock: 600 GET /me from :02 of a fresh minute pass; the 601st is 429 with Retry-After = seconds left (±2)",
			Rules:  []string{"RATE-004", "RATE-003", "RATE-001", "RATE-017", "RATE-016", "RATE-002"},
			Labels: slow, Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				needRealClock(t)
				c := t.Client("tenant")
				offset := serverOffset(t)
				startServerMinute(t, offset, 2*time.Second)
				rs := exhaust(t, c, get(api.P+"/me"), "RATE-004")
				r := t.Do(c, get(api.P+"/me"))
				server := r.Exchange.Time.Add(r.Exchange.Duration / 2).Add(offset)
				if server.Second() > 57 {
					t.NoVerdict(fmt.Errorf("the burst took until server :%02d; the window may have turned", server.Second()))
				}
				ra := limited(t, "RATE-004", r, "601st GET /me")
				if ra < 1 || ra > 60 {
					t.Fatalf("RATE-016", "Retry-After %d is outside 1-60", ra)
				}
				want := secondsLeft(server)
				if ra < want-2 || ra > want+2 {
					t.Errorf("RATE-016", "Retry-After %d at server time %s, want about %d (seconds left in the minute, ±2)", ra, server.Format("15:04:05.000"), want)
				}
				noRateLimitHeaders(t, append(rs, r))
			},
		},
		check.Check{
			ID:     "ratelimit/window-reopens-real-time",
			Title:  "real clock: after a 429 with Retry-After RA, a request at RA-2 s is still 429 and one at RA+0.5 s passes",
			Rules:  []string{"RATE-008", "RATE-016", "RATE-004"},
			Labels: slow, Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				needRealClock(t)
				c := t.Client("tenant")
				offset := serverOffset(t)
				startServerMinute(t, offset, 2*time.Second)
				exhaust(t, c, get(api.P+"/me"), "RATE-004")
				r := t.Do(c, get(api.P+"/me"))
				ra := limited(t, "RATE-004", r, "601st GET /me")
				if ra < 3 {
					t.NoVerdict(fmt.Errorf("Retry-After %d is too short to probe before the window ends", ra))
				}
				received := r.Exchange.Time.Add(r.Exchange.Duration)
				sleepUntil(t, received.Add(time.Duration(ra)*time.Second-2*time.Second))
				limited(t, "RATE-016", t.Do(c, get(api.P+"/me")), "GET /me two seconds before Retry-After ends")
				sleepUntil(t, received.Add(time.Duration(ra)*time.Second+500*time.Millisecond))
				if r := t.Do(c, get(api.P+"/me")); r.Status != http.StatusOK {
					t.Fatalf("RATE-008", "GET /me half a second after Retry-After ended is %d, want 200", r.Status)
				}
			},
		},
	)
}

func needRealClock(t *check.T) {
	if t.Target().VirtualClock() {
		t.Skipf("target clock is virtual; the fast form of this check covers it")
	}
}

func sleepUntil(t *check.T, at time.Time) {
	select {
	case <-time.After(time.Until(at)):
	case <-t.Context().Done():
		t.NoVerdict(t.Context().Err())
	}
}

// serverOffset estimates target time minus local time from the Date
// header, sharpened by polling around a tick of its seconds (±RTT/2 plus
// the polling step). It polls the served OpenAPI document: unauthenticated,
// so it spends no rate or failed-auth budget.
func serverOffset(t *check.T) time.Duration {
	anon := t.Anonymous()
	var prevDate time.Time
	var prevMid time.Time
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		sent := time.Now()
		r := t.Do(anon, client.Request{Method: http.MethodGet, Path: "/openapi/v1.json"})
		recv := time.Now()
		d, err := http.ParseTime(r.Header.Get("Date"))
		if err != nil {
			t.NoVerdict(fmt.Errorf("the target sends no usable Date header: %q", r.Header.Get("Date")))
		}
		mid := sent.Add(recv.Sub(sent) / 2)
		if !prevDate.IsZero() && d.After(prevDate) {
			tick := prevMid.Add(mid.Sub(prevMid) / 2)
			return d.Sub(tick)
		}
		prevDate, prevMid = d, mid
		sleepUntil(t, time.Now().Add(50*time.Millisecond))
	}
	t.NoVerdict(fmt.Errorf("the Date header did not tick within 3 s"))
	return 0
}

// startServerMinute waits until the next server clock minute plus at.
func startServerMinute(t *check.T, offset, at time.Duration) {
	server := time.Now().Add(offset)
	next := server.Truncate(time.Minute).Add(time.Minute + at)
	t.Logf("waiting %s for server %s", next.Sub(server).Round(time.Millisecond), next.Format("15:04:05"))
	sleepUntil(t, next.Add(-offset))
}
