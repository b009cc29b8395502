package headers

// A raw HTTP/1.1 exchange, for the one request Go's HTTP client refuses to
// send: a header value holding a control character (0x7F).

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/touchstone-harness/touchstone/internal/check"
)

// rawResponse is what came back from a raw request.
type rawResponse struct {
	Status int
	Header http.Header
	Body   []byte
}

// rawGet sends GET path with the given extra header lines (already
// formatted "Name: value", sent byte for byte) and reads the response.
func rawGet(t *check.T, path string, lines ...string) *rawResponse {
	u, err := url.Parse(t.Profile().BaseURL)
	if err != nil {
		t.NoVerdict(err)
	}
	host := u.Host
	if u.Port() == "" {
		if u.Scheme == "https" {
			host += ":443"
		} else {
			host += ":80"
		}
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", host)
	if err != nil {
		t.NoVerdict(fmt.Errorf("raw request: %v", err))
	}
	defer conn.Close()
	if u.Scheme == "https" {
		cfg := &tls.Config{ServerName: u.Hostname(), MinVersion: tls.VersionTLS12}
		if tr, ok := t.Target().HTTP.Transport.(*http.Transport); ok && tr.TLSClientConfig != nil {
			cfg = tr.TLSClientConfig.Clone()
			cfg.ServerName = u.Hostname()
		}
		cfg.NextProtos = []string{"http/1.1"}
		tc := tls.Client(conn, cfg)
		if err := tc.HandshakeContext(ctx); err != nil {
			t.NoVerdict(fmt.Errorf("raw request: TLS: %v", err))
		}
		conn = tc
	}
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
	var b strings.Builder
	fmt.Fprintf(&b, "GET %s HTTP/1.1\r\nHost: %s\r\n", path, u.Host)
	for _, l := range lines {
		b.WriteString(l + "\r\n")
	}
	b.WriteString("Connection: close\r\n\r\n")
	if _, err := io.WriteString(conn, b.String()); err != nil {
		t.NoVerdict(fmt.Errorf("raw request: %v", err))
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.NoVerdict(fmt.Errorf("raw request: reading the response: %v", err))
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	t.Logf("raw GET %s → %d %s %s", path, resp.StatusCode, resp.Header.Get("Content-Type"), clip(body))
	return &rawResponse{Status: resp.StatusCode, Header: resp.Header, Body: body}
}
