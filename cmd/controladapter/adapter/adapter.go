// Package adapter serves a chosen subset of Touchstone's control contract
// (internal/controlcontract/contract.json) beside a build of the API, mapping each
// call onto what that build can do. It is the worked example a platform
// team copies: replace Passthrough with handlers that call the build's
// own test hooks (an admin endpoint, a database fixture, a stubbed
// provider), one per operation the build can honour, and list them.
//
// It always serves the reads of the control service itself: the clock
// (GET /clock: {"now", "virtual"}), what it serves (GET /capabilities)
// and the contract cut to what it serves (GET /openapi.json). Every other
// call it does not serve answers 501 with the operation id, so that
// Touchstone, which reads /capabilities first, never sends it one.
package adapter

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/touchstone-harness/touchstone/internal/controlcontract"
)

// Handler sets one world fact on the build: the call's operation, its
// path below the control URL (with the ids it names) and its JSON body
// are in r. It answers as the contract says (200 with JSON; 400, 404
// "no such <resource>" or 409 with {"error": "..."}).
type Handler func(w http.ResponseWriter, r *http.Request, op controlcontract.Operation)

// Adapter is an http.Handler serving the operations it has handlers for.
type Adapter struct {
	handlers map[string]Handler
	// Refuse are operations listed as served that answer 501 anyway (a
	// build whose hook is broken): for rehearsing that path.
	Refuse map[string]bool
	// Clock answers GET /clock when no handler is given for readClock: a
	// real clock (the build's own time).
	Clock func() time.Time
}

// New serves ops with their handlers (operation id -> handler).
func New(handlers map[string]Handler) *Adapter {
	return &Adapter{handlers: handlers, Refuse: map[string]bool{}, Clock: time.Now}
}

// Served are the operation ids the adapter serves, sorted.
func (a *Adapter) Served() []string {
	out := []string{"readCapabilities", "readClock", "readContract"}
	for id := range a.handlers {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out
}

func (a *Adapter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	op, ok := controlcontract.OperationOf(r.Method, r.URL.Path)
	switch {
	case !ok:
		answer(w, http.StatusNotImplemented, map[string]any{"error": fmt.Sprintf("not served: %s %s is no call of the control contract", r.Method, r.URL.Path)})
	case a.Refuse[op.ID]:
		answer(w, http.StatusNotImplemented, map[string]any{"error": "not served: " + op.ID + " (refused by this build)"})
	case a.handlers[op.ID] != nil:
		a.handlers[op.ID](w, r, op)
	case op.ID == "readCapabilities":
		answer(w, http.StatusOK, controlcontract.Capabilities{Contract: controlcontract.Name, Version: controlcontract.Version(), Operations: a.Served()})
	case op.ID == "readContract":
		a.serveContract(w)
	case op.ID == "readClock":
		answer(w, http.StatusOK, map[string]any{"now": a.Clock().UTC().Format(time.RFC3339Nano), "virtual": false})
	default:
		answer(w, http.StatusNotImplemented, map[string]any{"error": "not served: " + op.ID})
	}
}

// serveContract answers the contract cut to the operations served.
func (a *Adapter) serveContract(w http.ResponseWriter) {
	var doc map[string]any
	if err := json.Unmarshal(controlcontract.Document(), &doc); err != nil {
		answer(w, http.StatusInternalServerError, map[string]any{"error": err.Error()})
		return
	}
	served := a.Served()
	paths, _ := doc["paths"].(map[string]any)
	for p, item := range paths {
		ops, _ := item.(map[string]any)
		for m, o := range ops {
			if id, _ := o.(map[string]any)["operationId"].(string); !slices.Contains(served, id) {
				delete(ops, m)
			}
		}
		if len(ops) == 0 {
			delete(paths, p)
		}
	}
	answer(w, http.StatusOK, doc)
}

func answer(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// Passthrough is the rehearsal's mapping: the call goes unchanged to a
// control service that serves the whole contract (the sandbox's own
// /_sandbox), so that only the chosen calls reach it. A build maps a call
// onto its own hooks instead.
func Passthrough(upstream string) (Handler, error) {
	u, err := url.Parse(strings.TrimRight(upstream, "/"))
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("upstream %q: want an absolute http(s) URL", upstream)
	}
	proxy := &httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) {
		pr.SetURL(u)
		pr.Out.URL.Path = u.Path + pr.In.URL.Path
		pr.Out.URL.RawPath = ""
	}}
	return func(w http.ResponseWriter, r *http.Request, _ controlcontract.Operation) {
		// The body is read whole first (a control call's is small): a
		// proxied body read again after the answer began can cut the
		// answer (golang/go#40747; README, "Behind a reverse proxy").
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			answer(w, http.StatusBadRequest, map[string]any{"error": "body: " + err.Error()})
			return
		}
		r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		proxy.ServeHTTP(w, r)
	}, nil
}

// Select resolves a list of groups (the contract's tags: "funds",
// "identity-provider", ...) and operation ids to operation ids.
func Select(names []string) ([]string, error) {
	var out []string
	for _, n := range names {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		found := false
		for _, o := range controlcontract.Operations() {
			if o.ID == n || o.Group == n {
				found = true
				if !slices.Contains(out, o.ID) {
					out = append(out, o.ID)
				}
			}
		}
		if !found {
			return nil, fmt.Errorf("%q is neither an operation id nor a group of the control contract", n)
		}
	}
	sort.Strings(out)
	return out, nil
}

// Rehearsal serves ops by passing them through to upstream; readClock is
// passed through too, so that a virtual upstream clock reads as virtual.
func Rehearsal(upstream string, ops []string) (*Adapter, error) {
	pass, err := Passthrough(upstream)
	if err != nil {
		return nil, err
	}
	hs := map[string]Handler{"readClock": pass}
	for _, op := range ops {
		hs[op] = pass
	}
	return New(hs), nil
}
