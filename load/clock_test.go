package load

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/touchstone-harness/touchstone/internal/traffic"
)

// The real clock is the traffic plan's: a server 5 s ahead, polled across
// ticks of Date, is known within 50 ms, and To waits for its seconds.
func TestRealClockReadsThePlan(t *testing.T) {
	const skew = 5 * time.Second
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Date", time.Now().Add(skew).UTC().Format(http.TimeFormat))
	}))
	defer srv.Close()
	plan := traffic.New(nil)
	hc := &http.Client{Transport: &traffic.Transport{Plan: plan, Next: srv.Client().Transport}}
	for end := time.Now().Add(3 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if w, ok := plan.ClockWithin(); ok && w <= 100*time.Millisecond {
			break
		}
		resp, err := hc.Get(srv.URL + "/openapi/v1.json")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	c := RealClock{plan}
	if d := c.Offset() - skew; d > 50*time.Millisecond || d < -50*time.Millisecond {
		t.Fatalf("offset %s, want %s ±50ms", c.Offset(), skew)
	}
	// To waits for a second of the server's minute.
	now, _ := c.Now(context.Background())
	want := now.Truncate(time.Second).Add(1300 * time.Millisecond)
	sec := float64(want.Sub(want.Truncate(time.Minute))) / float64(time.Second)
	if want.Truncate(time.Minute) != now.Truncate(time.Minute) || !want.After(now) {
		t.Skip("too close to a minute boundary to test To")
	}
	got, err := c.To(context.Background(), sec, false)
	if err != nil {
		t.Fatal(err)
	}
	if d := got.Sub(want); d < 0 || d > 50*time.Millisecond {
		t.Fatalf("To(%.1f) returned at %s, want %s", sec, got.Format("15:04:05.000"), want.Format("15:04:05.000"))
	}
}

func TestCountPacerAndBounds(t *testing.T) {
	p := Count{N: 3}
	for hits, stop := range []bool{false, false, false, true} {
		if _, s := p.Pace(0, uint64(hits)); s != stop {
			t.Errorf("Count{3}.Pace(hits=%d) stop=%v", hits, s)
		}
	}
	b := bounded{Count{N: 100}, 2}
	if _, s := b.Pace(0, 2); !s {
		t.Error("bounded pacer did not stop at its bound")
	}
}
