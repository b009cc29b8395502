package main

import (
	"context"
	"sort"
	"strings"
	"testing"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/launch"
)

// TestAloneDeclarations runs every check against the embedded sandbox and
// fails for each that did what every other check would see (moved the
// virtual clock, changed a global control setting, changed a shared
// fixture through the control API) without the label check.Alone: run
// beside other checks, it would make them fail at random.
func TestAloneDeclarations(t *testing.T) {
	ctx := context.Background()
	l, err := launch.Start(ctx, launch.Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var missing []string
	for _, c := range check.All() {
		if c.HasLabel("slow") {
			continue
		}
		res := check.Run(ctx, l.Target, c)
		if len(res.Shared) > 0 && !c.HasLabel(check.Alone) {
			missing = append(missing, c.ID+": "+strings.Join(res.Shared[:min(3, len(res.Shared))], "; "))
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("%d checks change what other checks see but are not labelled %q:\n%s", len(missing), check.Alone, strings.Join(missing, "\n"))
	}
}
