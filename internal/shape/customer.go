package shape

import (
	"regexp"

	"github.com/touchstone-harness/touchstone/internal/check"
)

// Formats named by document 1 (Response envelope, Customer).
var (
	UUIDRe = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
	// OffsetTimeRe is an ISO 8601 date-time with an offset (Z or ±hh:mm).
	OffsetTimeRe = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$`)
	// Alpha2Re is the form of an ISO 3166-1 alpha-2 code.
	Alpha2Re = regexp.MustCompile(`^[A-Z]{2}$`)
)

// Lifecycle is the customer lifecycle vocabulary (document 1, States /
// Customer lifecycle).
var Lifecycle = []string{"Draft", "Onboarding", "PendingCompliance", "Active", "Rejected", "Suspended", "Blocked", "Closed"}

// IsLifecycle tells whether s is a documented lifecycle status.
func IsLifecycle(s string) bool {
	for _, x := range Lifecycle {
		if x == s {
			return true
		}
	}
	return false
}

// Customer asserts the documented fields of a customer record (document 1,
// Resources / Customer), each under its own rule; it records every
// violation and goes on.
func Customer(t *check.T, c map[string]any) {
	str := func(k string) (string, bool) { s, ok := c[k].(string); return s, ok }
	if s, ok := str("id"); !ok || !UUIDRe.MatchString(s) {
		t.Errorf("CUST-001", "customer id is %v, want a UUID", c["id"])
	}
	if _, ok := str("external_reference"); !ok {
		t.Errorf("CUST-002", "customer external_reference is %v, want a string", c["external_reference"])
	}
	if _, ok := str("display_name"); !ok {
		t.Errorf("CUST-003", "customer display_name is %v, want a string", c["display_name"])
	}
	if s, _ := str("user_type"); s != "Personal" && s != "Business" {
		t.Errorf("CUST-004", "customer user_type is %v, want Personal or Business", c["user_type"])
	}
	if s, ok := str("jurisdiction"); !ok || !Alpha2Re.MatchString(s) {
		t.Errorf("CUST-005", "customer jurisdiction is %v, want an ISO 3166-1 alpha-2 code", c["jurisdiction"])
	}
	if s, _ := str("status"); !IsLifecycle(s) {
		t.Errorf("CUST-006", "customer status is %v, want one of %v", c["status"], Lifecycle)
	}
	if c["record_type"] != "Customer" {
		t.Errorf("CUST-007", "customer record_type is %v, want Customer", c["record_type"])
	}
	for _, k := range []string{"created_at", "updated_at"} {
		if s, ok := str(k); !ok || !OffsetTimeRe.MatchString(s) {
			t.Errorf("CUST-008", "customer %s is %v, want an ISO 8601 timestamp with offset", k, c[k])
		}
	}
}
