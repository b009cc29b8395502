package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/redact"
	"github.com/touchstone-harness/touchstone/internal/traffic"
	"github.com/touchstone-harness/touchstone/reports"
)

// progress is the run's console while checks run: one progress line
// (area, done / total, failures so far, and what the run waits for and
// for how long), and each failure printed as it happens with its rule
// ids. On a terminal the line is redrawn in place; otherwise (CI logs) it
// is a plain line now and then, and a wait is announced when it starts
// and every waitEvery while it lasts, so a long wait never looks like a
// hang and the log holds no carriage returns.
type progress struct {
	w     io.Writer
	red   *redact.Redactor
	tty   bool
	pacer *traffic.Plan
	now   func() time.Time
	// plainEvery is how often a plain (non-terminal) progress line is
	// printed while checks run; waitEvery how often a wait is reported.
	plainEvery, waitEvery time.Duration

	mu                         sync.Mutex
	total, done, failed, nover int
	finished                   int // checks the pool has finished, in any order
	area                       string
	shown                      bool              // terminal: a progress line is on screen
	causeShown                 map[string]string // rule+reason -> first check that showed it
	lastPlain, lastWait        time.Time
	waitWhat                   string
	stop                       chan struct{}
	stopped                    chan struct{}
}

func newProgress(w io.Writer, red *redact.Redactor, total int, pacer *traffic.Plan) *progress {
	return &progress{w: w, red: red, tty: isTerminal(w), pacer: pacer, total: total, now: time.Now,
		plainEvery: 30 * time.Second, waitEvery: 15 * time.Second}
}

// isTerminal tells whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// start redraws (terminal) or reports (plain) until finish.
func (p *progress) start() {
	p.stop, p.stopped = make(chan struct{}), make(chan struct{})
	p.mu.Lock()
	p.lastPlain = p.now()
	p.mu.Unlock()
	tick := time.Second
	if p.tty {
		tick = 250 * time.Millisecond
	}
	go func() {
		defer close(p.stopped)
		t := time.NewTicker(tick)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-t.C:
				p.tick()
			}
		}
	}()
}

// finish stops the progress line and clears it from a terminal.
func (p *progress) finish() {
	if p.stop != nil {
		close(p.stop)
		<-p.stopped
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
}

func (p *progress) tick() {
	p.mu.Lock()
	defer p.mu.Unlock()
	what, left := p.waiting()
	if p.tty {
		p.draw()
		return
	}
	now := p.now()
	switch {
	case what != "" && (what != p.waitWhat || now.Sub(p.lastWait) >= p.waitEvery):
		p.waitWhat, p.lastWait, p.lastPlain = what, now, now
		p.writeLine(fmt.Sprintf("  … %s; %s", p.counts(), waitingFor(what, left)))
	case what == "" && now.Sub(p.lastPlain) >= p.plainEvery:
		p.waitWhat, p.lastPlain = "", now
		p.writeLine("  … " + p.counts())
	}
}

func (p *progress) waiting() (string, time.Duration) {
	if p.pacer == nil {
		return "", 0
	}
	return p.pacer.Waiting()
}

// counts is the progress line without the wait: area, done / total,
// failures so far.
func (p *progress) counts() string {
	s := fmt.Sprintf("%d/%d checks done, %d failed", max(p.done, p.finished), p.total, p.failed)
	if p.finished > p.done {
		// Results are reported in check-id order: some finished checks
		// wait for an earlier one (a failed-auth check waiting for its
		// window) before they are reported.
		s += fmt.Sprintf(" (%d reported in order)", p.done)
	}
	if p.nover > 0 {
		s += fmt.Sprintf(", %d no verdict", p.nover)
	}
	if p.area != "" {
		s = "[" + p.area + "] " + s
	}
	return s
}

// Line is the whole progress line.
func (p *progress) Line() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.line()
}

func (p *progress) line() string {
	s := p.counts()
	if what, left := p.waiting(); what != "" {
		s += "; " + waitingFor(what, left)
	}
	return s
}

// waitingFor says what the run waits for and, when known, how long (a
// wait for another check to end has no known length).
func waitingFor(what string, left time.Duration) string {
	if left < time.Second {
		return "waiting for " + what
	}
	return fmt.Sprintf("waiting %s for %s", left.Round(time.Second), what)
}

// draw redraws the terminal line in place. Callers hold mu.
func (p *progress) draw() {
	fmt.Fprint(p.w, "\r\x1b[K"+p.red.String(p.line()))
	p.shown = true
}

// clear removes the terminal line. Callers hold mu.
func (p *progress) clear() {
	if p.tty && p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.shown = false
	}
}

// writeLine prints whole lines above the progress line. Callers hold mu.
func (p *progress) writeLine(s string) {
	p.clear()
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		fmt.Fprintln(p.w, p.red.String(l))
	}
	if p.tty {
		p.draw()
	}
}

// Println prints lines above the progress line.
func (p *progress) Println(s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.writeLine(s)
}

// result counts a finished check and prints it when it failed or reached
// no verdict (passes and skips are in the summary and the reports).
func clipReason(s string) string {
	if len(s) > 160 {
		return s[:160] + "…"
	}
	return s
}

// seenCause returns the check that first showed r's failures when every
// one of them carries a reason already shown, else "". Callers hold mu.
func (p *progress) seenCause(r *check.Result) string {
	first := ""
	for _, f := range r.Failures {
		c := p.causeShown[f.Rule+"\x00"+f.Reason]
		if f.Reason == "" || c == "" {
			return ""
		}
		if first == "" {
			first = c
		}
	}
	return first
}

// finish counts a check the pool finished (before its turn to be
// reported comes).
func (p *progress) finish1() {
	p.mu.Lock()
	p.finished++
	p.mu.Unlock()
}

func (p *progress) result(r *check.Result, replay string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.area = r.Area
	if r.NotRun {
		return
	}
	p.done++
	var b strings.Builder
	switch r.Status {
	case check.Failed:
		p.failed++
		// A check whose every failure was already shown for an earlier
		// check (the same rule and reason: a header the target never
		// sends) gets one line naming that check, not its evidence again.
		if first := p.seenCause(r); first != "" {
			fmt.Fprintf(&b, "FAILED  %s [%s] (%s): the same violation as %s\n", r.ID, strings.Join(r.FailedRules(), ", "), r.Duration.Round(time.Millisecond), first)
			p.writeLine(b.String())
			return
		}
		fmt.Fprintf(&b, "FAILED  %s [%s] (%s)\n", r.ID, strings.Join(r.FailedRules(), ", "), r.Duration.Round(time.Millisecond))
	case check.Error:
		p.nover++
		fmt.Fprintf(&b, "NO VERDICT %s (%s)\n", r.ID, r.Duration.Round(time.Millisecond))
	default:
		if p.tty {
			p.draw()
		}
		return
	}
	for _, line := range strings.Split(reports.FailureText(r), "\n") {
		fmt.Fprintf(&b, "        %s\n", line)
	}
	if p.causeShown == nil {
		p.causeShown = map[string]string{}
	}
	for _, f := range r.Failures {
		if k := f.Rule + "\x00" + f.Reason; f.Reason != "" && p.causeShown[k] == "" {
			p.causeShown[k] = r.ID
		}
	}
	if r.Status == check.Failed && replay != "" {
		fmt.Fprintf(&b, "        replay: %s\n", replay)
	}
	p.writeLine(b.String())
}
