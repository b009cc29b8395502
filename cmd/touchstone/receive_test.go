package main

import (
	"bufio"
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/touchstone-harness/touchstone/internal/redact"
)

// receiveSecret is a well-formed webhook secret (10-character prefix ending
// in whsec_, 44 base64 characters).
const receiveSecret = "svc1_whsec_" + "Zm9vYmFyYmF6cXV4cXV1eHF1dXhxdXV4cXV1eHF1dXg="

// signDelivery signs a delivery by hand with crypto/hmac, as the platform
// does (document 2, Events / Headers), at instant at.
func signDelivery(secret, eventID, attemptID, body string, at time.Time) http.Header {
	ts := at.UTC().Format("2006-01-02T15:04:05.0000000Z07:00")
	unix := strconv.FormatInt(at.Unix(), 10)
	sum := sha256.Sum256([]byte(body))
	bodyHash := hex.EncodeToString(sum[:])
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(ts + "." + body))
	sig := hex.EncodeToString(m.Sum(nil))
	m = hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(unix + "." + eventID + "." + bodyHash + "." + body))
	svcSig := hex.EncodeToString(m.Sum(nil))
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	for k, v := range map[string]string{
		"X-Webhook-Id": eventID, "x-svc-webhook-id": eventID,
		"X-Webhook-Event": "customer.created", "x-svc-event-type": "customer.created",
		"X-Webhook-Delivery-Id": "9f1c0d2e-3b4a-4c5d-8e6f-7a8b9c0d1e2f", "x-svc-delivery-endpoint-id": "9f1c0d2e-3b4a-4c5d-8e6f-7a8b9c0d1e2f",
		"X-Webhook-Delivery-Attempt-Id": attemptID,
		"X-Webhook-Timestamp":           ts, "X-Webhook-Signature": "sha256=" + sig,
		"x-svc-signature-timestamp": unix, "x-svc-payload-sha256": bodyHash, "x-svc-signature": "sha256=" + svcSig,
	} {
		h.Set(k, v)
	}
	return h
}

// receiver is a running `touchstone receive`.
type receiver struct {
	cmd    *exec.Cmd
	url    string
	lines  *bufio.Scanner
	stderr *bytes.Buffer
}

// startReceive starts `touchstone receive` with secret in its environment,
// appending to out, and reads its banner.
func startReceive(t *testing.T, secret, out string) *receiver {
	t.Helper()
	cmd := exec.Command(binary, "receive", "--addr", "127.0.0.1:0", "--secret-env", "TS_RECEIVE_SECRET", "--out", out)
	cmd.Env = append(os.Environ(), "TS_RECEIVE_SECRET="+secret)
	stdoutPipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	rc := &receiver{cmd: cmd, lines: bufio.NewScanner(stdoutPipe), stderr: &bytes.Buffer{}}
	cmd.Stderr = rc.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	if !rc.lines.Scan() {
		t.Fatalf("no banner; stderr %q", rc.stderr.String())
	}
	m := regexp.MustCompile(`http://(127\.0\.0\.1:\d+)`).FindStringSubmatch(rc.lines.Text())
	if m == nil {
		t.Fatalf("banner without an address: %q", rc.lines.Text())
	}
	rc.url = "http://" + m[1] + "/hooks"
	return rc
}

// send posts one delivery and returns the status, and the line printed.
func (rc *receiver) send(t *testing.T, h http.Header, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, rc.url, strings.NewReader(body))
	req.Header = h
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if !rc.lines.Scan() {
		t.Fatalf("no line printed; stderr %q", rc.stderr.String())
	}
	return resp.StatusCode, rc.lines.Text()
}

// stop ends the receiver with SIGTERM and returns what it printed after.
func (rc *receiver) stop(t *testing.T) []string {
	t.Helper()
	if err := rc.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	var rest []string
	for rc.lines.Scan() {
		rest = append(rest, rc.lines.Text())
	}
	if err := rc.cmd.Wait(); err != nil {
		t.Fatalf("receive did not stop cleanly on SIGTERM: %v; stderr %q", err, rc.stderr.String())
	}
	return rest
}

const deliveryBody = `{"id":"4b8e2f6a-0c1d-4e3f-9a5b-6c7d8e9f0a1b","type":"customer.created","occurred_at":"2026-11-24T12:00:00Z","api_version":"2026-05-legacy","data":{"customer_id":"4b8e2f6a-0c1d-4e3f-9a5b-6c7d8e9f0a1b"}}`

// header sets (or, with "", removes) one header of a delivery.
func header(h http.Header, name, value string) http.Header {
	if value == "" {
		h.Del(name)
	} else {
		h.Set(name, value)
	}
	return h
}

func TestReceiveEndToEnd(t *testing.T) {
	out := filepath.Join(t.TempDir(), "deliveries.jsonl")
	rc := startReceive(t, receiveSecret, out)
	body := deliveryBody
	now := time.Now()
	deliveries := []struct {
		name string
		h    http.Header
		body string
		want int
	}{
		{"good", signDelivery(receiveSecret, "evt-good", "att-1", body, now), body, 200},
		{"tampered", signDelivery(receiveSecret, "evt-tampered", "att-2", body, now), strings.Replace(body, "12:00:00", "12:00:01", 1), 401},
		{"stale", signDelivery(receiveSecret, "evt-stale", "att-3", body, now.Add(-10*time.Minute)), body, 401},
		{"duplicate", signDelivery(receiveSecret, "evt-good", "att-4", body, now.Add(time.Second)), body, 200},
		{"wrong secret", signDelivery(receiveSecret+"x", "evt-wrong", "att-5", body, now), body, 401},
		// Authentic, but failed: the unsigned X-Webhook-Id swapped (it
		// drives deduplication), the event types disagreeing, no body.
		{"ids disagree", header(signDelivery(receiveSecret, "evt-ids", "att-6", body, now), "X-Webhook-Id", "evt-swapped"), body, 400},
		{"event types disagree", header(signDelivery(receiveSecret, "evt-types", "att-7", body, now), "x-svc-event-type", "customer.updated"), body, 400},
		{"empty body", signDelivery(receiveSecret, "evt-empty", "att-8", "", now), "", 400},
		{"no attempt id", header(signDelivery(receiveSecret, "evt-noattempt", "att-9", body, now), "X-Webhook-Delivery-Attempt-Id", ""), body, 401},
	}
	var printed []string
	for _, d := range deliveries {
		got, line := rc.send(t, d.h, d.body)
		if got != d.want {
			t.Errorf("%s: answered %d, want %d", d.name, got, d.want)
		}
		printed = append(printed, line)
	}
	wantLine := []*regexp.Regexp{
		regexp.MustCompile(`^PASS 200 event=customer\.created webhook_id=evt-good attempt_id=att-1$`),
		regexp.MustCompile(`^FAIL 401 event=customer\.created webhook_id=evt-tampered attempt_id=att-2 failed: EVT-015: .*EVT-017: .*EVT-018: `),
		regexp.MustCompile(`^FAIL 401 event=customer\.created webhook_id=evt-stale attempt_id=att-3 failed: EVT-024: `),
		regexp.MustCompile(`^PASS 200 event=customer\.created webhook_id=evt-good attempt_id=att-4 duplicate$`),
		regexp.MustCompile(`^FAIL 401 event=customer\.created webhook_id=evt-wrong attempt_id=att-5 failed: EVT-015: .*EVT-018: `),
		regexp.MustCompile(`^FAIL 400 event=customer\.created webhook_id=evt-swapped attempt_id=att-6 failed: EVT-010: `),
		regexp.MustCompile(`^FAIL 400 event=customer\.created webhook_id=evt-types attempt_id=att-7 failed: EVT-011: `),
		regexp.MustCompile(`^FAIL 400 event=customer\.created webhook_id=evt-empty attempt_id=att-8 failed: EVT-001: `),
		regexp.MustCompile(`^FAIL 401 event=customer\.created webhook_id=evt-noattempt attempt_id=- failed: EVT-009: `),
	}
	for i, re := range wantLine {
		if !re.MatchString(printed[i]) {
			t.Errorf("line %d = %q, want %s", i, printed[i], re)
		}
	}

	rest := rc.stop(t)
	if len(rest) != 1 || rest[0] != "stopped: 9 deliveries, 2 pass, 7 fail (4 answered 401, 3 answered 400), 1 duplicates" {
		t.Errorf("summary %q", rest)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(printed, "\n") + strings.Join(rest, "\n") + rc.stderr.String() + string(raw)
	if strings.Contains(all, receiveSecret) || strings.Contains(all, receiveSecret[11:]) {
		t.Error("the secret was printed or written")
	}
	var verdicts []string
	for _, l := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		var rec struct {
			Verdict   string   `json:"verdict"`
			Reasons   []string `json:"reasons"`
			WebhookID string   `json:"webhook_id"`
			Duplicate bool     `json:"duplicate"`
			Status    int      `json:"status"`
		}
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatalf("--out line %q: %v", l, err)
		}
		if (rec.Verdict == "fail") != (len(rec.Reasons) > 0) {
			t.Errorf("--out line %q: verdict and reasons disagree", l)
		}
		verdicts = append(verdicts, rec.Verdict)
	}
	if strings.Join(verdicts, ",") != "pass,fail,fail,pass,fail,fail,fail,fail,fail" {
		t.Errorf("--out verdicts %v", verdicts)
	}
}

// TestReceiveNeverPrintsTheSecret: a secret holding every base64 and
// HTML-special character, echoed back in the headers a line and a reason
// quote (escaped there: %q, JSON), is in no printed line and no --out
// line, in any form.
func TestReceiveNeverPrintsTheSecret(t *testing.T) {
	const secret = `rcv_whsec_Pl+nt/ed=Se<c&r>e"t'_-Zz09AbCdEfGh`
	out := filepath.Join(t.TempDir(), "deliveries.jsonl")
	rc := startReceive(t, secret, out)
	now := time.Now()
	var printed []string
	for _, h := range []http.Header{
		signDelivery(secret, secret, secret, deliveryBody, now),
		signDelivery(secret, "evt-1", "att-1", deliveryBody, now),
		signDelivery(secret+"x", "evt-2", "att-2", deliveryBody, now),
	} {
		h.Set("X-Webhook-Event", secret)
		_, line := rc.send(t, h, deliveryBody)
		printed = append(printed, line)
	}
	printed = append(printed, rc.stop(t)...)
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(printed, "\n") + rc.stderr.String() + string(raw)
	// Its head and tail hold no character any format escapes.
	for _, f := range append(redact.Forms(secret), secret[:21], secret[len(secret)-12:]) {
		if strings.Contains(all, f) {
			t.Errorf("the secret is printed or written as %q:\n%s", f, all)
		}
	}
	if !strings.Contains(all, "***") {
		t.Errorf("no masked value printed:\n%s", all)
	}
}

func TestReceiveUsage(t *testing.T) {
	oneLineError(t, exitUsage, "receive", "--addr", "127.0.0.1:0")
	oneLineError(t, exitUsage, "receive", "--addr", "127.0.0.1:0", "--secret-env", "TS_UNSET_SECRET_FOR_TEST")
}
