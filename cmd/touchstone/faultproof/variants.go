package faultproof

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/touchstone-harness/touchstone/fixtures/sandbox"
	"github.com/touchstone-harness/touchstone/internal/catalogue"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/shape"
	"github.com/touchstone-harness/touchstone/internal/webhooks/verify"
)

// Variant is a wrong server made from a faithful one: a loopback reverse
// proxy in front of a seeded sandbox that changes the answers of matching
// requests in one way (drops a header, changes a status or content type,
// removes or retypes a JSON field), so that exactly one rule is broken.
// The checks that name the rule must fail under its id; like a fault
// mode's, a variant's checks of other areas are not run, and a failure
// under a rule of another area is reported as imprecise.
type Variant struct {
	Name        string
	Rule        string
	Description string
	// Match selects the requests whose answers are changed (the control
	// API is never proxied).
	Match func(r *http.Request) bool
	// Change edits the answer in place.
	Change func(r *http.Request, a *Answer)
	// Deliver, when set, edits each webhook delivery the sandbox sends
	// (headers and body) before it reaches the check's receiver: the
	// proxy stands between the sandbox and the receiver too, and signs the
	// changed body again with the subscription's secret (read from the
	// register and rotation answers), so that only the changed part is
	// wrong.
	Deliver func(d *Delivery)
	// Unsigned leaves a changed delivery's signatures as the sandbox made
	// them (Deliver changes them itself); Resign signs every delivery
	// again after Deliver, changed or not (a header it changed is signed).
	Unsigned, Resign bool
	// Receiver, when set, changes the status the receiver answered a
	// delivery with, as the sandbox sees it.
	Receiver func(status int) int
}

// Delivery is a webhook delivery a variant may change.
type Delivery struct {
	Header http.Header
	Body   []byte
	// Secret is the secret the sandbox signed it with ("" when unknown);
	// Secrets every secret the subscription has had, oldest first.
	Secret  string
	Secrets []string
	// Drop: the delivery never reaches the receiver (the relay answers
	// the sandbox 200).
	Drop bool
}

// Answer is a proxied answer a variant may change; Request is the body of
// the request it answers.
type Answer struct {
	Status  int
	Header  http.Header
	Body    []byte
	Request []byte
}

// RequestJSON decodes the request body; nil when it is not a JSON object.
func (a *Answer) RequestJSON() map[string]any {
	var m map[string]any
	if json.Unmarshal(a.Request, &m) != nil {
		return nil
	}
	return m
}

type requestBodyKey struct{}

// JSON decodes the body (numbers kept exact); nil when it is not JSON.
func (a *Answer) JSON() any {
	d := json.NewDecoder(bytes.NewReader(a.Body))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return nil
	}
	return v
}

// SetJSON replaces the body with v.
func (a *Answer) SetJSON(v any) {
	raw, err := json.Marshal(v)
	if err == nil {
		a.Body = raw
	}
}

// EditJSON applies f to the decoded body and stores the result; a body
// that is not JSON is left as it is.
func (a *Answer) EditJSON(f func(v any) any) {
	if v := a.JSON(); v != nil {
		a.SetJSON(f(v))
	}
}

// ProveVariant runs the checks naming the variant's rule against a faithful
// sandbox seen through the variant. A check that does not pass through a
// proxy that changes nothing (ProxyBaseline: a request the proxy cannot
// forward as sent) neither proves a rule here nor stands by.
func ProveVariant(ctx context.Context, v Variant) Outcome {
	unfaithful := ProxyBaseline(ctx)
	o := Outcome{Fault: v.Name, Rule: v.Rule, Description: v.Description, Source: VariantSource + v.Name}
	var checks []*check.Check
	for _, c := range check.ForRule(v.Rule) {
		if runnable(c) && unfaithful[c.ID] == "" {
			checks = append(checks, c)
			o.Checks = append(o.Checks, c.ID)
		}
	}
	if len(checks) == 0 {
		o.Note = "no check names rule " + v.Rule + " and passes through the proxy"
		return o
	}
	return proveThrough(ctx, v, o, checks, unfaithful)
}

var (
	proxyOnce sync.Once
	proxyFail map[string]string
)

// noChange is the variant that changes nothing, deliveries included.
var noChange = Variant{Name: "no-change", Match: func(*http.Request) bool { return false }, Change: func(*http.Request, *Answer) {}, Deliver: func(*Delivery) {}}

// ProxyBaseline runs every runnable check once through a variant proxy
// that changes nothing and returns those that did not pass, with why:
// the proxy cannot forward them as sent (a header value Go's client
// refuses), so they prove nothing through a variant.
func ProxyBaseline(ctx context.Context) map[string]string {
	proxyOnce.Do(func() {
		proxyFail = map[string]string{}
		var all []*check.Check
		for _, c := range check.All() {
			if runnable(c) {
				all = append(all, c)
			}
		}
		err := withVariant(ctx, noChange, func(tgt *check.Target) {
			for _, c := range all {
				res := check.Run(ctx, tgt, c)
				if res.Status == check.Failed || res.Status == check.Error {
					proxyFail[c.ID] = fmt.Sprintf("%s %s", res.Status, res.Summary())
				}
			}
		})
		if err != nil {
			for _, c := range all {
				proxyFail[c.ID] = err.Error()
			}
		}
	})
	return proxyFail
}

// proveThrough runs checks (and the bystanders not in unfaithful) through
// the variant.
func proveThrough(ctx context.Context, v Variant, o Outcome, checks []*check.Check, unfaithful map[string]string) Outcome {
	if len(checks) == 0 {
		return o
	}
	err := withVariant(ctx, v, func(tgt *check.Target) {
		for _, c := range checks {
			o.record(c, check.Run(ctx, tgt, c))
		}
		o.runBystanders(ctx, tgt, unfaithful)
	})
	if err != nil {
		o.Note = err.Error()
	}
	o.finish()
	return o
}

// withVariant starts a faithful sandbox behind the variant's proxy and
// calls f with the target it makes.
func withVariant(ctx context.Context, v Variant, f func(tgt *check.Target)) error {
	run, err := sandbox.StartVirtual(1, "")
	if err != nil {
		return fmt.Errorf("sandbox did not start: %v", err)
	}
	defer run.Close()
	vs := newVariantServer(run.BaseURL, v)
	// The proxy listens as the sandbox does: Go's server would answer a
	// request with DEL in a header value itself (text/plain 400), so a
	// check sending one (headers/correlation-non-visible-refused) could
	// not pass through; rewritten as the sandbox's listener rewrites it,
	// the sandbox refuses it as documented.
	srv := httptest.NewUnstartedServer(vs)
	srv.Listener = sandbox.DELListener(srv.Listener)
	srv.Start()
	defer srv.Close()
	vs.self = srv.URL
	p := *run.Profile
	p.BaseURL = srv.URL
	if v.Deliver != nil && p.ControlURL != "" {
		// The control API passes the proxy too, which points the
		// sandbox's deliveries at itself.
		p.ControlURL = strings.Replace(p.ControlURL, run.BaseURL, srv.URL, 1)
	}
	tgt, err := check.NewTarget(ctx, &p, true)
	if err != nil {
		return fmt.Errorf("target: %v", err)
	}
	f(tgt)
	return nil
}

// variantServer forwards to the sandbox, changing the answers the variant
// matches, and relays the sandbox's webhook deliveries to the check's
// receiver, changed by the variant's Deliver.
type variantServer struct {
	v    Variant
	rp   *httputil.ReverseProxy
	self string // the proxy's own URL

	mu       sync.Mutex
	receiver string              // the check's receiver
	secrets  map[string][]string // by subscription id, newest last
	hashes   map[string]string   // payload hash sent by the sandbox -> of the body relayed
}

const relayPath = "/__relay"

func newVariantServer(base string, v Variant) *variantServer {
	vs := &variantServer{v: v, secrets: map[string][]string{}, hashes: map[string]string{}}
	vs.rp = variantProxy(base, v, vs.noteAnswer)
	return vs
}

func (vs *variantServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case vs.v.Deliver != nil && (r.URL.Path == relayPath || strings.HasPrefix(r.URL.Path, relayPath+"/")):
		vs.relay(w, r)
	case vs.v.Deliver != nil && r.Method == http.MethodPost && r.URL.Path == sandbox.ControlPrefix+"/webhooks/receiver":
		var body map[string]any
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		u, _ := body["url"].(string)
		vs.mu.Lock()
		vs.receiver = strings.TrimRight(u, "/")
		vs.mu.Unlock()
		body["url"] = vs.self + relayPath
		raw, _ := json.Marshal(body)
		r.Body = io.NopCloser(bytes.NewReader(raw))
		r.ContentLength = int64(len(raw))
		r.Header.Set("Content-Length", strconv.Itoa(len(raw)))
		vs.rp.ServeHTTP(w, r)
	default:
		if vs.v.Match != nil && r.Body != nil && vs.v.Match(r) {
			raw, err := io.ReadAll(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(raw))
			r = r.WithContext(context.WithValue(r.Context(), requestBodyKey{}, raw))
		}
		vs.rp.ServeHTTP(w, r)
	}
}

// noteAnswer keeps the secrets of register and rotation answers and gives
// a delivery-attempts answer the hashes of the bodies relayed.
func (vs *variantServer) noteAnswer(req *http.Request, body []byte) []byte {
	if strings.HasSuffix(req.URL.Path, "/delivery-attempts") {
		vs.mu.Lock()
		for old, now := range vs.hashes {
			body = bytes.ReplaceAll(body, []byte(old), []byte(now))
		}
		vs.mu.Unlock()
		return body
	}
	vs.noteSecret(req, body)
	return body
}

// noteSecret keeps the secrets of register and rotation answers.
func (vs *variantServer) noteSecret(req *http.Request, body []byte) {
	var m map[string]any
	if json.Unmarshal(body, &m) != nil {
		return
	}
	if d, ok := m["data"].(map[string]any); ok {
		m = d
	}
	secret, _ := m["secret"].(string)
	if secret == "" {
		return
	}
	id, _ := m["subscriptionId"].(string)
	if id == "" {
		parts := strings.Split(req.URL.Path, "/")
		for i, p := range parts {
			if p == "webhook-subscriptions" && i+1 < len(parts) {
				id = parts[i+1]
			}
		}
	}
	vs.mu.Lock()
	vs.secrets[id] = append(vs.secrets[id], secret)
	vs.mu.Unlock()
}

// relay passes one delivery on to the receiver, changed by the variant.
func (vs *variantServer) relay(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	vs.mu.Lock()
	receiver := vs.receiver
	secrets := append([]string(nil), vs.secrets[r.Header.Get(verify.HeaderDeliveryID)]...)
	vs.mu.Unlock()
	d := &Delivery{Header: r.Header.Clone(), Body: body, Secrets: secrets}
	for i := len(secrets) - 1; i >= 0; i-- {
		if verify.Delivery(r.Header, body, secrets[i], verify.Options{Tolerance: 1 << 62}).SignatureOK() {
			d.Secret = secrets[i]
			break
		}
	}
	vs.v.Deliver(d)
	if d.Drop {
		w.WriteHeader(http.StatusOK)
		return
	}
	if d.Secret != "" && (vs.v.Resign || !vs.v.Unsigned && !bytes.Equal(d.Body, body)) {
		sign(d)
	}
	if !bytes.Equal(d.Body, body) {
		// The attempts log reports the hash of what was posted.
		old, now := sha256.Sum256(body), sha256.Sum256(d.Body)
		vs.mu.Lock()
		vs.hashes[hex.EncodeToString(old[:])] = hex.EncodeToString(now[:])
		vs.mu.Unlock()
	}
	target := receiver + strings.TrimPrefix(r.URL.Path, relayPath)
	if r.URL.RawQuery != "" {
		target += "?" + r.URL.RawQuery
	}
	req, err := http.NewRequestWithContext(r.Context(), http.MethodPost, target, bytes.NewReader(d.Body))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	req.Header = d.Header
	req.Header.Del("Content-Length")
	resp, err := relayClient.Do(req)
	if err != nil {
		// The receiver did not answer (a deadline the sandbox gave up
		// on): the sandbox sees the connection end.
		if hj, ok := w.(http.Hijacker); ok {
			if c, _, err := hj.Hijack(); err == nil {
				_ = c.Close()
				return
			}
		}
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, vv := range resp.Header {
		w.Header()[k] = vv
	}
	status := resp.StatusCode
	if vs.v.Receiver != nil {
		status = vs.v.Receiver(status)
	}
	w.WriteHeader(status)
	_, _ = io.Copy(w, resp.Body)
}

var relayClient = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// sign signs a changed delivery's body again, both header families, with
// its secret (document 2, Events / Signatures).
func sign(d *Delivery) { signWith(d, []byte(d.Secret)) }

// variantProxy forwards to base, changing the answers v matches; note
// sees every answer's body first.
func variantProxy(base string, v Variant, note func(*http.Request, []byte) []byte) *httputil.ReverseProxy {
	u, _ := url.Parse(base)
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.ModifyResponse = func(resp *http.Response) error {
		req := resp.Request
		if strings.HasPrefix(req.URL.Path, sandbox.ControlPrefix) {
			return nil
		}
		if v.Deliver != nil && strings.Contains(req.URL.Path, "webhook-subscriptions") {
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				return err
			}
			body = note(req, body)
			resp.Body = io.NopCloser(bytes.NewReader(body))
			resp.ContentLength = int64(len(body))
			resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
		}
		if v.Match == nil || !v.Match(req) {
			return nil
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		a := &Answer{Status: resp.StatusCode, Header: resp.Header, Body: body}
		a.Request, _ = req.Context().Value(requestBodyKey{}).([]byte)
		v.Change(req, a)
		resp.StatusCode = a.Status
		resp.Status = strconv.Itoa(a.Status) + " " + http.StatusText(a.Status)
		resp.Header = a.Header
		resp.Header.Set("Content-Length", strconv.Itoa(len(a.Body)))
		resp.ContentLength = int64(len(a.Body))
		resp.Body = io.NopCloser(bytes.NewReader(a.Body))
		return nil
	}
	return rp
}

// Variants are the wrong-server variants, each breaking one rule: one per
// code-to-status sentence of the error catalogue, then the table of
// variants.go's hand-written ones.
func Variants() []Variant {
	var out []Variant
	for _, cs := range catalogue.MustLoad().CodeStatuses() {
		out = append(out, codeStatusVariant(cs))
	}
	out = append(out, variants...)
	out = append(out, apiVariants...)
	out = append(out, moreVariants...)
	out = append(out, extraVariants...)
	out = append(out, areaVariants...)
	return append(out, eventVariants...)
}

// codeStatusVariant answers the code with another status (409, or 422 for
// a 409 code), the body's status member changed with it: only the
// sentence giving the code its status is broken.
func codeStatusVariant(cs catalogue.CodeStatus) Variant {
	other := http.StatusConflict
	if cs.Status == http.StatusConflict {
		other = http.StatusUnprocessableEntity
	}
	// A sentence that names the method it is about ("(PATCH)") gives the
	// code its status there only: the answers to other methods keep theirs.
	match := func(*http.Request) bool { return true }
	desc := fmt.Sprintf("%s answered %d instead of %d", cs.Code, other, cs.Status)
	if r := catalogue.MustLoad().Rule(cs.Rule); r != nil && strings.Contains(r.Rule, "(PATCH)") {
		match = func(req *http.Request) bool { return req.Method == http.MethodPatch }
		desc += " (on PATCH)"
	}
	return Variant{
		Name:        "status-of-" + cs.Code + "-" + strings.ToLower(cs.Rule),
		Rule:        cs.Rule,
		Description: desc,
		Match:       match,
		Change: func(_ *http.Request, a *Answer) {
			if a.Status != cs.Status || answerCode(a) != cs.Code {
				return
			}
			a.Status = other
			a.EditJSON(func(v any) any {
				m, ok := v.(map[string]any)
				if !ok {
					return v
				}
				for _, k := range []string{"status_code", "status"} {
					if _, ok := m[k]; ok {
						m[k] = other
					}
				}
				return m
			})
		},
	}
}

// answerCode is the code an error answer carries (envelope data.code, or
// the flat or problem+json code member).
func answerCode(a *Answer) string {
	m, ok := a.JSON().(map[string]any)
	if !ok {
		return ""
	}
	return shape.CodeIn(m)
}

var variants []Variant
