package reports

import (
	"os"
	"path/filepath"

	"github.com/onsi/ginkgo/v2/reporters"
	"github.com/onsi/ginkgo/v2/types"

	"github.com/touchstone-harness/touchstone/internal/redact"
)

// WriteJUnit writes junit.xml into dir from a Ginkgo report, using
// Ginkgo's own JUnit generator, then redacts the file.
func WriteJUnit(dir string, report types.Report, red *redact.Redactor) error {
	path := filepath.Join(dir, "junit.xml")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := reporters.GenerateJUnitReportWithConfig(report, path, reporters.JunitReportConfig{
		OmitTimelinesForSpecState: types.SpecStatePassed | types.SpecStateSkipped,
	}); err != nil {
		return err
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return writeRedacted(path, raw, red)
}
