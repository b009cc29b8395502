package client

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// DoRaw sends one HTTP/1.1 request over a new connection with the header
// lines written byte for byte, for values Go's HTTP client refuses to send
// (a 0x7F in a header value). The key (X-Api-Key), the case id, the
// Content-Length and Connection: close are added as Do would; the exchange
// is recorded like any other.
func (c *Client) DoRaw(ctx context.Context, method, path string, header [][2]string, body []byte) (*Response, error) {
	u, err := url.Parse(c.BaseURL + path)
	if err != nil {
		return nil, err
	}
	host := u.Host
	if u.Port() == "" {
		port := "80"
		if u.Scheme == "https" {
			port = "443"
		}
		host = net.JoinHostPort(u.Hostname(), port)
	}
	var all [][2]string
	if c.Key != "" {
		all = append(all, [2]string{"X-Api-Key", c.Key})
	}
	if c.CaseID != "" {
		all = append(all, [2]string{CaseHeader, c.CaseID})
	}
	all = append(all, header...)
	if body != nil {
		all = append(all, [2]string{"Content-Length", strconv.Itoa(len(body))})
	}
	all = append(all, [2]string{"Connection", "close"})
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "%s %s HTTP/1.1\r\nHost: %s\r\n", method, u.RequestURI(), u.Host)
	rec := http.Header{}
	for _, h := range all {
		fmt.Fprintf(&buf, "%s: %s\r\n", h[0], h[1])
		rec[h[0]] = append(rec[h[0]], h[1])
	}
	buf.WriteString("\r\n")
	buf.Write(body)

	ex := &Exchange{Time: time.Now().UTC(), KeyName: c.KeyName, Request: RequestRecord{Method: method, URL: u.String(), Header: rec, Body: body}}
	fail := func(err error) (*Response, error) {
		ex.Error = err.Error()
		if c.Record != nil {
			c.Record(ex)
		}
		return nil, &TransportError{Err: err}
	}
	if err := guardOf(c.HTTP).permit(method, rec); err != nil {
		return fail(err)
	}
	start := time.Now()
	below := chainOf(c.HTTP)
	timeout := cmp.Or(below.timeout, 30*time.Second)
	if below.plan != nil {
		// Its budgets are the run's like any request's.
		req, err := http.NewRequestWithContext(ctx, method, u.String(), nil)
		if err != nil {
			return fail(err)
		}
		req.Header = rec
		if err := below.plan.Admit(req); err != nil {
			return fail(err)
		}
		start = time.Now()
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	d := net.Dialer{Timeout: 10 * time.Second}
	conn, err := d.DialContext(ctx, "tcp", host)
	if err != nil {
		return fail(err)
	}
	defer conn.Close()
	if u.Scheme == "https" {
		cfg := &tls.Config{ServerName: u.Hostname(), MinVersion: tls.VersionTLS12}
		if tr := below.http; tr != nil && tr.TLSClientConfig != nil {
			cfg = tr.TLSClientConfig.Clone()
			cfg.ServerName = u.Hostname()
		}
		cfg.NextProtos = []string{"http/1.1"}
		tc := tls.Client(conn, cfg)
		if err := tc.HandshakeContext(ctx); err != nil {
			return fail(err)
		}
		conn = tc
	}
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	if _, err := conn.Write(buf.Bytes()); err != nil {
		return fail(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return fail(err)
	}
	rb, err := ReadBody(&boundedBody{ReadCloser: resp.Body, max: below.maxBody})
	conn.Close() // before Body.Close, which would otherwise drain an endless body
	resp.Body.Close()
	if err != nil {
		return fail(err)
	}
	ex.Duration = time.Since(start)
	ex.Response = &ResponseRecord{Status: resp.StatusCode, Header: resp.Header.Clone(), Body: rb}
	if c.Record != nil {
		c.Record(ex)
	}
	return &Response{Status: resp.StatusCode, Header: resp.Header, Body: rb, Exchange: ex}, nil
}
