package property_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/touchstone-harness/touchstone/cmd/touchstone/launch"
	"github.com/touchstone-harness/touchstone/internal/check"
	_ "github.com/touchstone-harness/touchstone/property"
)

// TestProperties runs every property check against the target named by
// TOUCHSTONE_PROFILE, or a fresh embedded sandbox. Deep run:
// TOUCHSTONE_RAPID_CHECKS=1000 go test ./property -run TestProperties.
func TestProperties(t *testing.T) {
	l, err := launch.FromEnv(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	// A deep run: TOUCHSTONE_RAPID_CHECKS=N (the test is a composition
	// root: it reads the environment and hands the property a value).
	if v, err := strconv.Atoi(os.Getenv("TOUCHSTONE_RAPID_CHECKS")); err == nil && v > 0 {
		l.Target.Options.PropertyChecks = v
	}
	if v, err := strconv.ParseUint(os.Getenv("TOUCHSTONE_RAPID_SEED"), 10, 64); err == nil {
		l.Target.Options.PropertySeed = v
	}
	n := 0
	for _, c := range check.All() {
		if !strings.HasPrefix(c.ID, "property/") {
			continue
		}
		n++
		t.Run(c.ID, func(t *testing.T) {
			res := check.Run(context.Background(), l.Target, c)
			switch res.Status {
			case check.Passed:
			case check.Skipped:
				t.Skip(res.SkipReason)
			default:
				t.Fatalf("%s: %s\n%s", res.Status, res.Error, res.Summary())
			}
		})
	}
	if n == 0 {
		t.Fatal("no property checks registered")
	}
}
