package onboarding

import (
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/fresh"
)

// A mapping check brings a fresh customer to one lifecycle state and reads
// the verification vocabulary from the combined and the single-kind status
// routes (document 1, States / Customer lifecycle: verification vocabulary
// mapping).
type mapping struct {
	slug, state, vocab, rule string
	control                  bool
	// reach brings a fresh customer to state and returns its id and kind.
	reach func(t *check.T, rule string) (id, kind string)
}

func drafted(t *check.T, rule string) (string, string) {
	id, _ := fresh.Customer(t)
	return id, fresh.Kind(t, rule, fresh.Read(t, rule, id))
}

func decided(decision string) func(*check.T, string) (string, string) {
	return func(t *check.T, rule string) (string, string) {
		id, kind := fresh.Started(t, rule)
		fresh.Decide(t, id, decision)
		return id, kind
	}
}

func patched(status string) func(*check.T, string) (string, string) {
	return func(t *check.T, rule string) (string, string) {
		id, kind := fresh.Started(t, rule)
		fresh.SetStatus(t, rule, id, status)
		return id, kind
	}
}

var mappings = []mapping{
	{"draft", "Draft", "pending", "LIFE-017", false, drafted},
	{"onboarding", "Onboarding", "in_progress", "LIFE-018", false, fresh.Started},
	{"pending-compliance", "PendingCompliance", "in_progress", "LIFE-019", true, decided("pending_review")},
	{"active", "Active", "approved", "LIFE-020", true, decided("approved")},
	{"rejected", "Rejected", "rejected", "LIFE-021", true, decided("rejected")},
	{"suspended", "Suspended", "blocked", "LIFE-022", false, patched("Suspended")},
	{"blocked", "Blocked", "blocked", "LIFE-023", false, patched("Blocked")},
	{"closed", "Closed", "closed", "LIFE-024", false, patched("Closed")},
}

// mappingChecks are the checks of mapping.go.
func mappingChecks() []check.Check {
	var cs []check.Check
	for _, m := range mappings {
		labels := []string{check.Mutating}
		if m.control {
			labels = append(labels, check.NeedsControl)
		}
		cs = append(cs, check.Check{
			ID:     "onboarding/mapping-" + m.slug,
			Title:  "A " + m.state + " customer reads " + m.vocab + " on the onboarding status routes",
			Rules:  []string{m.rule, "ONB-004", "ONB-005", "ONB-008", "ONB-009", "CUST-022"},
			Labels: labels,
			Needs:  []string{"keys.tenant"},
			Run: func(t *check.T) {
				id, kind := m.reach(t, m.rule)
				tenant := t.Client("tenant")
				d := combined(t, tenant, id, kind)
				if d["customer_status"] != m.state {
					t.Fatalf("ONB-008", "onboarding/status customer_status is %v, want %s", d["customer_status"], m.state)
				}
				if d[kind+"_status"] != m.vocab {
					t.Fatalf(m.rule, "%s customer: onboarding/status %s_status is %v, want %s", m.state, kind, d[kind+"_status"], m.vocab)
				}
				// The combined route mapped the state as the vocabulary says
				// (above, under the mapping's rule): the single-kind route
				// must answer that same mapped value.
				s := single(t, "ONB-009", tenant, id, kind)
				if s[kind+"_status"] != d[kind+"_status"] {
					t.Fatalf("ONB-009", "%s customer: onboarding/%s/status %s_status is %v, onboarding/status says %v (%s)", m.state, kind, kind, s[kind+"_status"], d[kind+"_status"], m.vocab)
				}
				if s["customer_status"] != m.state {
					t.Fatalf("ONB-009", "onboarding/%s/status customer_status is %v, want %s", kind, s["customer_status"], m.state)
				}
			},
		})
	}
	return cs
}
