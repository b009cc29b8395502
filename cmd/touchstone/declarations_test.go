package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/touchstone-harness/touchstone/cmd/touchstone/launch"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/traffic"
)

var updateDeclarations = flag.Bool("update-declarations", false, "rewrite internal/check/spend.json from this measurement")

// TestDeclarations runs every check of the default selection once against
// the embedded sandbox, one at a time, and holds what each did against
// what it declares:
//   - a check that moved the virtual clock, changed a global control
//     setting or changed a shared fixture through the control API must be
//     labelled check.Alone (run beside others, it would make them fail at
//     random);
//   - what it sends must not exceed its spend declaration
//     (internal/check/spend.json, from which a real-clock run's opening
//     line plans the run): -update-declarations rewrites the file;
//   - every failed authentication it causes (401, or 403
//     api_key_not_authorized) must answer a request the traffic plan
//     sorted as one when it was sent (traffic.Kind.FailedAuth): no key, a
//     key the target never issued or refuses, or a request marked
//     client.Request.KeyRefusal where it was built. An unmarked refusal
//     would spend a route's budget in the plan and escape the failed-auth
//     limiter on a real clock.
func TestDeclarations(t *testing.T) {
	if raceDetector {
		t.Skip("measured without -race (.ci/run runs it so): every request costs several times more under the race detector")
	}
	ctx := context.Background()
	l, err := launch.Start(ctx, launch.Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	roles := map[string]string{} // key prefix -> profile role
	for role, k := range l.Target.Profile.KeyMap() {
		if prefix, _, ok := strings.Cut(k, "."); ok {
			roles[prefix] = role
		}
	}
	var mu sync.Mutex
	measured := map[string]map[string]int{} // check -> route -> n
	failedAuth := map[string]int{}          // check -> failed authentications
	unmarked := map[string][]string{}       // check -> "METHOD path" of refusals the plan did not expect
	paced := map[string][]string{}          // check -> requests paced as failed authentications, not refused
	l.Target.Plan().OnAnswer = func(r *http.Request, k traffic.Kind, status int, code string) {
		id, _, _ := strings.Cut(r.Header.Get(client.CaseHeader), "#")
		mu.Lock()
		defer mu.Unlock()
		if k.Budgets {
			b := k.Bucket
			role := roles[b.Key]
			if role == "" {
				role = "?"
			}
			if measured[id] == nil {
				measured[id] = map[string]int{}
			}
			measured[id][role+" "+b.Method+" "+b.Template]++
		}
		if k.FailedAuth && !traffic.IsFailedAuth(status, code) {
			paced[id] = append(paced[id], fmt.Sprintf("%s %s (%d)", r.Method, r.URL.Path, status))
		}
		if traffic.IsFailedAuth(status, code) {
			failedAuth[id]++
			if !k.FailedAuth {
				unmarked[id] = append(unmarked[id], fmt.Sprintf("%s %s (%d %s)", r.Method, r.URL.Path, status, code))
			}
		}
	}
	var missing, over, refusals []string
	spends := map[string]check.Spend{}
	for _, c := range check.All() {
		if c.HasLabel(check.Slow) {
			continue
		}
		res := check.Run(ctx, l.Target, c)
		if res.Status != check.Passed {
			t.Errorf("%s: %s (the declarations are measured on a passing run)", c.ID, res.Status)
		}
		if len(res.Shared) > 0 && !c.HasLabel(check.Alone) {
			missing = append(missing, c.ID+": "+strings.Join(res.Shared[:min(3, len(res.Shared))], "; "))
		}
		s := check.Spend{FailedAuth: failedAuth[c.ID]}
		if u := unmarked[c.ID]; len(u) > 0 {
			refusals = append(refusals, c.ID+": "+strings.Join(u, "; "))
		}
		for route, n := range measured[c.ID] {
			s.Requests += n
			if n >= check.RouteFloor {
				if s.Routes == nil {
					s.Routes = map[string]int{}
				}
				s.Routes[route] = n
			}
		}
		for _, call := range res.Control {
			if !slices.Contains(s.Control, call) {
				s.Control = append(s.Control, call)
			}
		}
		sort.Strings(s.Control)
		spends[c.ID] = s
		// Drawn cases vary a little with the sandbox's state: allow a
		// quarter more than declared before calling it drift.
		if d := check.Spends()[c.ID]; s.Requests > d.Requests+d.Requests/4+5 {
			over = append(over, c.ID)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("%d checks change what other checks see but are not alone (set Check.Alone, which adds the label %q):\n%s", len(missing), check.Alone, strings.Join(missing, "\n"))
	}
	sort.Strings(refusals)
	if len(refusals) > 0 {
		t.Errorf("%d checks cause failed authentications the traffic plan did not sort as such (a key the target accepts, refused at the key step for this request: mark it client.Request{KeyRefusal: true}):\n%s", len(refusals), strings.Join(refusals, "\n"))
	}
	total := 0
	for _, s := range spends {
		total += s.FailedAuth
	}
	t.Logf("failed authentications caused against the embedded sandbox: %d", total)
	ids := make([]string, 0, len(paced))
	n := 0
	for id, rs := range paced {
		ids = append(ids, id)
		n += len(rs)
	}
	sort.Strings(ids)
	for _, id := range ids {
		t.Logf("paced as failed authentications, not refused: %s: %d: %s", id, len(paced[id]), strings.Join(paced[id][:min(3, len(paced[id]))], "; "))
	}
	t.Logf("requests paced as failed authentications that were not refused: %d", n)
	if *updateDeclarations {
		b, _ := json.MarshalIndent(spends, "", " ")
		if err := os.WriteFile("../../internal/check/spend.json", append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if len(over) > 0 {
		sort.Strings(over)
		t.Errorf("%d checks send more than their spend declaration (go test ./cmd/touchstone -run TestDeclarations -update-declarations): %s", len(over), strings.Join(over, ", "))
	}
}
