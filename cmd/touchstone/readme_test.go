package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// The README's commands run here, as written, against the embedded sandbox,
// so the README cannot drift from the tool. A command block is a fenced
// ```sh block or an indented block of touchstone commands. Each block runs
// in a fresh directory holding my-sandbox.json, the profile of a sandbox
// this test starts for the block (the stand-in for "your own sandbox");
// $PWD is that directory. `go run ./cmd/touchstone` and `touchstone` run the
// binary built by TestMain; `go test` and `go tool` run in the module root
// (`go test ./...` is this very run and is not repeated). A command ending
// in `&` runs in the background until the block ends, then gets SIGINT and
// must exit 0; the next command waits for it to be ready (the file
// `--profile-out` names, or the `--addr` it listens on). A line whose
// comment says "real time" waits on real clock minutes and runs only with
// TOUCHSTONE_SLOW=1. `go tool` may read `< FILE` and write `> FILE` of the
// block's directory, and its file arguments (globs included) are found
// there. Every other command must exit 0.

// readmeBlock is one block of commands and the README line it starts on.
type readmeBlock struct {
	line int
	text string
}

// readmeBlocks reads the command blocks of README.md.
func readmeBlocks(t *testing.T) []readmeBlock {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var out []readmeBlock
	var cur *readmeBlock
	fenced, fencedSh, prevBlank := false, false, true
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, "```"):
			if fenced {
				fenced, fencedSh = false, false
				cur = nil
			} else {
				fenced, fencedSh = true, strings.TrimPrefix(trimmed, "```") == "sh"
			}
		case fenced:
			if fencedSh {
				if cur == nil {
					out = append(out, readmeBlock{line: n})
					cur = &out[len(out)-1]
				}
				cur.text += line + "\n"
			}
		case strings.HasPrefix(line, "    ") && trimmed != "" && (cur != nil || prevBlank):
			if cur == nil {
				if !strings.HasPrefix(trimmed, "touchstone ") && !strings.HasPrefix(trimmed, "export ") {
					break
				}
				out = append(out, readmeBlock{line: n})
				cur = &out[len(out)-1]
			}
			cur.text += trimmed + "\n"
		default:
			cur = nil
		}
		prevBlank = trimmed == ""
	}
	return out
}

func TestReadmeBlocksAreFound(t *testing.T) {
	blocks := readmeBlocks(t)
	var all strings.Builder
	for _, b := range blocks {
		all.WriteString(b.text)
	}
	for _, want := range []string{"go run ./cmd/touchstone ", "go test ./...", "touchstone receive "} {
		if !strings.Contains(all.String(), want) {
			t.Errorf("no README command block holds %q; blocks:\n%s", want, all.String())
		}
	}
}

func TestReadmeCommands(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range readmeBlocks(t) {
		t.Run(fmt.Sprintf("README.md:%d", b.line), func(t *testing.T) {
			runReadmeBlock(t, root, b)
		})
	}
}

// readmeShell is the state of one block: its directory and exported variables.
type readmeShell struct {
	t     *testing.T
	root  string
	dir   string
	env   map[string]string
	bg    []*exec.Cmd
	ready func() error
}

func runReadmeBlock(t *testing.T, root string, b readmeBlock) {
	file, err := syntax.NewParser().Parse(strings.NewReader(b.text), "README.md")
	if err != nil {
		t.Fatalf("README.md:%d: the block does not parse as shell: %v", b.line, err)
	}
	sh := &readmeShell{t: t, root: root, dir: t.TempDir(), env: map[string]string{}}
	sh.env["PWD"] = sh.dir
	if strings.Contains(b.text, "my-sandbox.json") {
		p, _, _ := serveSandbox(t, "--clock", "virtual")
		writeProfileAt(t, filepath.Join(sh.dir, "my-sandbox.json"), p)
	}
	lines := strings.Split(b.text, "\n")
	defer sh.stopBackground()
	for _, st := range file.Stmts {
		n := int(st.Pos().Line())
		src := lines[n-1]
		where := fmt.Sprintf("README.md:%d", b.line+n-1)
		if _, comment, ok := strings.Cut(src, "#"); ok && strings.Contains(comment, "real time") && os.Getenv("TOUCHSTONE_SLOW") != "1" {
			t.Logf("%s: %q waits on real clock minutes: runs with TOUCHSTONE_SLOW=1", where, strings.TrimSpace(src))
			continue
		}
		sh.statement(where, st)
	}
}

func writeProfileAt(t *testing.T, path string, p any) {
	t.Helper()
	if err := os.Rename(writeProfile(t, p), path); err != nil {
		t.Fatal(err)
	}
}

func (sh *readmeShell) environ() expand.Environ {
	pairs := os.Environ()
	for k, v := range sh.env {
		pairs = append(pairs, k+"="+v)
	}
	return expand.ListEnviron(pairs...)
}

func (sh *readmeShell) statement(where string, st *syntax.Stmt) {
	t := sh.t
	cfg := &expand.Config{Env: sh.environ()}
	switch c := st.Cmd.(type) {
	case *syntax.DeclClause:
		if c.Variant.Value != "export" {
			t.Fatalf("%s: %s: teach readme_test.go this declaration", where, c.Variant.Value)
		}
		for _, a := range c.Args {
			v, err := expand.Literal(cfg, a.Value)
			if err != nil {
				t.Fatalf("%s: %v", where, err)
			}
			sh.env[a.Name.Value] = v
		}
	case *syntax.CallExpr:
		cfg.ReadDir2 = os.ReadDir // globs match in the block's directory ($PWD)
		callEnv := map[string]string{}
		for _, a := range c.Assigns {
			v, err := expand.Literal(cfg, a.Value)
			if err != nil {
				t.Fatalf("%s: %v", where, err)
			}
			callEnv[a.Name.Value] = v
		}
		args, err := expand.Fields(cfg, c.Args...)
		if err != nil {
			t.Fatalf("%s: %v", where, err)
		}
		if len(args) > 0 && args[0] == "echo" {
			sh.echo(where, cfg, args[1:], st.Redirs)
			return
		}
		var rio readmeIO
		for _, r := range st.Redirs {
			name, err := expand.Literal(cfg, r.Word)
			if err != nil {
				t.Fatalf("%s: %v", where, err)
			}
			switch {
			case r.Op == syntax.RdrIn && rio.stdin == "" && r.N == nil:
				rio.stdin = name
			case r.Op == syntax.RdrOut && rio.stdout == "" && r.N == nil:
				rio.stdout = name
			default:
				t.Fatalf("%s: teach readme_test.go the redirection %s of %q", where, r.Op, strings.Join(args, " "))
			}
		}
		if (rio.stdin != "" || rio.stdout != "") && !(len(args) >= 2 && args[0] == "go" && args[1] == "tool") {
			t.Fatalf("%s: redirections are taught for `go tool` only, not %q", where, strings.Join(args, " "))
		}
		sh.call(where, st.Background, callEnv, args, rio)
	default:
		t.Fatalf("%s: %T: teach readme_test.go this kind of statement", where, st.Cmd)
	}
}

// echo writes its words to the one file its `>` names, in the block's
// directory (how the README writes a small input file).
func (sh *readmeShell) echo(where string, cfg *expand.Config, words []string, redirs []*syntax.Redirect) {
	if len(redirs) != 1 || redirs[0].Op != syntax.RdrOut {
		sh.t.Fatalf("%s: echo is taught only as `echo TEXT > FILE`", where)
	}
	name, err := expand.Literal(cfg, redirs[0].Word)
	if err != nil {
		sh.t.Fatalf("%s: %v", where, err)
	}
	if err := os.WriteFile(filepath.Join(sh.dir, name), []byte(strings.Join(words, " ")+"\n"), 0o644); err != nil {
		sh.t.Fatalf("%s: %v", where, err)
	}
}

// readmeIO are a command's `< FILE` and `> FILE`, relative to the block's
// directory.
type readmeIO struct{ stdin, stdout string }

// call runs one command; servers and commands ending in & run in the
// background until the block ends. `go tool` runs in the module root (its
// tools are declared in go.mod): its arguments naming files of the block's
// directory, and its redirections, are resolved there.
func (sh *readmeShell) call(where string, background bool, callEnv map[string]string, args []string, rio readmeIO) {
	t := sh.t
	var cmd *exec.Cmd
	switch {
	case len(args) >= 3 && args[0] == "go" && args[1] == "run" && args[2] == "./cmd/touchstone":
		cmd = sh.touchstone(args[3:])
	case len(args) >= 1 && args[0] == "touchstone":
		cmd = sh.touchstone(args[1:])
	case len(args) == 3 && args[0] == "go" && args[1] == "test" && args[2] == "./...":
		t.Logf("%s: `go test ./...` is this run", where)
		return
	case len(args) >= 2 && args[0] == "go" && (args[1] == "test" || args[1] == "tool"):
		goArgs := append([]string(nil), args[1:]...)
		if args[1] == "tool" {
			for i, a := range goArgs {
				if p := filepath.Join(sh.dir, a); !filepath.IsAbs(a) && !strings.HasPrefix(a, "-") && fileExists(p) {
					goArgs[i] = p
				}
			}
		}
		cmd = exec.Command("go", goArgs...)
		cmd.Dir = sh.root
	default:
		t.Fatalf("%s: %q: teach readme_test.go how to run this command", where, strings.Join(args, " "))
	}
	cmd.Env = os.Environ()
	for k, v := range sh.env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	for k, v := range callEnv {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	if sh.ready != nil {
		if err := waitFor(30*time.Second, sh.ready); err != nil {
			t.Fatalf("%s: the background command before it never got ready: %v", where, err)
		}
		sh.ready = nil
	}
	var out lockedBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if rio.stdin != "" {
		cmd.Stdin = sh.redirect(where, "<", rio.stdin, os.Open)
	}
	if rio.stdout != "" {
		cmd.Stdout = sh.redirect(where, ">", rio.stdout, os.Create)
	}
	if background || isServer(args) {
		if err := cmd.Start(); err != nil {
			t.Fatalf("%s: %v", where, err)
		}
		sh.bg = append(sh.bg, cmd)
		sh.ready = readiness(cmd.Dir, cmd.Args[1:])
		t.Cleanup(func() {
			if t.Failed() {
				t.Logf("%s (background) output:\n%s", where, tail(out.String()))
			}
		})
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("%s: %q: %v\n%s", where, strings.Join(args, " "), err, tail(out.String()))
		}
	case <-ctx.Done():
		cmd.Process.Kill()
		<-done
		t.Fatalf("%s: %q still running after 5 min\n%s", where, strings.Join(args, " "), tail(out.String()))
	}
}

// isServer: the commands that serve until interrupted (the README runs
// them in the foreground of a terminal of their own, or with &).
func isServer(args []string) bool {
	cmd := args
	if len(cmd) >= 3 && cmd[0] == "go" && cmd[1] == "run" {
		cmd = cmd[3:]
	} else if len(cmd) >= 1 {
		cmd = cmd[1:]
	}
	return len(cmd) > 0 && (cmd[0] == "sandbox" || cmd[0] == "receive")
}

// touchstone is the binary with args, run in the block's directory. An
// --addr HOST:PORT with a fixed port gets a free port instead (CI machines
// may hold the README's example port).
func (sh *readmeShell) touchstone(args []string) *exec.Cmd {
	args = append([]string(nil), args...)
	for i := 0; i+1 < len(args); i++ {
		if args[i] == "--addr" && !strings.HasSuffix(args[i+1], ":0") {
			args[i+1] = freeLoopbackAddr(sh.t)
		}
	}
	cmd := exec.Command(binary, args...)
	cmd.Dir = sh.dir
	return cmd
}

// redirect opens the file a redirection op names in the block's
// directory, for as long as the test runs.
func (sh *readmeShell) redirect(where, op, name string, open func(string) (*os.File, error)) *os.File {
	f, err := open(filepath.Join(sh.dir, name))
	if err != nil {
		sh.t.Fatalf("%s: %s %s: %v", where, op, name, err)
	}
	sh.t.Cleanup(func() { f.Close() })
	return f
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func freeLoopbackAddr(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// readiness says when a background command can be used: its profile file
// exists, or else its address accepts connections.
func readiness(dir string, args []string) func() error {
	for i := 0; i+1 < len(args); i++ {
		if args[i] == "--profile-out" {
			path := args[i+1]
			if !filepath.IsAbs(path) {
				path = filepath.Join(dir, path)
			}
			return func() error {
				fi, err := os.Stat(path)
				if err == nil && fi.Size() == 0 {
					return fmt.Errorf("%s is empty", path)
				}
				return err
			}
		}
	}
	for i := 0; i+1 < len(args); i++ {
		if args[i] == "--addr" {
			addr := args[i+1]
			return func() error {
				c, err := net.DialTimeout("tcp", addr, time.Second)
				if err == nil {
					c.Close()
				}
				return err
			}
		}
	}
	return nil
}

func waitFor(limit time.Duration, ready func() error) error {
	deadline := time.Now().Add(limit)
	for {
		err := ready()
		if err == nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stopBackground interrupts the block's background commands: each must
// stop cleanly (exit 0) within 10 s.
func (sh *readmeShell) stopBackground() {
	for _, cmd := range sh.bg {
		if sh.ready != nil {
			if err := waitFor(30*time.Second, sh.ready); err != nil {
				sh.t.Errorf("background %q never got ready: %v", cmd.Args, err)
			}
			sh.ready = nil
		}
		cmd.Process.Signal(syscall.SIGINT)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				sh.t.Errorf("background %q did not stop cleanly on SIGINT: %v", cmd.Args, err)
			}
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
			sh.t.Errorf("background %q still running 10 s after SIGINT", cmd.Args)
		}
	}
}
