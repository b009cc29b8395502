package suites_test

import (
	"context"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	_ "github.com/touchstone-harness/touchstone/cmd/touchstone/allchecks" // registers every check
	"github.com/touchstone-harness/touchstone/cmd/touchstone/launch"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/suites"
)

// TestSuites runs every check as a Ginkgo spec against the target named by
// TOUCHSTONE_PROFILE, or against a fresh embedded sandbox. Labels and focus
// work as usual: go test ./suites -ginkgo.label-filter=idempotency, or
// go tool ginkgo --label-filter='auth && !slow' ./suites.
func TestSuites(t *testing.T) {
	RegisterFailHandler(Fail)
	var launched *launch.Launched
	BeforeSuite(func() {
		var err error
		launched, err = launch.FromEnv(context.Background())
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(launched.Close)
	})
	suites.Define(func() *check.Target { return launched.Target }, nil)
	sc, rc := GinkgoConfiguration()
	if sc.LabelFilter == "" {
		sc.LabelFilter = suites.DefaultLabelFilter
	}
	RunSpecs(t, "Touchstone conformance", sc, rc)
}
