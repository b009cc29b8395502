package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/touchstone-harness/touchstone/fixtures/sandbox"
	"github.com/touchstone-harness/touchstone/internal/profile"
)

var binary string

// TestMain builds the command once; each test runs it as a user would
// (Ginkgo's RunSpecs runs once per process, so a run is a process).
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "touchstone-bin")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "touchstone")
	if out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build: %v\n%s", err, out)
		os.Exit(2)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func touchstone(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	code = 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), code
}

func writeProfile(t *testing.T, p any) string {
	t.Helper()
	raw, _ := json.Marshal(p)
	path := filepath.Join(t.TempDir(), "profile.json")
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// oneLineError asserts a usage/configuration error: exit 2, one line on
// stderr, no stack trace.
func oneLineError(t *testing.T, wantCode int, args ...string) string {
	t.Helper()
	_, stderr, code := touchstone(t, args...)
	if code != wantCode {
		t.Fatalf("touchstone %v: exit %d, want %d (stderr %q)", args, code, wantCode, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if len(lines) != 1 || strings.Contains(stderr, "goroutine ") || strings.Contains(stderr, "panic") {
		t.Fatalf("touchstone %v: stderr is not one clear line:\n%s", args, stderr)
	}
	return lines[0]
}

func TestUsageErrors(t *testing.T) {
	oneLineError(t, exitUsage, "frobnicate")
	oneLineError(t, exitUsage, "run", "--no-such-flag")
	oneLineError(t, exitUsage, "run", "--label-filter", "auth &&")
	oneLineError(t, exitUsage, "run", "--focus", "(")
	oneLineError(t, exitUsage, "sandbox", "--clock", "sundial")
	oneLineError(t, exitUsage, "sandbox", "--fault", "no-such-fault")
	oneLineError(t, exitUsage, "rules", "--area", "nowhere")
	oneLineError(t, exitUsage, "run", "--target", filepath.Join(t.TempDir(), "missing.json"))
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte(`{"base_url": "http://127.0.0.1:1",`), 0o600)
	if line := oneLineError(t, exitUsage, "run", "--target", bad); !strings.Contains(line, "malformed") {
		t.Errorf("malformed profile error does not say so: %s", line)
	}
	noKeys := writeProfile(t, map[string]any{"base_url": "http://127.0.0.1:1"})
	if line := oneLineError(t, exitUsage, "run", "--target", noKeys); !strings.Contains(line, "keys.tenant") {
		t.Errorf("missing-key error does not name the field: %s", line)
	}
	slash := writeProfile(t, map[string]any{"base_url": "http://127.0.0.1:1/", "keys": map[string]string{"tenant": "svc_sandbox_0123456789abcdef.secret12"}})
	oneLineError(t, exitUsage, "run", "--target", slash)
}

func TestHelpForEverySubcommand(t *testing.T) {
	for name := range commands {
		out, _, code := touchstone(t, name, "--help")
		if code != 0 || !strings.Contains(out, "Usage: touchstone "+name) {
			t.Errorf("touchstone %s --help: exit %d, output %q", name, code, out)
		}
	}
}

func TestUnreachableTargetIsNoVerdict(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	p := writeProfile(t, map[string]any{"base_url": "http://" + addr, "keys": map[string]string{"tenant": "svc_sandbox_0123456789abcdef.secret12"}})
	line := oneLineError(t, exitNoVerdict, "run", "--target", p)
	if !strings.Contains(line, "unreachable") {
		t.Errorf("unreachable target error does not say so: %s", line)
	}
}

func TestRulesEndsWithCoverageLine(t *testing.T) {
	out, _, code := touchstone(t, "rules")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || !strings.HasPrefix(lines[len(lines)-2], "rules covered: ") || !strings.HasPrefix(lines[len(lines)-1], "rules proven: ") {
		t.Fatalf("touchstone rules: exit %d, last lines %q", code, lines[len(lines)-2:])
	}
}

// TestRuleStoryNamesChecksAndFaultsByFileAndLine: `rules --rule ID` goes
// from a rule id to its checks and faults in the source tree.
func TestRuleStoryNamesChecksAndFaultsByFileAndLine(t *testing.T) {
	out, _, code := touchstone(t, "rules", "--rule", "IDEM-011")
	for _, want := range []string{"Reusing an Idempotency-Key", "idempotency/reuse-different-body", "suites/idempotency/conflicts.go:",
		"idempotency-body-not-compared", "fixtures/sandbox/faults_idempotency.go:", "applied at fixtures/sandbox/"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Fatalf("rules --rule IDEM-011: exit %d, output lacks %q:\n%s", code, want, out)
		}
	}
	if _, stderr, code := touchstone(t, "rules", "--rule", "NOPE-001"); code != exitUsage || strings.Count(stderr, "\n") != 1 {
		t.Fatalf("unknown rule: exit %d, stderr %q", code, stderr)
	}
}

// TestRunWritesRedactedEvidence runs against a faulted sandbox so that
// checks fail and evidence is written, then searches the console and every
// output file for the sandbox's key secrets.
func TestRunWritesRedactedEvidence(t *testing.T) {
	out := t.TempDir()
	stdout, stderr, code := touchstone(t, "run", "--fault", sandbox.FaultProblemAsJSON, "--label-filter", "checkorder || headers || auth", "--out", out)
	if code != exitFailed {
		t.Fatalf("run against a faulted sandbox: exit %d, want %d\n%s\n%s", code, exitFailed, stdout, stderr)
	}
	secrets := secretsOfSeed(1)
	console := stdout + stderr
	files := map[string]string{"console": console}
	for _, name := range []string{"junit.xml", "results.json", "ginkgo.log", "report.html"} {
		raw, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatalf("%s not written: %v", name, err)
		}
		files[name] = string(raw)
	}
	if !strings.Contains(files["results.json"], "curl ") || !strings.Contains(files["results.json"], "$"+"{TOUCHSTONE_KEY_") {
		t.Errorf("results.json has no reproduction line with a key placeholder")
	}
	for name, content := range files {
		for _, s := range secrets {
			if strings.Contains(content, s) {
				t.Errorf("%s contains a key secret", name)
			}
		}
	}
}

func secretsOfSeed(seed int64) []string {
	var secrets []string
	for _, k := range sandbox.New(sandbox.Config{Seed: seed}).Fixtures().Keys {
		if _, sec, ok := strings.Cut(k, "."); ok {
			secrets = append(secrets, sec)
		}
	}
	return secrets
}

// serveSandbox starts `touchstone sandbox` and waits for its profile.
// served is a sandbox process a test started; exited yields its end.
type served struct {
	cmd    *exec.Cmd
	exited chan error
}

func serveSandbox(t *testing.T, args ...string) (*profile.Profile, *served, *bytes.Buffer) {
	t.Helper()
	profilePath := filepath.Join(t.TempDir(), "p.json")
	cmd := exec.Command(binary, append([]string{"sandbox", "--addr", "127.0.0.1:0", "--profile-out", profilePath}, args...)...)
	var out bytes.Buffer
	errs := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = &out, errs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		// A sandbox that ended before the test did (a crash) is named,
		// with what it printed, when the test failed.
		select {
		case err := <-exited:
			if t.Failed() {
				t.Logf("the sandbox had exited (%v) before the test ended; its stderr:\n%s", err, errs.String())
			}
		default:
			cmd.Process.Kill()
			<-exited
		}
	})
	for i := 0; i < 100; i++ {
		time.Sleep(50 * time.Millisecond)
		if p, err := profile.Load(profilePath); err == nil {
			return p, &served{cmd, exited}, &out
		}
	}
	t.Fatalf("no profile written; output:\n%s", out.String())
	return nil, nil, nil
}

// TestTwoRunsAgainstOneSandbox: a target outlives runs, so every check must
// leave state a second run can live with.
func TestTwoRunsAgainstOneSandbox(t *testing.T) {
	p, _, _ := serveSandbox(t, "--clock", "virtual", "--seed", "3")
	path := writeProfile(t, p)
	// The second run leaves out the checks that move the virtual clock by
	// hours (which would expire the first run's idempotency records and
	// hide a collision): those that need the control API, and the
	// properties that use it when the target has it (internal transfers
	// cross UTC days), which run alone.
	for i, filter := range []string{"!slow", "!slow && !needs-control && !(property && alone)"} {
		stdout, stderr, code := touchstone(t, "run", "--target", path, "--label-filter", filter, "--out", t.TempDir())
		if code != exitOK {
			t.Fatalf("run %d against one long-lived sandbox: exit %d\n%s\n%s", i+1, code, stdout, stderr)
		}
	}
}

// TestSandboxAsARemoteTarget: --latency delays each answer (a lower bound,
// which a sleep guarantees) and --no-control serves no control API and
// writes no control_url, as an integrator's sandbox.
func TestSandboxAsARemoteTarget(t *testing.T) {
	p, _, _ := serveSandbox(t, "--latency", "30ms", "--jitter", "5ms", "--no-control")
	if p.ControlURL != "" {
		t.Errorf("profile control_url %q with --no-control, want none", p.ControlURL)
	}
	for _, c := range []struct {
		path, key string
		want      int
	}{{"/api/v1/partner/me", p.Keys.Tenant, 200}, {"/openapi/v1.json", "", 200}, {"/_sandbox/clock", "", 404}} {
		req, _ := http.NewRequest("GET", p.BaseURL+c.path, nil)
		if c.key != "" {
			req.Header.Set("X-Api-Key", c.key)
		}
		start := time.Now()
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("GET %s: %v", c.path, err)
		}
		resp.Body.Close()
		if took := time.Since(start); took < 25*time.Millisecond {
			t.Errorf("GET %s answered in %s, want at least 30ms - 5ms", c.path, took)
		}
		if resp.StatusCode != c.want {
			t.Errorf("GET %s: %d, want %d", c.path, resp.StatusCode, c.want)
		}
	}
	oneLineError(t, exitUsage, "sandbox", "--no-control", "--clock", "virtual")
	oneLineError(t, exitUsage, "sandbox", "--latency", "-1ms")
}

func TestSandboxServesWritesProfileAndStopsOnSignal(t *testing.T) {
	p, sv, out := serveSandbox(t, "--clock", "virtual", "--seed", "7")
	req, _ := http.NewRequest("GET", p.BaseURL+"/api/v1/partner/me", nil)
	req.Header.Set("X-Api-Key", p.Keys.Tenant)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Errorf("GET /me on the served sandbox: %v %v", resp, err)
	}
	if resp != nil {
		resp.Body.Close()
	}
	sv.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-sv.exited:
		sv.exited <- err // for the cleanup
		if err != nil {
			t.Errorf("sandbox did not stop cleanly: %v\n%s", err, out.String())
		}
	case <-time.After(10 * time.Second):
		sv.cmd.Process.Kill()
		t.Fatal("sandbox did not stop within 10 s of SIGTERM")
	}
	if again := sandbox.New(sandbox.Config{Seed: 7}).Profile(p.BaseURL); again.Keys.Tenant != p.Keys.Tenant || again.Customers.Child != p.Customers.Child {
		t.Error("seeding is not deterministic for a given --seed")
	}
}

// syncBuffer is a bytes.Buffer written by a child process's copier and
// read by the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
