package property_test

import (
	"os"
	"testing"

	"github.com/touchstone-harness/touchstone/property"
)

// TestMain: these tests want verdicts (a property catches its faults), not
// shrunk cases; shrinking and its report are tested in cmd/touchstone
// (TestPropertyFailureIsShrunkAndReadable).
func TestMain(m *testing.M) {
	property.NoShrinking()
	os.Exit(m.Run())
}
