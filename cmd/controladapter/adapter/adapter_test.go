package adapter

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/touchstone-harness/touchstone/internal/controlcontract"
)

// TestRehearsalServesTheChosenCalls: in front of a control service (here
// a loopback stand-in recording what reaches it), the adapter lists what
// it serves, passes the chosen calls through unchanged, answers the
// others 501 without passing them on, refuses a listed call when told,
// and serves the contract cut to what it serves.
func TestRehearsalServesTheChosenCalls(t *testing.T) {
	var reached []string
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		reached = append(reached, r.Method+" "+r.URL.Path+" "+string(b))
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"ok":true}`))
	}))
	defer up.Close()
	ops, err := Select([]string{"funds", "verificationDecision"})
	if err != nil {
		t.Fatal(err)
	}
	a, err := Rehearsal(up.URL+"/_sandbox", ops)
	if err != nil {
		t.Fatal(err)
	}
	a.Refuse["fiatFunds"] = true
	srv := httptest.NewServer(a)
	defer srv.Close()

	var caps controlcontract.Capabilities
	getJSON(t, srv.URL+"/capabilities", &caps)
	want := []string{"cryptoFunds", "fiatDeposit", "fiatFunds", "readCapabilities", "readClock", "readContract", "verificationDecision", "withdrawalFunds"}
	if caps.Contract != controlcontract.Name || caps.Version != controlcontract.Version() || strings.Join(caps.Operations, ",") != strings.Join(want, ",") {
		t.Errorf("capabilities: %+v", caps)
	}
	post := func(path, body string) (int, string) {
		resp, err := http.Post(srv.URL+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if st, _ := post("/withdrawals/funds/c1", `{"currency":"GBP","available_minor":5}`); st != 200 {
		t.Errorf("a served call: %d", st)
	}
	if st, _ := post("/customers/c1/verification", `{"decision":"approved"}`); st != 200 {
		t.Errorf("a served call: %d", st)
	}
	if st, body := post("/webhooks/emit", `{}`); st != http.StatusNotImplemented || !strings.Contains(body, "webhookEmit") {
		t.Errorf("a call not served: %d %s", st, body)
	}
	if st, body := post("/fiat/funds/c1", `{}`); st != http.StatusNotImplemented || !strings.Contains(body, "fiatFunds") {
		t.Errorf("a listed call refused: %d %s", st, body)
	}
	if st, _ := post("/no/such/call", `{}`); st != http.StatusNotImplemented {
		t.Errorf("no call of the contract: %d", st)
	}
	if got := strings.Join(reached, "\n"); got != `POST /_sandbox/withdrawals/funds/c1 {"currency":"GBP","available_minor":5}`+"\n"+`POST /_sandbox/customers/c1/verification {"decision":"approved"}` {
		t.Errorf("reached the upstream:\n%s", got)
	}

	resp, err := http.Get(srv.URL + "/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	doc, err := openapi3.NewLoader().LoadFromData(raw)
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("the cut contract does not validate: %v", err)
	}
	var ids []string
	for _, item := range doc.Paths.Map() {
		for _, o := range item.Operations() {
			ids = append(ids, o.OperationID)
		}
	}
	slices.Sort(ids)
	if strings.Join(ids, ",") != strings.Join(want, ",") {
		t.Errorf("the cut contract lists %v", ids)
	}
	if _, err := Select([]string{"no-such-group"}); err == nil {
		t.Error("an unknown group was accepted")
	}
}

func getJSON(t *testing.T, u string, out any) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		t.Fatal(err)
	}
}
