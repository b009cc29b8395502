// Command controladapter serves a chosen subset of Touchstone's control
// contract beside a build of the API (package adapter is the part to copy
// and map onto the build). For the rehearsal it stands in front of the
// sandbox's own control API and passes through only the chosen calls:
//
//	controladapter --upstream http://127.0.0.1:8080/_sandbox \
//	    --serve identity-provider,beneficiaries,fiat-outcomes,funds --addr 127.0.0.1:8090
//
// then point the profile's control_url at http://127.0.0.1:8090.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/touchstone-harness/touchstone/cmd/controladapter/adapter"
)

func main() {
	upstream := flag.String("upstream", "", "a control service serving the whole contract to pass the chosen calls to (the sandbox's http://HOST:PORT/_sandbox)")
	serve := flag.String("serve", "", "comma-separated groups (the contract's tags) and operation ids to serve")
	refuse := flag.String("refuse", "", "comma-separated operation ids to list as served but answer 501 (rehearses a build whose hook is broken)")
	addr := flag.String("addr", "127.0.0.1:8090", "listen address")
	urlOut := flag.String("url-out", "", "write the adapter's control URL to this file once it listens")
	flag.Parse()
	if err := run(*upstream, *serve, *refuse, *addr, *urlOut); err != nil {
		fmt.Fprintln(os.Stderr, "controladapter:", err)
		os.Exit(2)
	}
}

func run(upstream, serve, refuse, addr, urlOut string) error {
	ops, err := adapter.Select(strings.Split(serve, ","))
	if err != nil {
		return err
	}
	refused, err := adapter.Select(strings.Split(refuse, ","))
	if err != nil {
		return err
	}
	a, err := adapter.Rehearsal(upstream, append(ops, refused...))
	if err != nil {
		return err
	}
	for _, op := range refused {
		a.Refuse[op] = true
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	base := "http://" + ln.Addr().String()
	if urlOut != "" {
		if err := os.WriteFile(urlOut, []byte(base+"\n"), 0o644); err != nil {
			return err
		}
	}
	fmt.Printf("control adapter at %s serving %s\n", base, strings.Join(a.Served(), ", "))
	srv := &http.Server{Handler: a, ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
