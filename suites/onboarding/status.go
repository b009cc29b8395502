package onboarding

import (
	"net/http"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// fixtures are the verified person and business, in a fixed order.
var fixtures = []struct{ name, kind string }{{"active_personal", "kyc"}, {"active_business", "kyb"}}

// vocabulary is the verification vocabulary (document 1, Onboarding status
// response).
var vocabulary = map[string]bool{"pending": true, "in_progress": true, "approved": true, "rejected": true, "blocked": true, "closed": true}

func other(kind string) string {
	if kind == "kyc" {
		return "kyb"
	}
	return "kyc"
}

func getStatus(t *check.T, c *client.Client, id, route string) *client.Response {
	return t.Do(c, client.Request{Method: http.MethodGet, Path: api.P + "/customers/" + id + "/onboarding/" + route})
}

// combined reads GET onboarding/status and asserts its documented shape
// for a customer of kind; it returns data.
func combined(t *check.T, c *client.Client, id, kind string) map[string]any {
	d := shape.EnvelopeAnswer(t, getStatus(t, c, id, "status"), shape.Want{Rule: "ONB-030", Status: http.StatusOK})
	switch d["current_step"] {
	case "kyc", "kyb", "completed":
	default:
		t.Fatalf("ONB-001", "current_step is %v, want kyc, kyb or completed", d["current_step"])
	}
	steps, ok := d["steps"].(map[string]any)
	if !ok {
		t.Fatalf("ONB-003", "steps is %v, want an object with keys kyc and kyb", d["steps"])
	}
	for _, k := range []string{"kyc", "kyb"} {
		v, _ := steps[k].(string)
		if !vocabulary[v] && v != "not_applicable" {
			t.Fatalf("ONB-003", "steps.%s is %v, want the verification vocabulary or not_applicable", k, steps[k])
		}
	}
	if steps[other(kind)] != "not_applicable" {
		t.Fatalf("ONB-004", "steps.%s is %v for a %s customer, want not_applicable", other(kind), steps[other(kind)], kind)
	}
	if d[other(kind)+"_status"] != nil {
		t.Fatalf("ONB-006", "%s_status is %v for a %s customer, want null (exactly one of kyc_status/kyb_status is non-null)", other(kind), d[other(kind)+"_status"], kind)
	}
	if _, ok := d[other(kind)+"_status"]; !ok {
		t.Fatalf("ONB-006", "%s_status is missing, want null", other(kind))
	}
	v, _ := d[kind+"_status"].(string)
	if v == "" {
		t.Fatalf("ONB-006", "%s_status is %v for a %s customer, want non-null", kind, d[kind+"_status"], kind)
	}
	if !vocabulary[v] && !shape.IsLifecycle(v) {
		t.Fatalf("ONB-005", "%s_status is %q: want the verification vocabulary (pending, in_progress, approved, rejected, blocked, closed) or an unmapped lifecycle value passed through raw", kind, v)
	}
	if steps[kind] != v {
		t.Fatalf("ONB-004", "steps.%s is %v but %s_status is %s; want the mapped status in both", kind, steps[kind], kind, v)
	}
	if _, ok := d["can_proceed_to_kyb"].(bool); !ok {
		t.Fatalf("ONB-007", "can_proceed_to_kyb is %v, want a boolean", d["can_proceed_to_kyb"])
	}
	if cs, _ := d["customer_status"].(string); !shape.IsLifecycle(cs) {
		t.Fatalf("ONB-008", "customer_status is %v, want a lifecycle status", d["customer_status"])
	}
	return d
}

// single reads GET onboarding/{route}/status (failures under rule) and
// asserts customer_status is a lifecycle status; it returns data.
func single(t *check.T, rule string, c *client.Client, id, route string) map[string]any {
	d := shape.EnvelopeAnswer(t, getStatus(t, c, id, route+"/status"), shape.Want{Rule: rule, Status: http.StatusOK})
	if _, ok := d[route+"_status"]; !ok {
		t.Fatalf(rule, "onboarding/%s/status has no %s_status", route, route)
	}
	if cs, _ := d["customer_status"].(string); !shape.IsLifecycle(cs) {
		t.Fatalf(rule, "onboarding/%s/status customer_status is %v, want a lifecycle status", route, d["customer_status"])
	}
	return d
}

// statusChecks are the checks of status.go.
func statusChecks() []check.Check {
	return []check.Check{
		{
			ID:    "onboarding/status-shape",
			Title: "GET onboarding/status reports current_step, steps, one non-null kind status by user_type, can_proceed_to_kyb and customer_status",
			Rules: []string{"ONB-030", "ONB-001", "ONB-003", "ONB-004", "ONB-005", "ONB-006", "ONB-008"},
			Needs: []string{"keys.tenant", "customers.active_personal", "customers.active_business"},
			Run: func(t *check.T) {
				for _, f := range fixtures {
					name, kind := f.name, f.kind
					d := combined(t, t.Client("tenant"), t.Customer(name), kind)
					if d[kind+"_status"] != "approved" || d["customer_status"] != "Active" {
						t.Fatalf("ONB-005", "customers.%s: %s_status %v, customer_status %v; want approved, Active", name, kind, d[kind+"_status"], d["customer_status"])
					}
				}
			},
		},
		{
			ID:     "onboarding/can-proceed-to-kyb",
			Title:  "can_proceed_to_kyb is true only for an Active person and always false for a business",
			Rules:  []string{"ONB-007", "ONB-001", "ONB-005"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant", "customers.active_personal", "customers.active_business"},
			Run: func(t *check.T) {
				tenant := t.Client("tenant")
				if d := combined(t, tenant, t.Customer("active_personal"), "kyc"); d["can_proceed_to_kyb"] != true {
					t.Fatalf("ONB-007", "Active person: can_proceed_to_kyb %v, want true", d["can_proceed_to_kyb"])
				}
				if d := combined(t, tenant, t.Customer("active_business"), "kyb"); d["can_proceed_to_kyb"] != false {
					t.Fatalf("ONB-007", "Active business: can_proceed_to_kyb %v, want false", d["can_proceed_to_kyb"])
				}
				id, _ := fresh.Customer(t)
				kind := fresh.Kind(t, "ONB-007", fresh.Read(t, "ONB-007", id))
				if d := combined(t, tenant, id, kind); d["can_proceed_to_kyb"] != false {
					t.Fatalf("ONB-007", "Draft %s customer: can_proceed_to_kyb %v, want false", kind, d["can_proceed_to_kyb"])
				}
			},
		},
		{
			ID:    "onboarding/single-kind-status",
			Title: "The single-kind status routes return the combined mapped value plus customer_status; the other kind is 200 with a null status",
			Rules: []string{"ONB-009", "ONB-010", "ONB-011", "ONB-001", "ONB-005"},
			Needs: []string{"keys.tenant", "customers.active_personal", "customers.active_business"},
			Run: func(t *check.T) {
				tenant := t.Client("tenant")
				for _, f := range fixtures {
					name, kind := f.name, f.kind
					id := t.Customer(name)
					all := combined(t, tenant, id, kind)
					own := single(t, "ONB-009", tenant, id, kind)
					if own[kind+"_status"] != all[kind+"_status"] || own["customer_status"] != all["customer_status"] {
						t.Fatalf("ONB-009", "customers.%s: onboarding/%s/status says %v/%v, onboarding/status %v/%v", name, kind,
							own[kind+"_status"], own["customer_status"], all[kind+"_status"], all["customer_status"])
					}
					rule := map[string]string{"kyc": "ONB-011", "kyb": "ONB-010"}[kind] // asking about the other kind
					oth := single(t, rule, tenant, id, other(kind))
					if oth[other(kind)+"_status"] != nil {
						t.Fatalf(rule, "customers.%s (%s): onboarding/%s/status has %s_status %v, want null", name, kind, other(kind), other(kind), oth[other(kind)+"_status"])
					}
					if oth["customer_status"] != all["customer_status"] {
						t.Fatalf(rule, "customers.%s: onboarding/%s/status customer_status %v, want %v", name, other(kind), oth["customer_status"], all["customer_status"])
					}
				}
			},
		},
	}
}
