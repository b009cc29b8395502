package webhooks

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// Onboarding events produced by real outcomes and their payload fields
// (document 2, Events: Event types and emitting outcomes; Payload fields).

func eventsOnboardingChecks() []check.Check {
	return []check.Check{
		{
			ID:     "webhooks/event-end-customer-created",
			Title:  "Creating an end customer emits customer.created to the parent's endpoint, with email the empty string while it has none",
			Rules:  []string{"EVT-045", "EVT-066", "WHM-003"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.subject", "customers.parent", "webhook_url"},
			Run: func(t *check.T) {
				in, subID, stop := listen(t, "subject", "customer.created")
				defer stop()
				r := t.Do(t.Client("subject"), client.Request{Method: http.MethodPost, Path: api.P + "/customers/" + t.Customer("parent") + "/end-customers",
					IdempotencyKey: t.NewKey(), JSON: map[string]any{"subject_type": "Personal", "external_reference": "TS-" + t.NewKey(),
						"display_name": "Touchstone Child", "country_code": "GB"}})
				child := shape.String(t, "SUB-003", fresh.Success(t, "SUB-003", r), "end_customer.id")
				in.await(subID, 1)
				d := one(t, "EVT-045", in.events(subID, "customer.created", child), "customer.created of a new end customer at the parent's endpoint")
				email, present := d["email"]
				if !present || email != "" {
					t.Errorf("EVT-066", "data.email is %v (present %v) for an end customer without an email, want the empty string", email, present)
				}
			},
		},
		{
			ID:     "webhooks/event-kyb-business-fields",
			Title:  "kyb.* data carries business_id, tenant_id and business_name equal to the business's external reference",
			Rules:  []string{"EVT-069", "EVT-071", "EVT-072", "WHM-003"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.tenant", "customers.active_business", "webhook_url"},
			Run: func(t *check.T) {
				in, subID, stop := listen(t, "tenant", "kyb.approved")
				defer stop()
				biz := t.Customer("active_business")
				ref := fresh.Read(t, "EVT-071", biz)["external_reference"]
				in.emit("kyb.approved", biz)
				d := one(t, "EVT-069", in.events(subID, "kyb.approved", biz), "kyb.approved")
				if d["business_id"] != biz {
					t.Errorf("EVT-069", "kyb data.business_id %v, want %s", d["business_id"], biz)
				}
				if d["business_name"] != ref {
					t.Errorf("EVT-071", "kyb data.business_name %v, want the external reference %v", d["business_name"], ref)
				}
				if d["kyb_status"] != "approved" {
					t.Errorf("EVT-072", "kyb data.kyb_status %v, want approved", d["kyb_status"])
				}
			},
		},
		{
			ID:     "webhooks/event-customer-created",
			Title:  "Creating a customer through the API emits customer.created with customer_id, tenant_id, email, lowercase user_type and status",
			Rules:  []string{"EVT-047", "EVT-064", "EVT-065", "EVT-067", "EVT-068", "WHM-003"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant", "webhook_url"},
			Run: func(t *check.T) {
				in, subID, stop := listen(t, "tenant", "customer.created")
				defer stop()
				id, email := fresh.Customer(t)
				in.await(subID, 1)
				d := one(t, "EVT-047", in.events(subID, "customer.created", id), "customer.created for the new customer")
				if d["customer_id"] != id {
					t.Errorf("EVT-065", "data.customer_id %v, want %s", d["customer_id"], id)
				}
				if tid, _ := d["tenant_id"].(string); !uuidRE.MatchString(tid) {
					t.Errorf("EVT-064", "data.tenant_id %v is not a uuid", d["tenant_id"])
				}
				if d["email"] != email {
					t.Errorf("EVT-065", "data.email %v, want %s", d["email"], email)
				}
				if ut, present := d["user_type"]; !present {
					t.Errorf("EVT-065", "data has no user_type")
				} else if ut != "personal" && ut != "business" {
					t.Errorf("EVT-067", "data.user_type %v, want personal or business", ut)
				}
				if st, ok := d["status"].(string); !ok || st == "" || st != strings.ToLower(st) {
					t.Errorf("EVT-068", "data.status %v, want a lowercased onboarding state", d["status"])
				}
			},
		},
		{
			ID:         "webhooks/event-verification-rejected-business",
			Title:      "A Draft business that starts kyb onboarding and is rejected by the provider emits kyb.rejected (data.business_id the business, kyb_status rejected), never kyc.rejected",
			Rules:      []string{"EVT-051", "EVT-069", "EVT-072", "WHM-003"},
			Labels:     []string{check.Mutating, check.NeedsControl},
			ControlWhy: "a fresh Draft business: a customer record's type is set in the dashboard or by an account manager, and POST /customers creates a person",
			Needs:      []string{"keys.tenant", "webhook_url"},
			Run: func(t *check.T) {
				in, subID, stop := listen(t, "tenant", "kyc.rejected", "kyb.rejected")
				defer stop()
				id, _ := fresh.Customer(t)
				if err := t.Control().Call(t.Context(), http.MethodPost, "/onboarding/user-type/"+id, map[string]any{"user_type": "Business"}, nil); err != nil {
					t.NoVerdict(err)
				}
				if ut := fresh.Read(t, "EVT-051", id)["user_type"]; ut != "Business" {
					t.NoVerdict(fmt.Errorf("the control API recorded customer %s as a Business, yet it reads user_type %v", id, ut))
				}
				fresh.Setup(t, "EVT-051", fresh.Initiate(t, id, "kyb"), "start kyb onboarding of the business")
				fresh.Decide(t, id, "rejected")
				in.await(subID, 1)
				if n := len(in.events(subID, "kyc.rejected", id)); n != 0 {
					t.Errorf("EVT-051", "a rejected business delivered kyc.rejected (%d), want kyb.rejected only", n)
				}
				d := one(t, "EVT-051", in.events(subID, "kyb.rejected", id), "kyb.rejected of the rejected business")
				if d["business_id"] != id {
					t.Errorf("EVT-069", "kyb.rejected data.business_id %v, want %s", d["business_id"], id)
				}
				if d["kyb_status"] != "rejected" {
					t.Errorf("EVT-072", "kyb.rejected data.kyb_status %v, want rejected", d["kyb_status"])
				}
			},
		},
		{
			ID:     "webhooks/event-verification-outcomes",
			Title:  "Verification rejected, pending review and approved emit kyc.rejected, kyc.pending_review and kyc.approved with their documented data",
			Rules:  []string{"EVT-049", "EVT-050", "EVT-051", "EVT-069", "EVT-070", "EVT-072", "EVT-073", "EVT-074", "EVT-075", "WHM-003"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.tenant", "webhook_url"},
			Run: func(t *check.T) {
				kinds := []string{"kyc.approved", "kyc.pending_review", "kyc.rejected", "kyb.approved", "kyb.pending_review", "kyb.rejected"}
				in, subID, stop := listen(t, "tenant", kinds...)
				defer stop()
				for _, decision := range []string{"rejected", "pending_review", "approved"} {
					id, kind := fresh.Started(t, "ONB-001")
					typ := kind + "." + decision
					if err := t.Control().VerificationDecision(t.Context(), id, decision); err != nil {
						t.NoVerdict(err)
					}
					if decision == "approved" {
						if n := len(in.events(subID, typ, id)); n != 0 {
							t.Errorf("EVT-075", "%s delivered before the decision took effect (%d)", typ, n)
						}
						fresh.Read(t, "EVT-049", id) // the refreshing read applies the approval
					}
					rule := map[string]string{"rejected": "EVT-051", "pending_review": "EVT-050", "approved": "EVT-049"}[decision]
					d := one(t, rule, in.events(subID, typ, id), typ)
					idKey, statusKey := "customer_id", "kyc_status"
					if kind == "kyb" {
						idKey, statusKey = "business_id", "kyb_status"
					}
					if d[idKey] != id {
						t.Errorf("EVT-069", "%s data.%s %v, want %s", typ, idKey, d[idKey], id)
					}
					if _, ok := d["tenant_id"].(string); !ok {
						t.Errorf("EVT-069", "%s data.tenant_id %v, want a string", typ, d["tenant_id"])
					}
					if kind == "kyc" {
						if v, ok := d["customer_email"]; !ok || v != nil {
							t.Errorf("EVT-070", "kyc data.customer_email %v (present %v), want null", v, ok)
						}
					}
					if d[statusKey] != decision {
						t.Errorf("EVT-072", "%s data.%s %v, want %s", typ, statusKey, d[statusKey], decision)
					}
					reasons, _ := d["rejection_reasons"].([]any)
					if decision == "rejected" {
						if len(reasons) != 1 {
							t.Errorf("EVT-074", "%s rejection_reasons %v, want exactly one element", typ, d["rejection_reasons"])
						} else if r, _ := reasons[0].(string); r == "" {
							t.Errorf("EVT-074", "%s rejection_reasons[0] %v, want a reason", typ, reasons[0])
						}
					} else if d["rejection_reasons"] == nil || len(reasons) != 0 {
						t.Errorf("EVT-073", "%s rejection_reasons %v, want an empty array", typ, d["rejection_reasons"])
					}
				}
			},
		},
	}
}
