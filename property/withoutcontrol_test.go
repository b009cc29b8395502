package property_test

import (
	"context"
	"net"
	"strings"
	"testing"

	_ "github.com/touchstone-harness/touchstone/cmd/touchstone/allchecks" // registers every check
	"github.com/touchstone-harness/touchstone/fixtures/sandbox"
	"github.com/touchstone-harness/touchstone/internal/check"
)

// realTarget starts a sandbox on the real clock whose webhook deliveries go
// to a free loopback address, and returns it as a target without the
// control API (the profile has no control_url) that receives there, as a
// user's sandbox whose webhook_url is forwarded to run --receiver-addr.
func realTarget(t *testing.T, fault string) *check.Target {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	run, err := sandbox.Start(sandbox.Config{Seed: 1, Fault: fault, WebhookReceiver: "http://" + addr}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = run.Close() })
	p := *run.Profile
	p.ControlURL = ""
	tgt, err := check.NewTarget(context.Background(), &p, false)
	if err != nil {
		t.Fatal(err)
	}
	tgt.ReceiverAddr = addr
	return tgt
}

// TestPropertiesWithoutControl: the properties that need the control API
// for only part of their steps run on a target without it, pass against the
// faithful sandbox on the real clock, judge there only the rules the API
// alone can show (the others are left out of the result), and still fail
// against a fault each.
func TestPropertiesWithoutControl(t *testing.T) {
	cases := []struct{ id, fault, rule, unjudged string }{
		{"property/customer-lifecycle", "customers-initiate-keeps-draft", "LIFE-010", "LIFE-011"},
		{"property/beneficiary-approval", "withdrawal-pays-unapproved-beneficiary", "BEN-009", "BEN-014"},
		{"property/internal-transfers", "internal-transfer-client-reference-reuse-accepted", "ITR-021", "ITR-030"},
		{"property/payout-batches", "pb-total-amount-without-skipped", "PB-004", "PB-017"},
		{"property/webhook-signatures", "webhook-signature-without-timestamp", "EVT-015", ""},
	}
	faithful := realTarget(t, "")
	for _, c := range cases {
		t.Run(c.id, func(t *testing.T) {
			chk := check.Get(c.id)
			if chk.HasLabel(check.NeedsControl) {
				t.Fatalf("%s is labelled %s", c.id, check.NeedsControl)
			}
			res := check.Run(context.Background(), faithful, chk)
			if res.Status != check.Passed {
				t.Fatalf("faithful sandbox, real clock, no control API: %s %s %s\n%s", res.Status, res.SkipReason, res.Error, res.Summary())
			}
			for _, r := range res.Rules {
				if r == c.unjudged {
					t.Errorf("the result names %s, which the check judges only with the control API", r)
				}
			}
			res = check.Run(context.Background(), realTarget(t, c.fault), chk)
			if res.Status != check.Failed || !hasRule(res.FailedRules(), c.rule) {
				t.Fatalf("fault %s: %s (failed %v), want a failure under %s\n%s", c.fault, res.Status, res.FailedRules(), c.rule, res.Summary())
			}
		})
	}
	// Without a receiver a real delivery cannot reach the harness.
	noReceiver := realTarget(t, "")
	noReceiver.ReceiverAddr = ""
	if res := check.Run(context.Background(), noReceiver, check.Get("property/webhook-signatures")); res.Status != check.Skipped {
		t.Errorf("webhook-signatures without a receiver: %s, want skipped", res.Status)
	}
}

func hasRule(rules []string, r string) bool {
	for _, x := range rules {
		if x == r {
			return true
		}
	}
	return false
}

// TestChecksWithoutControl: the idempotency and pagination checks that
// used the control API for convenience run on a target without it and
// still fail against a fault; those that truly need it skip saying what
// only the control API does.
func TestChecksWithoutControl(t *testing.T) {
	cases := []struct{ id, fault, rule string }{
		{"idempotency/in-progress", "idempotency-replay-not-byte-identical", "IDEM-019"},
		{"idempotency/concurrent-execute-once", "idempotency-replay-not-byte-identical", "IDEM-019"},
		{"idempotency/in-progress-different-body", "idempotency-body-not-compared", "IDEM-020"},
		{"pagination/customers-id-tiebreak", "page-tiebreak-ascending", "PAGE-013"},
	}
	faithful := realTarget(t, "")
	for _, c := range cases {
		t.Run(c.id, func(t *testing.T) {
			chk := check.Get(c.id)
			// In-flight overlap and a shared second are the target's
			// timing: a check may skip saying it did not observe one, never fail.
			if res := check.Run(context.Background(), faithful, chk); res.Status != check.Passed && res.Status != check.Skipped {
				t.Fatalf("faithful sandbox, real clock, no control API: %s %s\n%s", res.Status, res.Error, res.Summary())
			}
			res := check.Run(context.Background(), realTarget(t, c.fault), chk)
			if res.Status != check.Failed || !hasRule(res.FailedRules(), c.rule) {
				t.Fatalf("fault %s: %s (failed %v), want a failure under %s\n%s", c.fault, res.Status, res.FailedRules(), c.rule, res.Summary())
			}
		})
	}
	for id, why := range map[string]string{
		"idempotency/expires-after-24h":      "a clock moved by a day",
		"idempotency/500-is-not-replayed":    "no API request can cause",
		"property/webhook-delivery-schedule": "a clock the harness can move",
	} {
		res := check.Run(context.Background(), faithful, check.Get(id))
		if res.Status != check.Skipped || !strings.Contains(res.SkipReason, why) {
			t.Errorf("%s: %s %q, want skipped saying %q", id, res.Status, res.SkipReason, why)
		}
	}
}
