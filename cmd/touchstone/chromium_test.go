package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
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

// pageVisit is what one headless Chromium visit of a local page saw.
type pageVisit struct {
	// Version is the browser's own product string ("Chrome/156.0...").
	Version string
	// DOM is the document's markup once its scripts have run.
	DOM string
	// Screenshot is a PNG of the viewport, when asked for.
	Screenshot []byte
	// Outside are the page's own references to anything but itself: every
	// request its frames sent (the DevTools protocol's network events of
	// the page's target, so the browser's own traffic is not among them)
	// and every load its Content-Security-Policy refused (a page that
	// breaks its own policy is broken too), as "URL (how)".
	Outside []string
}

// violationsScript runs in every frame before the page's own scripts and
// keeps the loads the page's Content-Security-Policy refused: a refused
// load sends no request, and is still a reference to outside the page.
const violationsScript = `window.__touchstoneRefused = [];
document.addEventListener('securitypolicyviolation', e => window.__touchstoneRefused.push(e.blockedURI + ' (refused by the page\'s CSP: ' + e.effectiveDirective + ')'));`

// visitPage opens the file in headless Chromium under DevTools control,
// lets its scripts and timers run, and returns what the page did. The
// browser is pointed at a loopback proxy that answers nothing, so neither
// a request of the page nor one the browser makes on its own (which
// today's Chromium does despite --disable-background-networking) leaves
// the machine; only the page's requests are judged.
func visitPage(t *testing.T, chrome, file string, screenshot bool) pageVisit {
	t.Helper()
	proxy := recordingProxy(t)
	home := t.TempDir()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chrome), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.UserDataDir(t.TempDir()),
		chromedp.ProxyServer("http://"+proxy.addr), chromedp.Flag("proxy-bypass-list", "<-loopback>"),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-quic", true),
		// Frames stay in the page's process, so their requests are events of
		// the page's target.
		chromedp.Flag("disable-site-isolation-trials", true),
		chromedp.Flag("disable-features", "Translate,BlinkGenPropertyTrees,IsolateOrigins,site-per-process"),
		chromedp.WindowSize(1400, 3000), chromedp.Env("HOME="+home))
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	defer cancelAlloc()
	pageURL := "file://" + file
	var mu sync.Mutex
	var sent []string
	tab, cancelTab := chromedp.NewContext(alloc, chromedp.WithListener(func(ev any) {
		if e, ok := ev.(*network.EventRequestWillBeSent); ok && e.Request != nil {
			mu.Lock()
			sent = append(sent, e.Request.URL+" ("+string(e.Type)+" request)")
			mu.Unlock()
		}
	}))
	defer cancelTab()
	version, err := chromedp.CallBrowser(tab, browser.GetVersion, struct{}{})
	if err != nil {
		t.Fatalf("chromium %s: %v", chrome, err)
	}
	v := pageVisit{Version: version.Product}
	t.Logf("page test in %s (%s)", v.Version, chrome)
	if _, err := chromedp.Call(tab, network.Enable, network.EnableParams{}); err != nil {
		t.Fatalf("chromium: Network.enable: %v", err)
	}
	if _, err := chromedp.Call(tab, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: violationsScript}); err != nil {
		t.Fatalf("chromium: Page.addScriptToEvaluateOnNewDocument: %v", err)
	}
	// Navigate returns at the load event: the page's scripts have run; its
	// timers get a second more to ask for anything.
	if err := chromedp.Do(tab, chromedp.Navigate(pageURL), chromedp.Sleep(time.Second)); err != nil {
		t.Fatalf("chromium: open %s: %v", pageURL, err)
	}
	if v.DOM, err = chromedp.Run(tab, chromedp.Evaluate[string](`document.documentElement.outerHTML`)); err != nil {
		t.Fatalf("chromium: read the DOM: %v", err)
	}
	refused, err := chromedp.Run(tab, chromedp.Evaluate[[]string](`window.__touchstoneRefused || []`))
	if err != nil {
		t.Fatalf("chromium: read the refused loads: %v", err)
	}
	if screenshot {
		if v.Screenshot, err = chromedp.Run(tab, chromedp.CaptureScreenshot()); err != nil {
			t.Fatalf("chromium: screenshot: %v", err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for _, s := range sent {
		u, _, _ := strings.Cut(s, " (")
		if u == pageURL || strings.HasPrefix(u, "data:") || strings.HasPrefix(u, "blob:") || strings.HasPrefix(u, "about:") {
			continue
		}
		v.Outside = append(v.Outside, s)
	}
	v.Outside = append(v.Outside, refused...)
	t.Logf("through the loopback proxy, the page's requests and the browser's own (not judged): %s", proxy)
	return v
}

// TestReportRendersInChromium opens a faulted run's report.html in
// headless Chromium: the page renders, references nothing outside itself,
// its script runs (the rule filter counts the rows), its sections are
// there and the failure is visible.
func TestReportRendersInChromium(t *testing.T) {
	chrome := chromium(t)
	out := t.TempDir()
	if _, _, code := touchstone(t, "run", "--fault", "idempotency-replay-not-byte-identical", "--focus", `\[idempotency/caller-separation`, "--out", out); code != exitFailed {
		t.Fatalf("faulted run: exit %d, want 1", code)
	}
	file, _ := filepath.Abs(filepath.Join(out, "report.html"))
	v := visitPage(t, chrome, file, false)
	for _, want := range []string{`id="verdict"`, "rules failed · not certifiable", `id="failures"`, `id="checks-by-area"`, "idempotency/caller-separation", "IDEM-", `id="rules"`, `id="properties"`, `id="load"`} {
		if !strings.Contains(v.DOM, want) {
			t.Errorf("the rendered page lacks %q", want)
		}
	}
	if !regexp.MustCompile(`\d+ of \d+ rules shown`).MatchString(v.DOM) {
		t.Error("the page's script did not run (no 'N of M rules shown')")
	}
	if len(v.Outside) > 0 {
		t.Errorf("report.html references %d resource(s) outside itself: %q", len(v.Outside), v.Outside)
	}
}

// TestLoadReportRendersInChromium opens load.html of a virtual-clock run in
// headless Chromium: the page renders with its four charts per probe
// (answers per second, windows vs the documented limits, percentiles over
// time, the HDR tail), says which clock its time axis is, paints, and
// references nothing outside itself.
func TestLoadReportRendersInChromium(t *testing.T) {
	chrome := chromium(t)
	out := t.TempDir()
	if o, e, code := touchstone(t, "load", "--probe", "route-budget,latency", "--latency-rate", "50", "--latency-duration", "1s", "--max-p99", "250ms", "--out", out); code != exitOK {
		t.Fatalf("load: exit %d\n%s\n%s", code, o, e)
	}
	file, _ := filepath.Abs(filepath.Join(out, "load.html"))
	v := visitPage(t, chrome, file, true)
	if n := strings.Count(v.DOM, "<svg"); n != 8 {
		t.Errorf("the rendered page has %d charts, want 8 (four per probe)", n)
	}
	for _, want := range []string{"route-budget: answers per second", "route-budget: answers per clock-minute window and budget vs the documented limits",
		"latency: latency over time", "latency: tail latency by percentile (HDR histogram)", "this machine's send time", "documented: 600 per API key", "--max-p99 250ms"} {
		if !strings.Contains(v.DOM, want) {
			t.Errorf("the rendered page lacks %q", want)
		}
	}
	if len(v.Screenshot) < 50<<10 {
		t.Errorf("screenshot of load.html: %d bytes: nothing painted?", len(v.Screenshot))
	}
	if len(v.Outside) > 0 {
		t.Errorf("load.html references %d resource(s) outside itself: %q", len(v.Outside), v.Outside)
	}
}

// TestPageVisitSeesOutsideReferences proves the judge of the two tests
// above: a page that references things outside itself (an image, a
// style sheet, a script, a fetch, a frame) is caught, each reference
// named, and so is one its Content-Security-Policy refuses (the report
// pages carry `default-src 'none'`, under which a reference sends no
// request but is still a page that needs the network).
func TestPageVisitSeesOutsideReferences(t *testing.T) {
	chrome := chromium(t)
	dir := t.TempDir()
	// .invalid never resolves, and the proxy answers every request on
	// loopback: nothing leaves the machine.
	open := `<!doctype html><html><head><link rel="stylesheet" href="http://touchstone.invalid/style.css">
<script src="http://touchstone.invalid/app.js"></script></head>
<body><img src="http://touchstone.invalid/pixel.png"><iframe src="http://touchstone.invalid/frame.html"></iframe>
<script>setTimeout(() => fetch('http://touchstone.invalid/beacon').catch(() => {}), 100)</script></body></html>`
	csp := `<!doctype html><html><head><meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
</head><body><img src="http://touchstone.invalid/logo.png"><p>self-contained but for the logo</p></body></html>`
	self := `<!doctype html><html><head><meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<style>p{color:#333}</style></head><body><p id="x">self-contained</p><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw="><script>document.getElementById('x').textContent += ', scripted'</script></body></html>`
	for name, body := range map[string]string{"open.html": open, "csp.html": csp, "self.html": self} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := visitPage(t, chrome, filepath.Join(dir, "open.html"), false).Outside
	for _, want := range []string{"/style.css", "/app.js", "/pixel.png", "/frame.html", "/beacon"} {
		if !slices.ContainsFunc(got, func(s string) bool { return strings.Contains(s, "http://touchstone.invalid"+want) }) {
			t.Errorf("a page referencing http://touchstone.invalid%s: the judge saw %q", want, got)
		}
	}
	got = visitPage(t, chrome, filepath.Join(dir, "csp.html"), false).Outside
	if !slices.ContainsFunc(got, func(s string) bool { return strings.Contains(s, "http://touchstone.invalid/logo.png") }) {
		t.Errorf("a page whose CSP refuses its outside image: the judge saw %q", got)
	}
	v := visitPage(t, chrome, filepath.Join(dir, "self.html"), false)
	if len(v.Outside) > 0 || !strings.Contains(v.DOM, "self-contained, scripted") {
		t.Errorf("a self-contained page: outside %q, script ran: %v", v.Outside, strings.Contains(v.DOM, "scripted"))
	}
}

// proxyRecorder is a loopback HTTP proxy that answers nothing and records
// the first line of every request made through it: the browser's only
// way out, so that nothing it sends leaves the machine.
type proxyRecorder struct {
	addr string
	mu   sync.Mutex
	seen []string
}

func (p *proxyRecorder) String() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return fmt.Sprintf("%q", p.seen)
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
