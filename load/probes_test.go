package load_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/launch"
	"github.com/touchstone-harness/touchstone/load"
)

func startSandbox(t testing.TB, fault string) *check.Target {
	t.Helper()
	l, err := launch.Start(context.Background(), launch.Options{Seed: 1, Fault: fault})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.Close)
	return l.Target
}

// Every probe passes against the faithful virtual-clock sandbox, and
// writes its vegeta results and summary.
func TestProbesPassOnVirtualSandbox(t *testing.T) {
	tgt := startSandbox(t, "")
	dir := t.TempDir()
	o := load.DefaultOptions()
	o.OutDir = dir
	load.Configure(o)
	for _, c := range check.All() {
		if c.Area() != "load" || c.HasLabel(check.Slow) {
			continue
		}
		start := time.Now()
		r := check.Run(context.Background(), tgt, c)
		t.Logf("%s: %s in %s %v", c.ID, r.Status, time.Since(start).Round(time.Millisecond), r.Logs)
		if r.Status != check.Passed {
			t.Errorf("%s: %s\n%s", c.ID, r.Status, r.Summary())
		}
		name := c.ID[len("load/"):]
		if _, err := os.Stat(dir + "/" + name + ".bin"); err != nil {
			t.Errorf("%s: %v", c.ID, err)
		}
	}
}
