package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestScopeChecksWithoutRefusingKeysAreNoPass: with the keys lacking one
// scope each (keys.lacking, keys.lacking_pascal) removed from the profile,
// the route-scope checks judge nothing, though keys lacking many scopes
// (read_only, umbrella, unused_scopes) remain: each is skipped naming the
// keys to add, and no scope rule is reported verified. Without the one key
// lacking only onboarding:write, exactly the onboarding:write rows are not
// judged. With them all, the same checks pass naming their rules.
func TestScopeChecksWithoutRefusingKeysAreNoPass(t *testing.T) {
	p, _, _ := serveSandbox(t, "--clock", "virtual", "--seed", "5")
	full := writeProfile(t, p)
	reduced := *p
	reduced.Keys.Lacking, reduced.Keys.LackingPascal = nil, nil
	less := writeProfile(t, &reduced)
	one := *p
	one.Keys.Lacking = map[string]string{}
	for scope, k := range p.Keys.Lacking {
		if scope != "onboarding:write" {
			one.Keys.Lacking[scope] = k
		}
	}
	lessOne := writeProfile(t, &one)
	type result struct {
		ID         string   `json:"id"`
		Status     string   `json:"status"`
		SkipReason string   `json:"skip_reason"`
		Rules      []string `json:"rules"`
		NotJudged  []string `json:"not_judged"`
	}
	run := func(profile string) []result {
		t.Helper()
		out := filepath.Join(t.TempDir(), "o")
		if stdout, stderr, code := touchstone(t, "run", "--target", profile, "--focus", "^auth/route-scopes-", "--out", out); code != exitOK {
			t.Fatalf("exit %d\n%s\n%s", code, tail(stdout), stderr)
		}
		var doc struct {
			Results  []result `json:"results"`
			Verified []string `json:"verified_this_run"`
		}
		raw, _ := os.ReadFile(filepath.Join(out, "results.json"))
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatal(err)
		}
		var rs []result
		for _, r := range doc.Results {
			if strings.HasPrefix(r.ID, "auth/route-scopes-") {
				rs = append(rs, r)
			}
		}
		if len(rs) == 0 {
			t.Fatal("no route-scope check ran")
		}
		return rs
	}
	for _, r := range run(full) {
		if r.Status != "passed" || len(r.Rules) == 0 || len(r.NotJudged) != 0 {
			t.Errorf("full profile: %s %s, rules %v, not judged %v", r.ID, r.Status, r.Rules, r.NotJudged)
		}
	}
	for _, r := range run(less) {
		if r.Status != "skipped" || !strings.Contains(r.SkipReason, "judged none of its rules") || !strings.Contains(r.SkipReason, "add keys.lacking") {
			t.Errorf("profile without refusing keys: %s %s (%s), want skipped naming the keys to add", r.ID, r.Status, r.SkipReason)
		}
	}
	// SCOPE-009: POST .../onboarding/kyc/token needs onboarding:write;
	// SCOPE-012: GET .../onboarding/kyc/status needs onboarding:read.
	for _, r := range run(lessOne) {
		if r.ID != "auth/route-scopes-onboarding" {
			continue
		}
		if r.Status != "passed" || !slices.Contains(r.NotJudged, "SCOPE-009") || slices.Contains(r.NotJudged, "SCOPE-012") {
			t.Errorf("profile without keys.lacking[onboarding:write]: %s %s, not judged %v; want SCOPE-009 not judged, SCOPE-012 judged", r.ID, r.Status, r.NotJudged)
		}
	}
}
