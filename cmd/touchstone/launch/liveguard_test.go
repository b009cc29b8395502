package launch_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/touchstone-harness/touchstone/cmd/touchstone/allchecks" // registers every check
	"github.com/touchstone-harness/touchstone/cmd/touchstone/launch"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/profile"
)

// TestNoWriteLeavesOnALiveKey runs EVERY registered check (slow ones
// included) against a recording server with a profile whose keys are all
// live and no --allow-live, and asserts that the target saw no request
// other than GET, HEAD or OPTIONS. The profile's control_url points at a
// separate fake control API with a virtual clock (so failed-auth pacing
// never waits on the wall clock, and checks that need control run up to
// their first write): control calls go to the sandbox's control plane, not
// to the target's API, and are not what the guard is about.
func TestNoWriteLeavesOnALiveKey(t *testing.T) {
	var mu sync.Mutex
	var writes []string
	seen := 0
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen++
		switch r.Method {
		case http.MethodGet, http.MethodHead, http.MethodOptions:
		default:
			writes = append(writes, r.Method+" "+r.URL.Path+" ("+r.Header.Get("X-Touchstone-Case")+")")
		}
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"data":{}}`))
	}))
	defer target.Close()
	control := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if strings.HasPrefix(r.URL.Path, "/_sandbox/clock") {
			fmt.Fprintf(w, `{"now":%q,"virtual":true}`, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Format(time.RFC3339))
			return
		}
		w.Write([]byte(`{}`))
	}))
	defer control.Close()

	p := &profile.Profile{Name: "all-live", BaseURL: target.URL, ControlURL: control.URL + "/_sandbox",
		WebhookURL: "https://hooks.example.test/x", CORSAllowedOrigin: "https://dash.example.test"}
	keys := reflect.ValueOf(&p.Keys).Elem()
	for i := 0; i < keys.NumField(); i++ {
		if f := keys.Field(i); f.Kind() == reflect.Map {
			// The keys lacking one scope each: one per scope a route demands.
			m := map[string]string{}
			for j, scope := range demandedScopes {
				m[scope] = fmt.Sprintf("svc_live_%08x%08x.LiveSecret%02d%02dAbcdefghij", i, j, i, j)
			}
			f.Set(reflect.ValueOf(m))
			continue
		}
		keys.Field(i).SetString(fmt.Sprintf("svc_live_%016x.LiveSecret%02dAbcdefghij", i, i))
	}
	for _, v := range []reflect.Value{reflect.ValueOf(&p.Customers).Elem(), reflect.ValueOf(&p.Beneficiaries).Elem()} {
		for i := 0; i < v.NumField(); i++ {
			v.Field(i).SetString(fmt.Sprintf("fix_%d_%s", i, strings.ToLower(v.Type().Field(i).Name)))
		}
	}
	path := filepath.Join(t.TempDir(), "p.json")
	raw, _ := json.Marshal(p)
	os.WriteFile(path, raw, 0o600)

	b := check.DefaultBounds()
	b.Check, b.SlowCheck = 10*time.Second, 10*time.Second
	ctx := context.Background()
	l, err := launch.Start(ctx, launch.Options{ProfilePath: path, Bounds: b})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	refused := 0
	for _, c := range check.All() {
		res := check.Run(ctx, l.Target, c)
		if res.Status == check.Skipped && strings.Contains(res.SkipReason, "--allow-live") {
			refused++
		}
		if res.Status == check.Error && strings.Contains(res.Error, "harness panic") {
			t.Errorf("%s: %s", c.ID, res.Error)
		}
		// A refused write is a skip with the reason, never a failure or a
		// no-verdict.
		if res.Status != check.Skipped && strings.Contains(res.Summary(), "refused to send") {
			t.Errorf("%s ended %s on a refused live write: %s", c.ID, res.Status, res.Summary())
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for _, w := range writes {
		t.Errorf("a write left the harness on a live key: %s", w)
	}
	t.Logf("%d checks, %d requests seen by the target, %d checks refused a live write", len(check.All()), seen, refused)
	if seen == 0 || refused == 0 {
		t.Fatalf("vacuous: %d requests seen, %d checks refused", seen, refused)
	}
}

// demandedScopes are the scopes some documented route demands (document 1
// and 2, Endpoints).
var demandedScopes = []string{
	"onboarding:read", "onboarding:write", "end-customers:read", "end-customers:write",
	"accounts:read", "accounts:write", "balances:read", "exchanges:read", "exchanges:write",
	"deposits:read", "withdrawals:read", "withdrawals:write", "withdrawal-addresses:read",
	"withdrawal-addresses:write", "wallets:read", "wallets:write", "fees:read",
	"payout-batches:read", "payout-batches:write", "webhooks:read", "webhooks:write", "crm-leads:write",
}
