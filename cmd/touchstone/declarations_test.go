package main

import (
	"context"
	"encoding/json"
	"flag"
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
//     line plans the run): -update-declarations rewrites the file.
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
	l.Target.Plan().OnSend = func(r *http.Request, b traffic.Bucket) {
		id, _, _ := strings.Cut(r.Header.Get(client.CaseHeader), "#")
		role := roles[b.Key]
		if role == "" {
			role = "?"
		}
		mu.Lock()
		if measured[id] == nil {
			measured[id] = map[string]int{}
		}
		measured[id][role+" "+b.Method+" "+b.Template]++
		mu.Unlock()
	}
	var missing, over []string
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
		s := check.Spend{}
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
