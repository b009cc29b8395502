package auth

// Document 2, Authentication 9 and Limits: 20 failed authentication
// attempts per 60 seconds per source IP; beyond it 429 rate_limited with
// detail "Too many failed authentication attempts." and Retry-After instead
// of 401/403; successful calls neither consume it nor are refused; a fresh
// clock-minute window lifts it (AUTH-030).

import (
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

const (
	failedAuthBudget = 20
	budgetDetail     = "Too many failed authentication attempts."
)

// spendBudget sends exactly failedAuthBudget failing requests from this IP
// (15 unknown-key 401s, then 5 missing-scope 403s), interleaving successful
// calls that must neither fail nor count.
func spendBudget(t *check.T) {
	bad := withKey(t, "unknown", unknownKey(t))
	ro, tn := t.Client("read_only"), t.Client("tenant")
	oks := 0
	for i := 1; i <= 15; i++ {
		r := t.Do(bad, client.Request{Method: http.MethodGet, Path: api.P + "/me"})
		failure(t, r, i, oks, http.StatusUnauthorized, "unknown key")
		if i%5 == 0 {
			ok := t.Do(tn, client.Request{Method: http.MethodGet, Path: api.P + "/me"})
			shape.StatusAnswer(t, ok, shape.Want{Rule: "RATE-013", Status: http.StatusOK, What: fmt.Sprintf("a valid call after %d failures", i)})
			oks++
		}
	}
	for i := 16; i <= failedAuthBudget; i++ {
		r := t.Do(ro, client.Request{Method: http.MethodPatch, Path: api.P + "/customers/" + uuid.NewString(), JSON: map[string]any{}, IdempotencyKey: t.NewKey(), KeyRefusal: true})
		failure(t, r, i, oks, http.StatusForbidden, "missing scope")
	}
}

// failure asserts failed attempt i of the window, oks successful calls
// having been answered before it, got its own refusal (want) and not yet the
// budget's 429 (RATE-012). A 429 exactly where the failures and the
// successful calls together reach the budget shows the successful calls
// were counted (RATE-013).
func failure(t *check.T, r *client.Response, i, oks, want int, why string) {
	if r.Status == http.StatusTooManyRequests && oks > 0 && i-1+oks == failedAuthBudget {
		t.FatalAt(r, "RATE-013", "failed attempt %d of %d (%s) is 429 after %d failures and %d successful calls: the successful calls consumed the failed-authentication budget", i, failedAuthBudget, why, i-1, oks)
	}
	shape.StatusAnswer(t, r, shape.Want{Rule: "RATE-012", Status: want, What: fmt.Sprintf("failed attempt %d of %d (%s)", i, failedAuthBudget, why)})
}

// overBudget asserts the 21st failure and what follows it in the same window.
func overBudget(t *check.T) {
	bad := withKey(t, "unknown", unknownKey(t))
	r := t.Do(bad, client.Request{Method: http.MethodGet, Path: api.P + "/me"})
	m := shape.ProblemAnswer(t, r, shape.Want{Rule: "RATE-012", Status: http.StatusTooManyRequests, Code: "rate_limited", ShapeRule: "ERR-026", MediaRule: "ERR-009",
		What: fmt.Sprintf("failed attempt %d in one window", failedAuthBudget+1), Why: fmt.Sprintf("the budget is %d per 60 s per IP", failedAuthBudget)})
	if m["detail"] != budgetDetail {
		t.Errorf("AUTH-029", "failed-auth 429 detail is %q, want %q", m["detail"], budgetDetail)
	}
	retryAfter(t, r)
	// A request that would be 403 at the key step is 429 too.
	ro := t.Client("read_only")
	f := t.Do(ro, client.Request{Method: http.MethodPatch, Path: api.P + "/customers/" + uuid.NewString(), JSON: map[string]any{}, IdempotencyKey: t.NewKey(), KeyRefusal: true})
	shape.StatusAnswer(t, f, shape.Want{Rule: "ORDER-008", Status: http.StatusTooManyRequests, What: "missing-scope request after the failed-auth budget is spent", Continue: true})
	// Valid keys still pass.
	for _, name := range []string{"tenant", "read_only"} {
		ok := t.Do(t.Client(name), client.Request{Method: http.MethodGet, Path: api.P + "/customers"})
		shape.StatusAnswer(t, ok, shape.Want{Rule: "AUTH-030", Status: http.StatusOK, What: fmt.Sprintf("GET /customers with keys.%s while the IP's failed-auth budget is spent", name), Continue: true})
	}
}

// retryAfter asserts Retry-After in whole seconds within one window.
func retryAfter(t *check.T, r *client.Response) {
	v := r.Header.Values("Retry-After")
	if len(v) != 1 {
		t.Errorf("RATE-017", "429 carries Retry-After %q, want exactly one value", v)
		return
	}
	n, err := strconv.Atoi(v[0])
	if err != nil || n < 0 || n > 60 {
		t.Errorf("RATE-017", "429 Retry-After is %q, want whole seconds within the 60-second window", v[0])
	}
}

// afterWindow asserts a fresh window lifts the 429: the same bad
// credentials get a 401 again.
func afterWindow(t *check.T) {
	bad := withKey(t, "unknown", unknownKey(t))
	r := t.Do(bad, client.Request{Method: http.MethodGet, Path: api.P + "/me"})
	// Its body (the unknown key's generic 401) is judged by auth/unknown-key
	// under AUTH-019, which this check does not declare.
	shape.StatusAnswer(t, r, shape.Want{Rule: "AUTH-030", Status: http.StatusUnauthorized, What: "unknown key in the next clock-minute window", Why: "the new window lifts the 429"})
}

// budgetChecks are the checks of budget.go.
func budgetChecks() []check.Check {
	rules := []string{"RATE-012", "AUTH-029", "AUTH-030", "RATE-013", "ERR-026", "ERR-009", "ORDER-008", "RATE-017"}
	return []check.Check{
		{
			ID:    "auth/failed-auth-budget",
			Alone: check.WithControl,
			Title: "the 21st failed authentication in a clock minute is 429 rate_limited; valid keys pass; the next minute lifts it",
			Rules: rules,
			Needs: []string{"keys.tenant", "keys.read_only"},
			// It owns the failed-auth budget for its two minutes (the
			// whole window of 20, then one in the next); its valid calls
			// need their route budgets unspent in its minute (a probe may
			// have exhausted one just before).
			Budget: &check.Budget{Auth: true, Windows: 2, Tenant: 10, Routes: []string{
				"tenant GET " + api.P + "/me", "tenant GET " + api.P + "/customers", "read_only GET " + api.P + "/customers"}},
			Run: func(t *check.T) {
				clk := t.Clock()
				// The whole sequence in one clock minute (a virtual clock
				// starts at :01 of a fresh one).
				clk.Clear(10 * time.Second)
				spendBudget(t)
				overBudget(t)
				clk.To(max(1, clk.Boundary), true)
				afterWindow(t)
			},
		},
	}
}
