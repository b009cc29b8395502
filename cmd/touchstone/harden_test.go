package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/touchstone-harness/touchstone/fixtures/sandbox"
	"github.com/touchstone-harness/touchstone/internal/redact"
)

// plantedKeys are well-formed sandbox keys whose secrets every output is
// searched for, in every encoding the redactor knows.
var plantedKeys = map[string]string{
	"tenant":        "svc_sandbox_0123456789abcdef.PlantedTenantSecret9xQ4",
	"subject":       "svc_sandbox_1123456789abcdef.PlantedSubjectSecret7wZ2",
	"read_only":     "svc_sandbox_2123456789abcdef.PlantedReadOnly+Secret/5",
	"unbound":       "svc_sandbox_3123456789abcdef.PlantedUnboundSecret3vB8",
	"umbrella":      "svc_sandbox_4123456789abcdef.PlantedUmbrellaSecret1kR6",
	"pascal_scopes": "svc_sandbox_5123456789abcdef.PlantedPascalSecret0pL3",
	"child":         "svc_sandbox_6123456789abcdef.PlantedChildSecret2mN5",
}

func plantedProfile(t *testing.T, baseURL string, control bool) string {
	p := map[string]any{
		"name": "misbehaving", "base_url": baseURL, "keys": plantedKeys,
		"customers": map[string]string{"active_personal": "cus_1", "active_business": "cus_2", "parent": "cus_3", "child": "cus_4"},
	}
	if control {
		p["control_url"] = baseURL + "/_sandbox"
	}
	return writeProfile(t, p)
}

// fastEnv keeps misbehaving-server runs short: short request and check
// deadlines, a small body bound.
var fastEnv = []string{"TOUCHSTONE_REQUEST_TIMEOUT=400ms", "TOUCHSTONE_CHECK_TIMEOUT=5s", "TOUCHSTONE_MAX_BODY=262144"}

// touchstoneWithin runs the binary with env and fails the test if it does
// not end within limit (a hang).
func touchstoneWithin(t *testing.T, limit time.Duration, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Env = append(os.Environ(), env...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("touchstone %v did not end within %s (hang)\n%s\n%s", args, limit, tail(o.String()), e.String())
	}
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), code
}

func tail(s string) string {
	if len(s) > 3000 {
		return "…" + s[len(s)-3000:]
	}
	return s
}

// fakeControl answers the clock calls of a virtual-clock control API so
// that failed-auth pacing never waits on the wall clock; every other
// control call is a 404 (checks needing it end with no verdict).
func fakeControl(w http.ResponseWriter, r *http.Request) bool {
	if !strings.HasPrefix(r.URL.Path, "/_sandbox") {
		return false
	}
	switch r.URL.Path {
	case "/_sandbox/clock", "/_sandbox/clock/next-minute", "/_sandbox/clock/advance":
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"now":%q,"virtual":true}`, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Format(time.RFC3339))
	default:
		http.NotFound(w, r)
	}
	return true
}

// misbehaving servers: each answers (or fails to answer) every API
// request the same bad way; the first few requests are answered with {}
// where noted so that the run gets under way before the target misbehaves.
func misbehaving(t *testing.T, name string) *httptest.Server {
	var n atomic.Int64
	// Closed before the server: a handler still holding a request (a POST
	// whose body it never read hears no client's close) ends at once.
	stop := make(chan struct{})
	stallAfter := func(h http.HandlerFunc) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if n.Add(1) <= 25 {
				w.Header().Set("Content-Type", "application/json")
				w.Write([]byte("{}"))
				return
			}
			h(w, r)
		}
	}
	var h http.HandlerFunc
	switch name {
	case "stall":
		h = stallAfter(func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-stop:
			case <-time.After(20 * time.Second):
			}
		})
	case "reset":
		h = stallAfter(func(w http.ResponseWriter, r *http.Request) {
			hj, _ := w.(http.Hijacker)
			conn, _, err := hj.Hijack()
			if err == nil {
				if tc, ok := conn.(*net.TCPConn); ok {
					tc.SetLinger(0)
				}
				conn.Close()
			}
		})
	case "garbage":
		h = stallAfter(func(w http.ResponseWriter, r *http.Request) {
			hj, _ := w.(http.Hijacker)
			conn, buf, err := hj.Hijack()
			if err == nil {
				buf.WriteString("\x00\xffNOT HTTP AT ALL\r\n\r\n\x13\x37")
				buf.Flush()
				conn.Close()
			}
		})
	case "endless-body":
		h = func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			chunk := bytes.Repeat([]byte("{\"a\":["), 4096)
			for r.Context().Err() == nil {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		}
	case "redirect-loop":
		h = func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, r.URL.Path, http.StatusFound) }
	case "html-500":
		h = func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(500)
			w.Write([]byte("<html><body><h1>Internal Server Error</h1></body></html>"))
		}
	case "empty-object":
		h = func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte("{}"))
		}
	case "one-byte-per-second":
		h = stallAfter(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(200)
			for _, b := range []byte(`{"data":{}}`) {
				w.Write([]byte{b})
				w.(http.Flusher).Flush()
				select {
				case <-r.Context().Done():
					return
				case <-time.After(time.Second):
				}
			}
		})
	default:
		t.Fatalf("no misbehaving server %q", name)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if fakeControl(w, r) {
			return
		}
		h(w, r)
	}))
	t.Cleanup(srv.CloseClientConnections)
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(stop) })
	return srv
}

// TestMisbehavingServers runs the default selection against servers that
// misbehave in eight ways. Each run must end in bounded time, with failures
// carrying evidence (exit 1) or no verdict with a clear message (exit 3):
// never a crash, a hang, or a key secret in any output, in any encoding.
func TestMisbehavingServers(t *testing.T) {
	cases := []struct {
		name      string
		wantCodes []int
		wantText  string // on stderr or stdout
	}{
		{"stall", []int{exitNoVerdict}, "stopped answering"},
		{"reset", []int{exitNoVerdict}, "stopped answering"},
		{"garbage", []int{exitNoVerdict}, "stopped answering"},
		{"endless-body", []int{exitNoVerdict, exitFailed}, "response body too large"},
		{"redirect-loop", []int{exitFailed}, "curl "},
		{"html-500", []int{exitFailed}, "curl "},
		{"empty-object", []int{exitFailed}, "curl "},
		{"one-byte-per-second", []int{exitNoVerdict}, "stopped answering"},
	}
	var forms []string
	for _, k := range plantedKeys {
		_, secret, _ := strings.Cut(k, ".")
		forms = append(forms, redact.Forms(secret)...)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := misbehaving(t, tc.name)
			out := t.TempDir()
			start := time.Now()
			stdout, stderr, code := touchstoneWithin(t, 120*time.Second, fastEnv, "run", "--target", plantedProfile(t, srv.URL, true), "--out", out)
			t.Logf("%s: exit %d in %s", tc.name, code, time.Since(start).Round(time.Millisecond))
			ok := false
			for _, c := range tc.wantCodes {
				ok = ok || c == code
			}
			if !ok {
				t.Errorf("exit %d, want one of %v\n%s\n%s", code, tc.wantCodes, tail(stdout), stderr)
			}
			if strings.Contains(stderr, "goroutine ") || strings.Contains(stderr+stdout, "panic:") || strings.Contains(stdout, "harness panic") {
				t.Errorf("crash or harness panic:\n%s\n%s", tail(stdout), tail(stderr))
			}
			files := map[string]string{"console": stdout + stderr}
			for _, name := range []string{"junit.xml", "results.json", "ginkgo.log", "report.html"} {
				raw, err := os.ReadFile(filepath.Join(out, name))
				if err != nil {
					t.Fatalf("%s not written: %v", name, err)
				}
				files[name] = string(raw)
			}
			var doc map[string]any
			if err := json.Unmarshal([]byte(files["results.json"]), &doc); err != nil {
				t.Fatalf("results.json: %v", err)
			}
			if !strings.Contains(files["console"]+files["results.json"], tc.wantText) {
				t.Errorf("no %q in the console or results.json:\n%s\n%s", tc.wantText, tail(stdout), stderr)
			}
			if code == exitNoVerdict && tc.wantText == "stopped answering" {
				if doc["stopped"] == nil || doc["not_run"].(float64) == 0 {
					t.Errorf("results.json does not say the run stopped and what did not run: stopped=%v not_run=%v", doc["stopped"], doc["not_run"])
				}
			}
			for name, content := range files {
				for _, f := range forms {
					if strings.Contains(content, f) {
						t.Errorf("%s holds a form of a key secret (%q)", name, f)
					}
				}
			}
		})
	}
}

// TestBasicSchemeEvidenceIsMasked: against a server that accepts anything,
// auth/basic-scheme fails and its evidence (an Authorization: Basic of the
// whole key) must be masked in every output.
func TestBasicSchemeEvidenceIsMasked(t *testing.T) {
	srv := misbehaving(t, "empty-object")
	out := t.TempDir()
	stdout, stderr, code := touchstoneWithin(t, 60*time.Second, fastEnv, "run", "--target", plantedProfile(t, srv.URL, true), "--focus", "basic-scheme", "--out", out)
	if code != exitFailed {
		t.Fatalf("exit %d, want %d\n%s\n%s", code, exitFailed, stdout, stderr)
	}
	raw, _ := os.ReadFile(filepath.Join(out, "results.json"))
	if !strings.Contains(string(raw), "Basic ***") {
		t.Errorf("results.json does not show the masked Basic credential:\n%s", tail(string(raw)))
	}
	secret := strings.SplitN(plantedKeys["tenant"], ".", 2)[1]
	for _, name := range []string{"junit.xml", "results.json", "ginkgo.log", "report.html"} {
		b, _ := os.ReadFile(filepath.Join(out, name))
		for _, f := range append(redact.Forms(secret), secret) {
			if strings.Contains(string(b), f) || strings.Contains(stdout, f) {
				t.Errorf("%s or the console holds %q", name, f)
			}
		}
	}
}

func TestInterruptedRunIsMarked(t *testing.T) {
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if fakeControl(w, r) {
			return
		}
		time.Sleep(40 * time.Millisecond)
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte("{}"))
	}))
	defer slow.Close()
	out := t.TempDir()
	cmd := exec.Command(binary, "run", "--target", plantedProfile(t, slow.URL, true), "--out", out)
	cmd.Env = append(os.Environ(), fastEnv...)
	var o, e lockedBuffer
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(o.String(), "FAILED") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("run did not end within 30 s of SIGINT")
	}
	if code := cmd.ProcessState.ExitCode(); code != exitNoVerdict {
		t.Errorf("interrupted run: exit %d, want %d\n%s\n%s", code, exitNoVerdict, tail(o.String()), e.String())
	}
	raw, err := os.ReadFile(filepath.Join(out, "results.json"))
	if err != nil {
		t.Fatalf("results.json not written after SIGINT: %v", err)
	}
	var doc struct {
		Interrupted bool `json:"interrupted"`
		NotRun      int  `json:"not_run"`
		Selected    int  `json:"selected"`
	}
	json.Unmarshal(raw, &doc)
	if !doc.Interrupted || doc.NotRun == 0 || doc.NotRun >= doc.Selected {
		t.Errorf("results.json: interrupted=%v not_run=%d selected=%d", doc.Interrupted, doc.NotRun, doc.Selected)
	}
	if !strings.Contains(o.String(), "INTERRUPTED") {
		t.Errorf("summary does not say the run was interrupted:\n%s", tail(o.String()))
	}
}

func TestConfigurationErrorsAreExitTwo(t *testing.T) {
	key := map[string]string{"tenant": "svc_sandbox_0123456789abcdef.secret12"}
	dir := t.TempDir()

	// Selecting nothing is a usage error, not a pass.
	if line := oneLineError(t, exitUsage, "run", "--focus", "no-such-check-anywhere"); !strings.Contains(line, "no check matches") {
		t.Errorf("zero selected: %s", line)
	}
	oneLineError(t, exitUsage, "run", "--label-filter", "no-such-label")
	oneLineError(t, exitUsage, "run", "--property-checks", "-1")

	// An unknown flag: one line on stderr, nothing on stdout.
	stdout, stderr, code := touchstone(t, "run", "--no-such-flag")
	if code != exitUsage || stdout != "" || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
		t.Errorf("unknown flag: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	// No colour codes in a label-filter error.
	if line := oneLineError(t, exitUsage, "run", "--label-filter", "auth &&"); strings.Contains(line, "\x1b") {
		t.Errorf("ANSI codes in %q", line)
	}

	// ca_bundle missing or not PEM; an invalid port.
	notPEM := filepath.Join(dir, "ca.txt")
	os.WriteFile(notPEM, []byte("not a certificate"), 0o600)
	for _, p := range []map[string]any{
		{"base_url": "https://127.0.0.1:1", "keys": key, "ca_bundle": filepath.Join(dir, "missing.pem")},
		{"base_url": "https://127.0.0.1:1", "keys": key, "ca_bundle": notPEM},
		{"base_url": "http://127.0.0.1:99999", "keys": key},
		{"base_url": "http://127.0.0.1:0", "keys": key},
	} {
		oneLineError(t, exitUsage, "run", "--target", writeProfile(t, p))
	}

	// user:pass@ in base_url is refused without echoing the password.
	line := oneLineError(t, exitUsage, "run", "--target", writeProfile(t, map[string]any{"base_url": "http://alice:hunter2pw@127.0.0.1:1", "keys": key}))
	if strings.Contains(line, "hunter2pw") {
		t.Errorf("the password is echoed: %s", line)
	}

	// Junk after the profile's JSON object.
	junk := filepath.Join(dir, "junk.json")
	os.WriteFile(junk, []byte(`{"base_url": "http://127.0.0.1:1", "keys": {"tenant": "svc_sandbox_0123456789abcdef.secret12"}} trailing`), 0o600)
	oneLineError(t, exitUsage, "run", "--target", junk)

	// --out is checked before the target is contacted: an unwritable --out
	// with an unreachable target is a usage error, not "no verdict".
	file := filepath.Join(dir, "a-file")
	os.WriteFile(file, nil, 0o600)
	if line := oneLineError(t, exitUsage, "run", "--target", writeProfile(t, map[string]any{"base_url": "http://127.0.0.1:1", "keys": key}), "--out", filepath.Join(file, "sub")); !strings.Contains(line, "--out") {
		t.Errorf("unwritable --out: %s", line)
	}
}

// TestFaultedRunLeaksNoEncodedSecret: against a faulted sandbox (checks
// fail and write evidence), no output holds a key secret in any form the
// redactor knows: plain, base64 at any alignment, URL-encoded.
func TestFaultedRunLeaksNoEncodedSecret(t *testing.T) {
	out := t.TempDir()
	stdout, stderr, code := touchstoneWithin(t, 120*time.Second, nil, "run", "--fault", sandbox.FaultProblemAsJSON, "--label-filter", "auth || headers", "--out", out)
	if code != exitFailed {
		t.Fatalf("exit %d, want %d\n%s\n%s", code, exitFailed, tail(stdout), stderr)
	}
	files := map[string]string{"console": stdout + stderr}
	for _, name := range []string{"junit.xml", "results.json", "ginkgo.log", "report.html"} {
		raw, _ := os.ReadFile(filepath.Join(out, name))
		files[name] = string(raw)
	}
	// Every reproduction line names the key it sends by its role
	// ($TOUCHSTONE_KEY_<ROLE>), never by a bare variable that names none.
	if strings.Contains(files["results.json"], "${TOUCHSTONE_KEY}") || strings.Contains(files["results.json"], "$TOUCHSTONE_KEY ") {
		t.Errorf("results.json names a bare ${TOUCHSTONE_KEY} in a reproduction line")
	}
	if !strings.Contains(files["results.json"], "${TOUCHSTONE_KEY_") {
		t.Errorf("results.json has no reproduction line naming a key's role")
	}
	for _, s := range secretsOfSeed(1) {
		for _, f := range redact.Forms(s) {
			for name, content := range files {
				if strings.Contains(content, f) {
					t.Errorf("%s holds a form of a key secret (%q)", name, f)
				}
			}
		}
	}
}

// lockedBuffer is read while the child process writes to it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
