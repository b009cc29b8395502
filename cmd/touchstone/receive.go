package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/touchstone-harness/touchstone/internal/redact"
	"github.com/touchstone-harness/touchstone/internal/webhooks/verify"
)

func init() {
	commands["receive"] = command{summary: "receive webhook deliveries and verify each one (run behind your public endpoint)", run: runReceive}
}

// runReceive serves a webhook receiver that verifies every delivery with the
// subscription secret read from an environment variable, until SIGINT or
// SIGTERM: 200 to a delivery that verifies in full, a 4xx to every other
// (verify.Refusal).
func runReceive(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("receive", "--addr HOST:PORT --secret-env NAME [--tolerance DURATION] [--out FILE]", stdout)
	addr := fs.String("addr", "", "listen address, e.g. 127.0.0.1:9000 (port 0 picks a free port)")
	secretEnv := fs.String("secret-env", "", "name of the environment variable holding the subscription secret (never printed)")
	tolerance := fs.Duration("tolerance", verify.DefaultTolerance, "replay tolerance: largest accepted distance between X-Webhook-Timestamp and this machine's clock")
	out := fs.String("out", "", "append one JSON object per delivery to this file")
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	if *addr == "" || *secretEnv == "" {
		fmt.Fprintln(stderr, "touchstone receive: --addr and --secret-env are required")
		return exitUsage
	}
	if *tolerance <= 0 {
		fmt.Fprintln(stderr, "touchstone receive: --tolerance must be positive")
		return exitUsage
	}
	secret := os.Getenv(*secretEnv)
	if secret == "" {
		fmt.Fprintf(stderr, "touchstone receive: environment variable %s is empty or unset\n", *secretEnv)
		return exitUsage
	}
	var outFile *os.File
	if *out != "" {
		f, err := os.OpenFile(*out, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			fmt.Fprintf(stderr, "touchstone receive: --out: %v\n", err)
			return exitUsage
		}
		defer f.Close()
		outFile = f
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(stderr, "touchstone receive: cannot listen on %s: %v\n", *addr, err)
		return exitUsage
	}

	// The secret is masked in every form (escaped, encoded) before a line
	// is printed or written.
	red := redact.New(secret)
	var (
		mu                           sync.Mutex
		total, passed, failed, dupes int
		refused                      = map[int]int{} // failed deliveries by the 4xx answered
		writeErr                     error
	)
	rc := &verify.Receiver{
		Secret:  func(*http.Request) string { return secret },
		Options: verify.Options{Tolerance: *tolerance},
		OnRecord: func(r verify.Record) {
			mu.Lock()
			defer mu.Unlock()
			total++
			if r.Verdict == "pass" {
				passed++
			} else {
				failed++
			}
			if r.Duplicate {
				dupes++
			}
			if r.Status/100 == 4 {
				refused[r.Status]++
			}
			fmt.Fprintln(stdout, deliveryLine(r, red))
			if outFile != nil && writeErr == nil {
				// Masked before JSON escapes it ('<' as "\u003c").
				r.Reasons = append([]string(nil), r.Reasons...)
				r.Failures = append([]verify.Failure(nil), r.Failures...)
				red.Value(&r)
				b, err := json.Marshal(r)
				if err == nil {
					_, err = outFile.Write(append(red.Bytes(b), '\n'))
				}
				if err != nil {
					writeErr = err
					fmt.Fprintf(stderr, "touchstone receive: --out: %v (no more lines written)\n", err)
				}
			}
		},
	}
	srv := &http.Server{Handler: rc, ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	fmt.Fprintf(stdout, "receiving webhook deliveries on http://%s (tolerance %s, secret from $%s); Ctrl-C to stop\n", ln.Addr(), *tolerance, *secretEnv)

	code := exitOK
	select {
	case <-ctx.Done():
	case err := <-served:
		if !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintf(stderr, "touchstone receive: %v\n", err)
			code = exitNoVerdict
		}
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = srv.Shutdown(shutdown)
	mu.Lock()
	defer mu.Unlock()
	fmt.Fprintf(stdout, "stopped: %d deliveries, %d pass, %d fail%s, %d duplicates\n", total, passed, failed, answered(refused), dupes)
	if writeErr != nil && code == exitOK {
		code = exitNoVerdict
	}
	return code
}

// deliveryLine is the one line printed per delivery: verdict, status, event
// type, X-Webhook-Id, attempt id, duplicate flag and each failed rule, on one line.
func deliveryLine(r verify.Record, red *redact.Redactor) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %d event=%s webhook_id=%s attempt_id=%s", strings.ToUpper(r.Verdict), r.Status,
		orDash(r.EventType), orDash(r.EventID), orDash(r.AttemptID))
	if r.Duplicate {
		b.WriteString(" duplicate")
	}
	if len(r.Reasons) > 0 {
		b.WriteString(" failed: " + strings.Join(r.Reasons, "; "))
	}
	// Header values are echoed in reasons (quoted, so escaped); a secret
	// sent back in a header must still never be printed.
	return red.String(b.String())
}

// answered is " (N answered 401, M answered 400)", by status, or "".
func answered(byStatus map[int]int) string {
	codes := make([]int, 0, len(byStatus))
	for c := range byStatus {
		codes = append(codes, c)
	}
	sort.Sort(sort.Reverse(sort.IntSlice(codes)))
	var parts []string
	for _, c := range codes {
		parts = append(parts, fmt.Sprintf("%d answered %d", byStatus[c], c))
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
