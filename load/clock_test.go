package load

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// The real clock's offset comes from Date ticking over: a server 5 s ahead
// (Date has one-second resolution) is estimated within the poll interval
// plus a loopback round trip.
func TestEstimateRealClock(t *testing.T) {
	const skew = 5 * time.Second
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Date", time.Now().Add(skew).UTC().Format(http.TimeFormat))
	}))
	defer srv.Close()
	c, err := EstimateRealClock(context.Background(), srv.Client(), srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := c.Offset() - skew; d > 150*time.Millisecond || d < -150*time.Millisecond {
		t.Fatalf("offset %s, want %s ±150ms", c.Offset(), skew)
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
