package load_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/touchstone-harness/touchstone/fixtures/clock"
	"github.com/touchstone-harness/touchstone/fixtures/sandbox"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/load"
)

// SlowEnv enables the real-time probes (each waits on wall-clock minutes);
// CI does not set it by default: TOUCHSTONE_SLOW=1 go test ./load -run RealTime -v
const SlowEnv = "TOUCHSTONE_SLOW"

// The same probe code on a real-clock sandbox: the route-budget probe
// aligns its burst to the server's clock minute (estimated from Date) and
// waits for the boundary; the window-boundary probe bursts at :55 and :00.
func TestProbesRealTime(t *testing.T) {
	if os.Getenv(SlowEnv) == "" {
		t.Skip("real-time probes wait on wall-clock minutes; set " + SlowEnv + "=1")
	}
	run, err := sandbox.Start(sandbox.Config{Seed: 1, Clock: clock.Real{}}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	tgt, err := check.NewTarget(context.Background(), run.Profile, false)
	if err != nil {
		t.Fatal(err)
	}
	if tgt.VirtualClock() {
		t.Fatal("sandbox clock is virtual")
	}
	load.Attach(tgt, load.DefaultOptions())
	for _, name := range []string{"route-budget", "window-boundary"} {
		start := time.Now()
		r := check.Run(context.Background(), tgt, load.Check(name))
		t.Logf("%s on a real clock: %s in %s (started at :%02d) %v", name, r.Status, time.Since(start).Round(time.Millisecond), start.Second(), r.Logs)
		if r.Status != check.Passed {
			t.Errorf("%s: %s\n%s", name, r.Status, r.Summary())
		}
	}
	// The registered slow form runs the same code.
	if r := check.Run(context.Background(), tgt, check.Get("load/route-budget")); r.Status != check.Passed {
		t.Errorf("load/route-budget: %s\n%s", r.Status, r.Summary())
	}
}
