package webhooks

import (
	"net/http"
	"time"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// Routing by the registering key and disabled endpoints (document 2,
// Events: Routing; Endpoints: PATCH and DELETE).

func routingChecks() []check.Check {
	return []check.Check{
		{
			ID:     "webhooks/routing-by-key",
			Title:  "A parent-bound endpoint gets the parent's and its direct children's events; a child-bound one only the child's; a tenant-wide one all",
			Rules:  []string{"EVT-039", "EVT-040", "EVT-045", "WHM-003"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.subject", "keys.child", "keys.tenant", "customers.parent", "customers.child", "webhook_url"},
			Run: func(t *check.T) {
				in := startInbox(t)
				defer in.close()
				p := in.subscribe("WHM-003", "subject", nil, "kyc.approved", "kyb.approved")
				c := in.subscribe("WHM-003", "child", nil, "kyc.approved", "kyb.approved")
				tw := in.subscribe("WHM-003", "tenant", nil, "kyc.approved", "kyb.approved")
				pID, cID, tID := p["subscriptionId"].(string), c["subscriptionId"].(string), tw["subscriptionId"].(string)
				defer disable(t, "subject", pID)
				defer disable(t, "child", cID)
				defer disable(t, "tenant", tID)
				in.emit("kyc.approved", t.Customer("child"))
				in.emit("kyb.approved", t.Customer("parent"))
				recs := in.records()
				count := func(subID, typ string) int {
					n := 0
					for _, r := range forSub(recs, subID) {
						verified(t, r, typ+" delivery")
						if r.EventType == typ {
							n++
						}
					}
					return n
				}
				if n := count(pID, "kyc.approved"); n != 1 {
					t.Errorf("EVT-045", "the parent-bound endpoint received %d of the child's kyc.approved, want 1", n)
				}
				if n := count(pID, "kyb.approved"); n != 1 {
					t.Errorf("EVT-039", "the parent-bound endpoint received %d of the parent's kyb.approved, want 1", n)
				}
				if n := count(cID, "kyc.approved"); n != 1 {
					t.Errorf("EVT-039", "the child-bound endpoint received %d of the child's kyc.approved, want 1", n)
				}
				if n := count(cID, "kyb.approved"); n != 0 {
					t.Errorf("EVT-039", "the child-bound endpoint received %d of the parent's kyb.approved, want 0", n)
				}
				// Tenant-wide events are every event of the tenant, an end
				// customer's included (EVT-041 reads EVT-040 so): one
				// assertion, under the rule it reads.
				if n := count(tID, "kyc.approved") + count(tID, "kyb.approved"); n != 2 {
					t.Errorf("EVT-040", "the tenant-wide endpoint received %d of the two events (a parent's, an end customer's), want 2 (tenant-wide events are every event of the tenant: EVT-041)", n)
				}
			},
		},
		{
			ID:     "webhooks/disabled-gets-no-new-events",
			Title:  "A disabled endpoint gets no new events, and events while disabled are not delivered after re-enabling",
			Rules:  []string{"WHM-044", "WHM-045", "WHM-003", "WHM-046"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.subject", "customers.parent", "webhook_url"},
			Run: func(t *check.T) {
				in := startInbox(t)
				defer in.close()
				s := in.subscribe("WHM-003", "subject", nil, "customer.created")
				subID := s["subscriptionId"].(string)
				defer disable(t, "subject", subID)
				disable(t, "subject", subID)
				in.emit("customer.created", t.Customer("parent"))
				if n := len(forSub(in.records(), subID)); n != 0 {
					t.Fatalf("WHM-044", "a disabled endpoint received %d deliveries of a new event", n)
				}
				r := patch(t, "subject", subID, map[string]any{"url": s["url"], "eventTypes": []string{"customer.created"}, "enabled": true})
				shape.StatusAnswer(t, r, shape.Want{Rule: "WHM-046", Status: http.StatusOK, What: "re-enable"})
				in.advance(time.Minute)
				if n := len(forSub(in.records(), subID)); n != 0 {
					t.Fatalf("WHM-045", "after re-enabling, the endpoint received %d deliveries of an event emitted while disabled", n)
				}
			},
		},
	}
}
