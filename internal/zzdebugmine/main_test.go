package zzdebugmine

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/launch"
	_ "github.com/touchstone-harness/touchstone/suites"
)

func TestDebug(t *testing.T) {
	l, err := launch.Start(context.Background(), launch.Options{Seed: 1, Fault: os.Getenv("FAULT")})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	prefixes := strings.Split(os.Getenv("AREAS"), ",")
	for _, c := range check.All() {
		ok := false
		for _, p := range prefixes {
			if strings.HasPrefix(c.ID, p) {
				ok = true
			}
		}
		if !ok || (c.HasLabel(check.Slow) && os.Getenv("SLOW") == "") {
			continue
		}
		res := check.Run(context.Background(), l.Target, c)
		fmt.Printf("%-60s %-8s ex=%d %v\n", c.ID, res.Status, len(res.Exchanges), res.FailedRules())
		if res.Status != check.Passed {
			fmt.Println("   ", strings.ReplaceAll(l.Target.Redactor.String(res.Summary()), "\n", "\n    "))
		}
		if os.Getenv("V") != "" {
			for _, ex := range res.Exchanges {
				if len(res.Exchanges) < 30 {
					fmt.Println(l.Target.Redactor.String(ex.Transcript()))
				}
			}
		}
	}
}
