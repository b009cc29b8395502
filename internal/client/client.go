// Package client is the harness's HTTP client for any target. It sends
// requests exactly as told (duplicate headers, odd bodies and all), stamps a
// case id on each, and records every exchange as evidence.
package client

import (
	"bytes"
	"cmp"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/touchstone-harness/touchstone/internal/traffic"
)

// CaseHeader carries the case id of the check that sent a request, so target
// logs can be matched with the report.
const CaseHeader = "X-Touchstone-Case"

// Transport builds the HTTP client every run uses: TLS verified by default,
// an optional extra CA bundle, and the standard proxy environment variables.
func Transport(caBundle string, timeout time.Duration, maxBody int64) (*http.Client, error) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = http.ProxyFromEnvironment
	tr.MaxIdleConnsPerHost = 64
	if caBundle != "" {
		pem, err := os.ReadFile(caBundle)
		if err != nil {
			return nil, fmt.Errorf("ca bundle: %v", err)
		}
		pool, err := x509.SystemCertPool()
		if err != nil || pool == nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("ca bundle %s: no PEM certificates found", caBundle)
		}
		tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}
	return &http.Client{
		Transport:     &LiveGuard{Next: &bodyBound{Next: tr, Max: cmp.Or(maxBody, DefaultMaxBody)}},
		Timeout:       timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}, nil
}

// Client sends requests to one target with one key.
type Client struct {
	BaseURL string
	// Key is the full API key; KeyName is its profile name ("tenant", ...),
	// used for the reproduction line's placeholder.
	Key, KeyName string
	// Bearer sends the key as Authorization: Bearer instead of X-Api-Key.
	Bearer bool
	HTTP   *http.Client
	// CaseID is stamped on every request in CaseHeader.
	CaseID string
	// Record receives every exchange.
	Record func(*Exchange)
}

// Request is one request as the check wants it sent.
type Request struct {
	Method string
	// Path is appended to BaseURL; it may carry a query string.
	Path   string
	Query  url.Values
	Header http.Header
	// Body is sent as is. JSON sets Body to the marshalled value and the
	// Content-Type to application/json.
	Body []byte
	JSON any
	// NoAuth sends no key; the check sets its own auth headers in Header.
	NoAuth bool
	// IdempotencyKey, when set, is sent as the Idempotency-Key header.
	IdempotencyKey string
	// ContentLength overrides the length (-1 sends chunked, unknown length).
	ContentLength *int64
	// KeyRefusal declares that the request is sent to be refused at the
	// key step (401, or 403 for a scope the key lacks), before the rate
	// limits: the traffic plan spends no route or tenant budget on it and
	// holds it behind no budget probe, only its failed authentication
	// (traffic.ExpectKeyRefusal).
	KeyRefusal bool
}

// With returns a copy of the client using another key.
func (c *Client) With(keyName, key string) *Client {
	cp := *c
	cp.Key, cp.KeyName = key, keyName
	return &cp
}

// Do sends a request and reads the whole response.
func (c *Client) Do(ctx context.Context, r Request) (*Response, error) {
	u := c.BaseURL + r.Path
	if len(r.Query) > 0 {
		sep := "?"
		if strings.Contains(u, "?") {
			sep = "&"
		}
		u += sep + r.Query.Encode()
	}
	body := r.Body
	header := http.Header{}
	if r.JSON != nil {
		b, err := json.Marshal(r.JSON)
		if err != nil {
			return nil, fmt.Errorf("encode body: %w", err)
		}
		body = b
		header.Set("Content-Type", "application/json")
	}
	if !r.NoAuth && c.Key != "" {
		if c.Bearer {
			header.Set("Authorization", "Bearer "+c.Key)
		} else {
			header.Set("X-Api-Key", c.Key)
		}
	}
	if r.IdempotencyKey != "" {
		header.Set("Idempotency-Key", r.IdempotencyKey)
	}
	if c.CaseID != "" {
		header.Set(CaseHeader, c.CaseID)
	}
	for k, vs := range r.Header {
		// Raw key form keeps non-canonical and duplicate headers as given.
		header[k] = append([]string(nil), vs...)
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	if r.KeyRefusal {
		ctx = traffic.ExpectKeyRefusal(ctx)
	}
	req, err := http.NewRequestWithContext(ctx, r.Method, u, rd)
	if err != nil {
		return nil, fmt.Errorf("build request: %w", err)
	}
	req.Header = header
	if err := guardOf(c.HTTP).permit(r.Method, header); err != nil {
		ex := &Exchange{Time: time.Now().UTC(), KeyName: c.KeyName, Error: err.Error(),
			Request: RequestRecord{Method: r.Method, URL: u, Header: header.Clone(), Body: body}}
		if c.Record != nil {
			c.Record(ex)
		}
		return nil, &TransportError{Err: err}
	}
	if r.ContentLength != nil {
		req.ContentLength = *r.ContentLength
		if *r.ContentLength < 0 && body != nil {
			req.Body = io.NopCloser(bytes.NewReader(body)) // hide the length: sent chunked
			req.ContentLength = -1
		}
	}
	ex := &Exchange{
		Time:    time.Now().UTC(),
		KeyName: c.KeyName,
		Request: RequestRecord{Method: r.Method, URL: u, Header: header.Clone(), Body: body},
	}
	start := time.Now()
	resp, err := c.HTTP.Do(req)
	if err != nil {
		ex.Duration = time.Since(start)
		ex.Error = err.Error()
		if c.Record != nil {
			c.Record(ex)
		}
		return nil, &TransportError{Err: err}
	}
	defer resp.Body.Close()
	rb, err := ReadBody(resp.Body)
	if err != nil && len(rb) > 64<<10 {
		rb = rb[:64<<10] // keep the head as evidence, not the whole flood
	}
	ex.Duration = time.Since(start)
	out := &Response{Status: resp.StatusCode, Header: resp.Header, Body: rb, Exchange: ex}
	ex.Response = &ResponseRecord{Status: resp.StatusCode, Header: resp.Header.Clone(), Body: rb}
	if err != nil {
		ex.Error = err.Error()
	}
	if c.Record != nil {
		c.Record(ex)
	}
	if err != nil {
		return nil, &TransportError{Err: err}
	}
	return out, nil
}

// TransportError means no HTTP response was read: the target is unreachable
// or broke the connection. The harness reports it as "no verdict".
type TransportError struct{ Err error }

func (e *TransportError) Error() string { return "transport: " + e.Err.Error() }
func (e *TransportError) Unwrap() error { return e.Err }

// Response is a fully read response.
type Response struct {
	Status   int
	Header   http.Header
	Body     []byte
	Exchange *Exchange
}

// ContentType returns the media type without parameters, lowercased.
func (r *Response) ContentType() string {
	ct := r.Header.Get("Content-Type")
	mt, _, _ := strings.Cut(ct, ";")
	return strings.ToLower(strings.TrimSpace(mt))
}

// JSON decodes the body into a generic value; numbers stay json.Number.
func (r *Response) JSON() (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(r.Body))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("body is not a JSON object: %v", err)
	}
	return m, nil
}

// Decode decodes the body into v.
func (r *Response) Decode(v any) error {
	if err := json.Unmarshal(r.Body, v); err != nil {
		return fmt.Errorf("decode %d body: %v", r.Status, err)
	}
	return nil
}

// guardOf returns the live-key guard of an HTTP client built by Transport.
// A client built elsewhere gets a guard that allows nothing live: the
// default is safe.
func guardOf(hc *http.Client) *LiveGuard {
	if hc != nil {
		if g, ok := hc.Transport.(*LiveGuard); ok {
			return g
		}
	}
	return &LiveGuard{}
}

// chain is what a client built by Transport holds below its guard: the
// HTTP transport (TLS settings), the body bound and the per-request
// timeout (the plan's, once Plan moved it there).
type chain struct {
	plan    *traffic.Transport
	http    *http.Transport
	maxBody int64
	timeout time.Duration
}

func chainOf(hc *http.Client) chain {
	c := chain{maxBody: DefaultMaxBody}
	if hc == nil {
		return c
	}
	c.timeout = hc.Timeout
	for rt := hc.Transport; rt != nil; {
		switch t := rt.(type) {
		case *LiveGuard:
			rt = t.Next
		case *traffic.Transport:
			c.plan = t
			rt = t.Next
		case *AttemptBound:
			c.timeout = cmp.Or(c.timeout, t.Timeout)
			rt = t.Next
		case *bodyBound:
			c.maxBody = t.Max
			rt = t.Next
		case *http.Transport:
			c.http = t
			rt = nil
		default:
			rt = nil
		}
	}
	return c
}

// Plan routes every request of an HTTP client built by Transport through a
// run's traffic plan, inside the live-key guard (a refused write spends
// nothing).
func Plan(hc *http.Client, p *traffic.Plan) {
	if g := guardOf(hc); g != nil {
		// The client's timeout bounds each attempt, inside the plan's
		// transport: the client's own would also cut the plan's waits.
		g.Next = &traffic.Transport{Plan: p, Next: &AttemptBound{Next: g.Next, Timeout: hc.Timeout}}
		hc.Timeout = 0
	}
}

// AllowLive opts an HTTP client built by Transport in to (or out of) writes
// with live keys.
func AllowLive(hc *http.Client, allow bool) {
	if g, ok := hc.Transport.(*LiveGuard); ok {
		g.SetAllow(allow)
	}
}
