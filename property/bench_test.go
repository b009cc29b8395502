package property_test

import (
	"context"
	"testing"
	"time"

	"github.com/touchstone-harness/touchstone/cmd/touchstone/launch"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/property"
)

// stateMachines are the properties written with rapid's state-machine API.
var stateMachines = []string{
	"property/idempotency-store", "property/customer-lifecycle", "property/rate-windows", "property/payout-batches",
	"property/beneficiary-approval", "property/webhook-subscriptions", "property/internal-transfers",
}

// BenchmarkIdempotencyStoreSteps measures state-machine steps per second
// (HTTP exchanges with the embedded sandbox) of the idempotency model:
// go test ./property -run '^$' -bench . -benchtime 3x
func BenchmarkIdempotencyStoreSteps(b *testing.B) { benchSteps(b, "property/idempotency-store") }

// BenchmarkStateMachineSteps measures the steps per second of every
// state-machine property against the embedded sandbox, one sub-benchmark
// each: go test ./property -run '^$' -bench StateMachineSteps -benchtime 3x
func BenchmarkStateMachineSteps(b *testing.B) {
	for _, id := range stateMachines {
		b.Run(id[len("property/"):], func(b *testing.B) { benchSteps(b, id) })
	}
}

func benchSteps(b *testing.B, id string) {
	l, err := launch.FromEnv(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	c := check.Get(id)
	l.Target.Options.PropertyChecks = 50
	var steps int
	var spent time.Duration
	for b.Loop() {
		start, before := time.Now(), property.StepsTaken()
		res := check.Run(context.Background(), l.Target, c)
		spent += time.Since(start)
		if res.Status != check.Passed {
			b.Fatalf("%s: %s %s", res.Status, res.Error, res.Summary())
		}
		steps += int(property.StepsTaken() - before)
	}
	b.ReportMetric(float64(steps)/spent.Seconds(), "steps/s")
}
