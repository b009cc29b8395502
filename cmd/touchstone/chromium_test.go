package main

import (
	"bufio"
	"context"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// chromium finds a headless-capable Chromium, or skips.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no Chromium on PATH (Debian: apt-get install chromium); .ci/run installs it")
	return ""
}

// TestReportRendersInChromium opens a faulted run's report.html in
// headless Chromium with every request sent to a recording loopback proxy:
// the page renders, requests nothing from the network,
// its script runs (the rule filter counts the rows), its sections are
// there and the failure is visible.
func TestReportRendersInChromium(t *testing.T) {
	browser := chromium(t)
	out := t.TempDir()
	if _, _, code := touchstone(t, "run", "--fault", "idempotency-replay-not-byte-identical", "--focus", `\[idempotency/caller-separation`, "--out", out); code != exitFailed {
		t.Fatalf("faulted run: exit %d, want 1", code)
	}
	page, _ := filepath.Abs(filepath.Join(out, "report.html"))
	// Every request the page makes goes to a recording proxy on loopback
	// (and no name resolves), so a request the page makes is seen, not
	// merely refused.
	proxy := recordingProxy(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-quic",
		"--user-data-dir="+t.TempDir(), "--proxy-server=http://"+proxy.addr,
		"--proxy-bypass-list=<-loopback>", "--virtual-time-budget=5000", "--dump-dom", "file://"+page)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	dom, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	s := string(dom)
	for _, want := range []string{`id="verdict"`, "rules failed · not certifiable", `id="failures"`, `id="checks-by-area"`, "idempotency/caller-separation", "IDEM-", `id="rules"`, `id="properties"`, `id="load"`} {
		if !strings.Contains(s, want) {
			t.Errorf("the rendered page lacks %q", want)
		}
	}
	if !regexp.MustCompile(`\d+ of \d+ rules shown`).MatchString(s) {
		t.Error("the page's script did not run (no 'N of M rules shown')")
	}
	if got := proxy.pageRequests(); len(got) > 0 {
		t.Errorf("the page requested %d resource(s) from the network: %q", len(got), got)
	}
}

// proxyRecorder is a loopback HTTP proxy that answers nothing and records
// the first line of every request made through it.
type proxyRecorder struct {
	addr string
	mu   sync.Mutex
	seen []string
}

// browserOwnHosts are the services headless Chromium calls on its own
// (clock, component updates, sign-in) whatever the page; nothing the
// report names.
var browserOwnHosts = []string{"clients2.google.com", "update.googleapis.com", "accounts.google.com"}

// pageRequests are the recorded requests less the browser's own.
func (p *proxyRecorder) pageRequests() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
next:
	for _, line := range p.seen {
		for _, h := range browserOwnHosts {
			if strings.Contains(line, " "+h+":") || strings.Contains(line, "://"+h+"/") {
				continue next
			}
		}
		out = append(out, line)
	}
	return out
}

func recordingProxy(t *testing.T) *proxyRecorder {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	p := &proxyRecorder{addr: ln.Addr().String()}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				c.SetDeadline(time.Now().Add(5 * time.Second))
				line, _ := bufio.NewReader(io.LimitReader(c, 8<<10)).ReadString('\n')
				p.mu.Lock()
				p.seen = append(p.seen, strings.TrimSpace(line))
				p.mu.Unlock()
				io.WriteString(c, "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
			}()
		}
	}()
	return p
}

// TestLoadReportRendersInChromium opens load.html of a virtual-clock run in
// headless Chromium behind the recording proxy: the page renders with its
// four charts per probe (answers per second, windows vs the documented
// limits, percentiles over time, the HDR tail), says which clock its time
// axis is, and requests nothing from the network.
func TestLoadReportRendersInChromium(t *testing.T) {
	browser := chromium(t)
	out := t.TempDir()
	if o, e, code := touchstone(t, "load", "--probe", "route-budget,latency", "--latency-rate", "50", "--latency-duration", "1s", "--max-p99", "250ms", "--out", out); code != exitOK {
		t.Fatalf("load: exit %d\n%s\n%s", code, o, e)
	}
	page, _ := filepath.Abs(filepath.Join(out, "load.html"))
	proxy := recordingProxy(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	shot := filepath.Join(t.TempDir(), "load.png")
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-quic",
		"--user-data-dir=" + t.TempDir(), "--proxy-server=http://" + proxy.addr, "--proxy-bypass-list=<-loopback>", "--virtual-time-budget=5000"}
	cmd := exec.CommandContext(ctx, browser, append(args, "--dump-dom", "file://"+page)...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	dom, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	s := string(dom)
	if n := strings.Count(s, "<svg"); n != 8 {
		t.Errorf("the rendered page has %d charts, want 8 (four per probe)", n)
	}
	for _, want := range []string{"route-budget: answers per second", "route-budget: answers per clock-minute window and budget vs the documented limits",
		"latency: latency over time", "latency: tail latency by percentile (HDR histogram)", "this machine's send time", "documented: 600 per API key", "--max-p99 250ms"} {
		if !strings.Contains(s, want) {
			t.Errorf("the rendered page lacks %q", want)
		}
	}
	// And it paints: a screenshot is written.
	cmd = exec.CommandContext(ctx, browser, append(args, "--screenshot="+shot, "--window-size=1400,3000", "file://"+page)...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium screenshot: %v", err)
	}
	if fi, err := os.Stat(shot); err != nil || fi.Size() < 50<<10 {
		t.Errorf("screenshot of load.html: %v, %v bytes: nothing painted?", err, fi)
	}
	if got := proxy.pageRequests(); len(got) > 0 {
		t.Errorf("load.html requested %d resource(s) from the network: %q", len(got), got)
	}
}
