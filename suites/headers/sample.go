package headers

// A sample of responses across routes and statuses, shared by the key
// casing check (ENV-008) and the no-deprecation-headers check (VER-002).

import (
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"

	"github.com/google/uuid"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// sampled is one response with what produced it; v1 marks a response of
// the v1 surface (document 1: snake_case bodies).
type sampled struct {
	what string
	r    *client.Response
	v1   bool
}

// sampleReads sends reads and refusals that change nothing: successes on
// most v1 read routes and the utility paths, the v1 refusal shapes (400
// problem, 401, 403, 404 flat, 422 envelope, body-binding 400), a v2 read
// and refusal, the OpenAPI documents and CORS preflights.
//
// scopeRefusal adds the 403 of a key lacking the route's scope; the 401 is
// always sent. Each refusal is a failed authentication against the
// source's budget, so a check sends the second only when it proves
// something the first cannot.
func sampleReads(t *check.T, scopeRefusal bool) []sampled {
	tk := t.Client("tenant")
	var out []sampled
	add := func(what string, v1 bool, c *client.Client, r client.Request) {
		out = append(out, sampled{what, t.Do(c, r), v1})
	}
	getReq := func(path string, q url.Values) client.Request {
		return client.Request{Method: http.MethodGet, Path: path, Query: q}
	}
	ap := t.Customer("active_personal")
	cust := api.P + "/customers/" + ap

	add("GET /me", true, tk, getReq(api.P+"/me", nil))
	if t.Profile().Key("subject") != "" {
		add("GET /me (subject key)", true, t.Client("subject"), getReq(api.P+"/me", nil))
	}
	add("GET /customers", true, tk, getReq(api.P+"/customers", url.Values{"limit": {"5"}}))
	add("GET /customers/{id}", true, tk, getReq(cust, nil))
	add("GET onboarding/status", true, tk, getReq(cust+"/onboarding/status", nil))
	add("GET onboarding/kyc/status", true, tk, getReq(cust+"/onboarding/kyc/status", nil))
	add("GET onboarding/kyb/status of a person", true, tk, getReq(cust+"/onboarding/kyb/status", nil))
	add("GET onboarding/requirements", true, tk, getReq(api.P+"/onboarding/requirements", nil))
	add("GET onboarding/requirements?type=kyb", true, tk, getReq(api.P+"/onboarding/requirements", url.Values{"type": {"kyb"}}))
	if parent := t.Profile().CustomerMap()["parent"]; parent != "" {
		add("GET end-customers", true, tk, getReq(api.P+"/customers/"+parent+"/end-customers", nil))
		if child := t.Profile().CustomerMap()["child"]; child != "" {
			add("GET end-customers/{id}", true, tk, getReq(api.P+"/customers/"+parent+"/end-customers/"+child, nil))
		}
	}
	add("GET P/test", true, tk, getReq(api.P+"/test", nil))
	add("GET /api/public/partner/config", true, tk, getReq("/api/public/partner/config", nil))
	add("GET /api/v1/verification/callback", true, tk, getReq(api.Callback, nil))

	// Refusals.
	add("GET requirements of an unknown level (422)", true, tk, getReq(api.P+"/onboarding/requirements", url.Values{"level": {"ts-no-such-level"}}))
	add("GET an unknown customer (404)", true, tk, getReq(api.P+"/customers/"+uuid.NewString(), nil))
	add("GET /me with X-Tenant-Id (400)", true, tk, client.Request{Method: http.MethodGet, Path: api.P + "/me", Header: http.Header{"X-Tenant-Id": {uuid.NewString()}}})
	add("PATCH without Idempotency-Key (400)", true, tk, client.Request{Method: http.MethodPatch, Path: api.P + "/customers/" + uuid.NewString(), JSON: map[string]any{}})
	add("POST /customers with a body that does not bind (400)", true, tk, client.Request{Method: http.MethodPost, Path: api.P + "/customers", IdempotencyKey: t.NewKey(),
		Header: http.Header{"Content-Type": {"application/json"}}, Body: []byte(`{"email": ["not", "a", "string"], "jurisdiction": 7}`)})
	add("GET /me without a key (401)", true, t.Anonymous(), getReq(api.P+"/me", nil))
	if scopeRefusal && t.Profile().Key("read_only") != "" {
		add("PATCH with a read-only key (403)", true, t.Client("read_only"), client.Request{Method: http.MethodPatch, Path: cust, IdempotencyKey: t.NewKey(), JSON: map[string]any{}, KeyRefusal: true})
	}

	// Other surfaces (headers only).
	add("GET V2/customers", false, tk, getReq(api.V2+"/customers", url.Values{"limit": {"2"}}))
	add("POST V2/crm/leads without Idempotency-Key (400)", false, tk, client.Request{Method: http.MethodPost, Path: api.V2 + "/crm/leads", JSON: map[string]any{}})
	add("GET /openapi/v1.json", false, t.Anonymous(), getReq("/openapi/v1.json", nil))
	add("GET /openapi/v2public.json", false, t.Anonymous(), getReq("/openapi/v2public.json", nil))
	origins := []string{"https://ts-not-allowed.example.com"}
	if o := t.Profile().CORSAllowedOrigin; o != "" {
		origins = append(origins, o)
	}
	for _, o := range origins {
		add("CORS preflight from "+o, false, t.Anonymous(), client.Request{Method: http.MethodOptions, Path: api.P + "/me", NoAuth: true,
			Header: http.Header{"Origin": {o}, "Access-Control-Request-Method": {"GET"}}})
	}
	return out
}

// sampleWrites creates a customer and moves it through the v1 writes a
// fresh customer allows: create, PATCH, verification initiate and token,
// and the wrong-kind initiate (422).
func sampleWrites(t *check.T) []sampled {
	tk := t.Client("tenant")
	var out []sampled
	add := func(what string, r *client.Response) { out = append(out, sampled{what, r, true}) }
	email := fresh.Email()
	r := t.Do(tk, client.Request{Method: http.MethodPost, Path: api.P + "/customers", IdempotencyKey: t.NewKey(), JSON: map[string]any{"email": email, "jurisdiction": "GB"}})
	add("POST /customers", r)
	data := fresh.Success(t, "CUST-022", r)
	id, _ := data["id"].(string)
	if id == "" {
		t.NoVerdict(fmt.Errorf("POST /customers answered no data.id: %s", shape.Clip(r.Body)))
	}
	add("PATCH /customers/{id}", fresh.Patch(t, id, map[string]any{"display_name": "Touchstone Casing"}))
	kind, other := "kyc", "kyb"
	if data["user_type"] == "Business" {
		kind, other = "kyb", "kyc"
	}
	add("POST onboarding/"+kind+"/initiate", fresh.Initiate(t, id, kind))
	add("POST onboarding/"+kind+"/token", fresh.Token(t, id, kind))
	add("POST onboarding/"+other+"/initiate (wrong kind, 422)", fresh.Initiate(t, id, other))
	add("GET onboarding/status after initiate", t.Do(tk, client.Request{Method: http.MethodGet, Path: api.P + "/customers/" + id + "/onboarding/status"}))
	return out
}

var snakeKey = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// badKeys walks every member name of a decoded JSON value and returns the
// paths of those that are not snake_case. Exempt (ENV-010): the nested
// transparency object of a fiat withdrawal (camelCase by rule) and the
// keys of a body-binding problem's errors map (they name request fields;
// they are not member names of the response).
func badKeys(v any, path string, out *[]string) (names int) {
	switch x := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			e := x[k]
			names++
			p := path + "." + k
			if !snakeKey.MatchString(k) {
				*out = append(*out, p)
			}
			if k == "transparency" || (k == "errors" && path == "") {
				continue
			}
			names += badKeys(e, p, out)
		}
	case []any:
		for i, e := range x {
			names += badKeys(e, path+"["+strconv.Itoa(i)+"]", out)
		}
	}
	return names
}
