package load

import (
	"testing"
	"time"
)

// tenantSpent adds up what this run's probes sent in one server-clock
// minute, every budget and answer included: the latency probe waits for
// the next minute when its requests would not fit under the tenant-wide
// ceiling beside them.
func TestTenantSpent(t *testing.T) {
	m := time.Date(2026, 11, 25, 10, 1, 0, 0, time.UTC)
	sums := map[string]*Summary{
		"tenant-ceiling": {Windows: []Window{{Start: m, Budget: "GET P/me · keys.tenant", Answers: Answers{Admitted: 600}}, {Start: m, Budget: "GET V2/customers · keys.tenant", Answers: Answers{Limited: 1}}}},
		"window-boundary": {Windows: []Window{{Start: m.Add(-time.Minute), Budget: "GET P/me · keys.umbrella", Answers: Answers{Admitted: 600}},
			{Start: m, Budget: "GET P/me · keys.umbrella", Answers: Answers{Admitted: 600, Limited: 1}}}},
		"failed-auth": {Windows: []Window{{Start: m, Budget: "GET P/me · keys.tenant_wrong_secret", Answers: Answers{Other: 20, Limited: 1}}}},
	}
	if got := tenantSpent(sums, m); got != 600+1+601+21 {
		t.Errorf("spent in %s: %d, want 1223", m.Format("15:04"), got)
	}
	if got := tenantSpent(sums, m.Add(-time.Minute)); got != 600 {
		t.Errorf("spent in the minute before: %d, want 600", got)
	}
	if got := tenantSpent(sums, m.Add(time.Minute)); got != 0 {
		t.Errorf("spent in the next minute: %d, want 0", got)
	}
}
