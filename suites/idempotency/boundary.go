package idempotency

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// What replay protection covers (document 1, Common rules; document 2,
// Limits): JSON requests with a known Content-Length of at most 1 MiB.
// Every case uses one observable: a PATCH setting the jurisdiction, a
// change to another value with a fresh key, then the first request
// again. A protected request replays (the later value stays); an
// unprotected one runs again (the first value comes back).

func boundaryChecks() []check.Check {
	mut := []string{check.Mutating}
	return []check.Check{
		{
			ID:     "idempotency/size-limit-1mib",
			Title:  "a JSON body of exactly 1,048,576 bytes is replay-protected; 1,048,577 bytes is not (the retry re-executes, the key is not held)",
			Rules:  []string{"IDEM-014", "IDEM-024", "CUST-022"},
			Labels: mut, Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				c := t.Client("tenant")
				x, k1 := createCustomer(t), t.NewKey()
				at := padded("DE", mib)
				first := patch(t, c, x, k1, at)
				if first.Status != http.StatusOK {
					t.NoVerdict(errorf("PATCH with a %d-byte JSON body: %d %s", len(at), first.Status, shape.Clip(first.Body)))
				}
				setJurisdiction(t, x, "FR")
				same(t, first, patch(t, c, x, k1, at), "identical retry of a 1,048,576-byte PATCH")
				if j := jurisdiction(t, x); j != "FR" {
					t.Fatalf("IDEM-014", "the identical retry of a 1,048,576-byte JSON PATCH re-executed (jurisdiction %s, want FR): bodies up to 1 MiB are replay-protected", j)
				}

				y, k2 := createCustomer(t), t.NewKey()
				over := padded("DE", mib+1)
				if r := patch(t, c, y, k2, over); r.Status != http.StatusOK {
					t.NoVerdict(errorf("PATCH with a %d-byte JSON body: %d %s", len(over), r.Status, shape.Clip(r.Body)))
				}
				setJurisdiction(t, y, "FR")
				shape.StatusAnswer(t, patch(t, c, y, k2, over), shape.Want{Rule: "IDEM-014", Status: http.StatusOK, What: "the retry of a 1,048,577-byte PATCH", Why: "executed again"})
				if j := jurisdiction(t, y); j != "DE" {
					t.Fatalf("IDEM-014", "the retry of a 1,048,577-byte JSON PATCH did not re-execute (jurisdiction %s, want DE): bodies over 1 MiB are not replay-protected", j)
				}
				// An unprotected request leaves no record: its key is free for
				// another body (the reading IDEM-024 takes).
				shape.StatusAnswer(t, patch(t, c, y, k2, jsonBody("IT")), shape.Want{Rule: "IDEM-024", Status: http.StatusOK, What: "the key of an unprotected 1,048,577-byte request, reused with another body", Why: "nothing was stored under it"})
			},
		},
		{
			ID:     "idempotency/large-response-not-stored",
			Title:  "a protected request whose 2xx response exceeds 1 MiB is not stored: the identical retry re-executes",
			Rules:  []string{"IDEM-015", "CUST-022"},
			Labels: mut, Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				c := t.Client("tenant")
				x, key := createCustomer(t), t.NewKey()
				// A display_name that keeps the request at or under 1 MiB while the
				// customer echoed in the response (with its other fields) exceeds it.
				name := strings.Repeat("x", mib-40)
				body, _ := json.Marshal(map[string]any{"display_name": name})
				if len(body) > mib {
					t.NoVerdict(errorf("request body is %d bytes, over 1 MiB", len(body)))
				}
				first := patch(t, c, x, key, body)
				if first.Status != http.StatusOK {
					t.Skipf("the target refuses a %d-character display_name (%d); a response over 1 MiB cannot be produced here", len(name), first.Status)
				}
				if len(first.Body) <= mib {
					t.Skipf("the response is %d bytes, not over 1 MiB; cannot exercise the response limit", len(first.Body))
				}
				rename := patch(t, c, x, t.NewKey(), []byte(`{"display_name":"ts-renamed"}`))
				if rename.Status != http.StatusOK {
					t.NoVerdict(errorf("cannot rename the customer: %d %s", rename.Status, shape.Clip(rename.Body)))
				}
				shape.StatusAnswer(t, patch(t, c, x, key, body), shape.Want{Rule: "IDEM-015", Status: http.StatusOK, What: "the identical retry", Why: "executed again"})
				if got, _ := readCustomer(t, x)["display_name"].(string); got != name {
					t.Fatalf("IDEM-015", "the identical retry did not re-execute (display_name is %q): a response over 1 MiB is not stored for replay", shape.Clip([]byte(got)))
				}
				// Leave no 1 MiB row behind: every later read of the
				// customer list that reaches it (this run's or a later one's
				// against a long-lived target) would carry it.
				patch(t, c, x, t.NewKey(), []byte(`{"display_name":"ts-large-response"}`))
			},
		},
		{
			ID:     "idempotency/chunked-not-protected",
			Title:  "a chunked JSON request (no Content-Length) is not replay-protected: the identical retry re-executes",
			Rules:  []string{"IDEM-014", "IDEM-018", "CUST-022"},
			Labels: mut, Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				c := t.Client("tenant")
				x, key := createCustomer(t), t.NewKey()
				chunked := int64(-1)
				req := client.Request{Method: http.MethodPatch, Path: customers + "/" + x, IdempotencyKey: key, Body: jsonBody("DE"),
					Header: http.Header{"Content-Type": {"application/json"}}, ContentLength: &chunked}
				if r := t.Do(c, req); r.Status != http.StatusOK {
					t.NoVerdict(errorf("chunked PATCH: %d %s", r.Status, shape.Clip(r.Body)))
				}
				setJurisdiction(t, x, "FR")
				shape.StatusAnswer(t, t.Do(c, req), shape.Want{Rule: "IDEM-014", Status: http.StatusOK, What: "the chunked retry", Why: "executed again"})
				if j := jurisdiction(t, x); j != "DE" {
					// No Content-Length is no "known Content-Length" (the
					// reading IDEM-018 takes).
					t.Fatalf("IDEM-018", "the identical chunked retry did not re-execute (jurisdiction %s, want DE): a request without a known Content-Length is not replay-protected", j)
				}
			},
		},
		{
			ID:     "idempotency/non-json-not-protected",
			Title:  "a request whose Content-Type is not JSON is not replay-protected: the identical retry re-executes",
			Rules:  []string{"IDEM-018", "CUST-022"},
			Labels: mut, Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				c := t.Client("tenant")
				x, key := createCustomer(t), t.NewKey()
				req := client.Request{Method: http.MethodPatch, Path: customers + "/" + x, IdempotencyKey: key, Body: jsonBody("DE"),
					Header: http.Header{"Content-Type": {"text/plain"}}}
				if r := t.Do(c, req); r.Status != http.StatusOK {
					t.Skipf("the target does not apply a text/plain PATCH body (%d); replay of non-JSON requests cannot be observed here", r.Status)
				}
				setJurisdiction(t, x, "FR")
				shape.StatusAnswer(t, t.Do(c, req), shape.Want{Rule: "IDEM-018", Status: http.StatusOK, What: "the text/plain retry", Why: "executed again"})
				if j := jurisdiction(t, x); j != "DE" {
					t.Fatalf("IDEM-018", "the identical text/plain retry did not re-execute (jurisdiction %s, want DE): only JSON requests are replay-protected", j)
				}
			},
		},
	}
}

// padded is {"jurisdiction":"J"} padded with spaces inside the object to
// exactly size bytes: valid JSON of a known length.
func padded(j string, size int) []byte {
	head := []byte(`{"jurisdiction":"` + j + `"`)
	pad := size - len(head) - 1
	b := make([]byte, 0, size)
	b = append(b, head...)
	b = append(b, bytes.Repeat([]byte(" "), pad)...)
	return append(b, '}')
}
