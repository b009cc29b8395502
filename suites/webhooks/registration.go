package webhooks

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"regexp"
	"slices"
	"strings"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// secretRE is the documented secret: a 10-character product prefix ending
// in whsec_, then 44 base64 characters (54 in all).
var secretRE = regexp.MustCompile(`^[^\s]{4}whsec_[A-Za-z0-9+/]{43}[A-Za-z0-9+/=]$`)

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// refusals asserts registration 400s (WHM-017: neither code nor body shape
// asserted) and, once for all of them, that no endpoint with a refused URL
// was created: the subscription list is unpaged and grows with every run a
// target serves, so a check reads it once, not once per refusal.
type refusals struct {
	rules, urls []string
}

// refused400 asserts the 400 and notes url (if any) for none.
func (rs *refusals) refused400(t *check.T, rule string, r *client.Response, url, what string) {
	shape.StatusAnswer(t, r, shape.Want{Rule: rule, Status: http.StatusBadRequest, What: what})
	if url != "" {
		rs.rules, rs.urls = append(rs.rules, rule), append(rs.urls, url)
	}
}

// none reads the subject's list once: no refused URL may be in it.
func (rs *refusals) none(t *check.T) {
	if len(rs.urls) == 0 {
		return
	}
	r := t.Do(t.Client("subject"), client.Request{Method: http.MethodGet, Path: fresh.Subscriptions})
	shape.StatusAnswer(t, r, shape.Want{Rule: rs.rules[0], Status: http.StatusOK})
	listed := map[any]bool{}
	for _, it := range items(t, rs.rules[0], r) {
		listed[it["url"]] = true
	}
	for i, u := range rs.urls {
		if listed[u] {
			t.Fatalf(rs.rules[i], "a registration with url %s was refused with 400 but an endpoint with that url exists", u)
		}
	}
}

// listed returns the subscription with the url from the key's list, or nil.
func listed(t *check.T, rule, key, url string) map[string]any {
	r := t.Do(t.Client(key), client.Request{Method: http.MethodGet, Path: fresh.Subscriptions})
	shape.StatusAnswer(t, r, shape.Want{Rule: rule, Status: http.StatusOK})
	for _, it := range items(t, rule, r) {
		if it["url"] == url {
			return it
		}
	}
	return nil
}

// items reads the unpaged list: a JSON array, or an object holding one array
// member (the list's shape is not shown).
func items(t *check.T, rule string, r *client.Response) []map[string]any {
	var raw any
	if err := r.Decode(&raw); err != nil {
		t.FatalAt(r, rule, "list body: %v", err)
	}
	var arr []any
	switch v := raw.(type) {
	case []any:
		arr = v
	case map[string]any:
		for _, m := range v {
			if a, ok := m.([]any); ok {
				if arr != nil {
					t.FatalAt(r, rule, "list object has more than one array member")
				}
				arr = a
			}
		}
		if arr == nil {
			t.FatalAt(r, rule, "list object has no array member")
		}
	default:
		t.FatalAt(r, rule, "list body is neither an array nor an object")
	}
	out := make([]map[string]any, 0, len(arr))
	for _, a := range arr {
		m, ok := a.(map[string]any)
		if !ok {
			t.FatalAt(r, rule, "list item is not an object: %v", a)
		}
		out = append(out, m)
	}
	return out
}

// mixedEventTypes are two known event types, one sent in mixed case and
// again in the canonical spelling.
var mixedEventTypes = []string{"KYC.Approved", "kyc.approved", "customer.created"}

func register(t *check.T, body map[string]any) *client.Response {
	return fresh.Register(t, "subject", body)
}

// registrationChecks are the checks of registration.go.
func registrationChecks() []check.Check {
	return []check.Check{
		{
			ID:     "webhooks/register-response",
			Title:  "POST webhook-subscriptions answers 201 with the documented camelCase members, the secret once and its SHA-256",
			Rules:  []string{"WHM-001", "WHM-002", "WHM-003", "WHM-011", "WHM-012", "WHM-013", "WHM-015", "WHM-034", "WHM-036"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.subject", "webhook_url"},
			Run: func(t *check.T) {
				url := fresh.WebhookURL(t)
				r := register(t, map[string]any{"url": url, "eventTypes": []string{"customer.created"}})
				shape.StatusAnswer(t, r, shape.Want{Rule: "WHM-003", Status: http.StatusCreated})
				shape.ContentType(t, "WHM-002", r, shape.JSON)
				m := shape.Object(t, "WHM-002", r)
				id := shape.String(t, "WHM-012", m, "subscriptionId")
				defer fresh.DisableSubscription(t, "subject", id)
				// Members named otherwise are WHM-001's failure: the members
				// judged below would be missing for that reason.
				for _, k := range []string{"success", "status_code", "data", "subscription_id", "event_types", "secret_sha256", "max_attempts", "secret_version", "updated_at"} {
					if _, ok := m[k]; ok {
						t.FatalAt(r, "WHM-001", "the register response has member %q; bodies are camelCase and not wrapped in the v1 envelope", k)
					}
				}
				if !uuidRE.MatchString(id) {
					t.ErrorAt(r, "WHM-012", "subscriptionId %q is not a uuid", id)
				}
				if m["url"] != url {
					t.ErrorAt(r, "WHM-012", "url is %v, want %s", m["url"], url)
				}
				if types := shape.Array(t, "WHM-012", m, "eventTypes"); len(types) != 1 || types[0] != "customer.created" {
					t.ErrorAt(r, "WHM-012", "eventTypes is %v, want [customer.created]", types)
				}
				if m["enabled"] != true {
					t.ErrorAt(r, "WHM-015", "enabled is %v, want true for a new subscription", m["enabled"])
				}
				if v := shape.Int(t, "WHM-012", m, "secretVersion"); v != 1 {
					t.ErrorAt(r, "WHM-015", "secretVersion is %d, want 1 for a new subscription", v)
				}
				if ts := shape.String(t, "WHM-012", m, "updatedAt"); !timestampRE.MatchString(ts) {
					t.ErrorAt(r, "WHM-012", "updatedAt %q is not an ISO 8601 timestamp", ts)
				}
				if n, ok := m["maxAttempts"]; ok && n != nil && shape.Int(t, "WHM-034", m, "maxAttempts") != 5 {
					t.ErrorAt(r, "WHM-034", "maxAttempts omitted: the subscription reports %v, want 5 (or null)", n)
				}
				secret := shape.String(t, "WHM-003", m, "secret")
				if len(secret) != 54 || !secretRE.MatchString(secret) {
					t.ErrorAt(r, "WHM-036", "the secret (length %d) is not a 10-character prefix ending in whsec_ followed by 44 base64 characters", len(secret))
				}
				if got := shape.String(t, "WHM-013", m, "secretSha256"); got != sha256Hex(secret) {
					t.ErrorAt(r, "WHM-013", "secretSha256 %s is not the lowercase hex SHA-256 of the returned secret", got)
				}
				// maxAttempts is an integer or null in the request.
				for _, n := range []any{nil, 3} {
					r := register(t, map[string]any{"url": fresh.WebhookURL(t), "eventTypes": []string{"customer.created"}, "maxAttempts": n})
					if !shape.StatusAnswer(t, r, shape.Want{Rule: "WHM-011", Status: http.StatusCreated, What: "register with maxAttempts " + jsonText(n), Why: "an integer or null is accepted", Continue: true}) {
						continue
					}
					if id, _ := shape.Object(t, "WHM-011", r)["subscriptionId"].(string); id != "" {
						fresh.DisableSubscription(t, "subject", id)
					}
				}
			},
		},
		{
			ID:     "webhooks/register-refuses-url",
			Title:  "Registration refuses a URL that is not absolute https, longer than 2048 characters or carrying credentials (400); 2048 is accepted",
			Rules:  []string{"WHM-016", "WHM-018", "WHM-019"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.subject", "webhook_url"},
			Run: func(t *check.T) {
				base := fresh.WebhookURL(t)
				body := func(u string) map[string]any {
					return map[string]any{"url": u, "eventTypes": []string{"customer.created"}}
				}
				var rs refusals
				httpURL := "http://" + strings.TrimPrefix(base, "https://")
				rs.refused400(t, "WHM-016", register(t, body(httpURL)), httpURL, "an http:// url")
				rs.refused400(t, "WHM-016", register(t, body("/relative/hook")), "", "a relative url")
				cred := "https://user:password@" + strings.TrimPrefix(base, "https://")
				rs.refused400(t, "WHM-019", register(t, body(cred)), "", "a url with user:password@")
				long := base + "/" + strings.Repeat("a", 2048-len(base)-1)
				rs.refused400(t, "WHM-018", register(t, body(long+"b")), "", "a url of 2049 characters")
				rs.none(t)
				r := register(t, body(long))
				shape.StatusAnswer(t, r, shape.Want{Rule: "WHM-018", Status: http.StatusCreated})
				fresh.DisableSubscription(t, "subject", shape.String(t, "WHM-018", shape.Object(t, "WHM-018", r), "subscriptionId"))
			},
		},
		{
			ID:     "webhooks/register-refuses-non-public",
			Title:  "Registration refuses localhost, loopback, private, carrier-grade NAT, link-local, multicast and reserved destinations, literal or resolved (400)",
			Rules:  []string{"WHM-020", "WHM-021", "WHM-022", "WHM-023", "WHM-024"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.subject"},
			Run: func(t *check.T) {
				cases := []struct{ rule, host string }{
					{"WHM-020", "localhost"}, {"WHM-020", "127.0.0.1"}, {"WHM-020", "[::1]"},
					{"WHM-021", "10.1.2.3"}, {"WHM-021", "172.16.5.4"}, {"WHM-021", "192.168.1.1"},
					{"WHM-022", "100.64.0.1"},
					{"WHM-023", "169.254.169.254"}, {"WHM-023", "224.0.0.1"}, {"WHM-023", "240.0.0.1"}, {"WHM-023", "0.0.0.0"},
					// A public name that resolves to a non-public address:
					// localtest.me resolves to 127.0.0.1 in public DNS.
					{"WHM-024", "localtest.me"},
				}
				var rs refusals
				for _, c := range cases {
					u := "https://" + c.host + "/hooks/" + t.NewKey()
					rs.refused400(t, c.rule, register(t, map[string]any{"url": u, "eventTypes": []string{"customer.created"}}), u, "destination "+c.host)
				}
				rs.none(t)
			},
		},
		{
			ID:     "webhooks/register-refuses-event-types",
			Title:  "Registration refuses empty, unsupported and wildcard eventTypes (400); a known type in mixed case, repeated, is accepted (201)",
			Rules:  []string{"WHM-029", "WHM-030", "WHM-031", "WHM-032"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.subject", "webhook_url"},
			Run: func(t *check.T) {
				var rs refusals
				for _, c := range []struct {
					rule  string
					types []string
				}{
					{"WHM-029", []string{}},
					{"WHM-030", []string{"customer.exploded"}},
					{"WHM-032", []string{"*"}},
					{"WHM-032", []string{"deposit.*"}},
				} {
					u := fresh.WebhookURL(t)
					rs.refused400(t, c.rule, register(t, map[string]any{"url": u, "eventTypes": c.types}), u, "eventTypes "+strings.Join(c.types, ","))
				}
				rs.none(t)
				// Matched case-insensitively, duplicates collapsed: not an
				// unsupported type (how the answer echoes them is WHM-033's,
				// judged by webhooks/register-event-types-echo).
				r := register(t, map[string]any{"url": fresh.WebhookURL(t), "eventTypes": mixedEventTypes})
				shape.StatusAnswer(t, r, shape.Want{Rule: "WHM-031", Status: http.StatusCreated, What: "register with eventTypes " + strings.Join(mixedEventTypes, ",")})
				fresh.DisableSubscription(t, "subject", shape.String(t, "WHM-031", shape.Object(t, "WHM-031", r), "subscriptionId"))
			},
		},
		{
			ID:     "webhooks/register-event-types-echo",
			Title:  "The register answer echoes eventTypes sent in mixed case and repeated as each distinct type once, in the webhook-spec's spelling",
			Rules:  []string{"WHM-033"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.subject", "webhook_url"},
			Run: func(t *check.T) {
				r := register(t, map[string]any{"url": fresh.WebhookURL(t), "eventTypes": mixedEventTypes})
				if r.Status != http.StatusCreated {
					// Refusing them is WHM-031's failure, judged by
					// webhooks/register-refuses-event-types.
					t.Skipf("the registration with eventTypes %v answered %d, not 201: no echo to judge", mixedEventTypes, r.Status)
				}
				m := shape.Object(t, "WHM-033", r)
				defer fresh.DisableSubscription(t, "subject", shape.String(t, "WHM-033", m, "subscriptionId"))
				var got []string
				for _, x := range shape.Array(t, "WHM-033", m, "eventTypes") {
					s, _ := x.(string)
					got = append(got, s)
				}
				slices.Sort(got)
				if !slices.Equal(got, []string{"customer.created", "kyc.approved"}) {
					t.ErrorAt(r, "WHM-033", "eventTypes echoed as %v, want each distinct type once in canonical spelling [customer.created kyc.approved]", got)
				}
			},
		},
		{
			ID:     "webhooks/register-event-types-matched-and-collapsed",
			Title:  "eventTypes are matched case-insensitively and collapsed: an endpoint registered for Customer.Created receives customer.created, one registered for customer.created three times (in two spellings) receives one delivery per event",
			Rules:  []string{"WHM-031"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.subject", "customers.parent", "webhook_url"},
			Run: func(t *check.T) {
				in := startInbox(t)
				defer in.close()
				mixed := in.subscribe("WHM-031", "subject", nil, "Customer.Created")
				dup := in.subscribe("WHM-031", "subject", nil, "customer.created", "CUSTOMER.CREATED", "customer.created")
				mixedID, dupID := mixed["subscriptionId"].(string), dup["subscriptionId"].(string)
				defer disable(t, "subject", mixedID)
				defer disable(t, "subject", dupID)
				resource := in.emit("customer.created", t.Customer("parent"))
				recs := in.records()
				count := func(subID string) (n int) {
					for _, r := range forSub(recs, subID) {
						verified(t, r, "customer.created delivery")
						if r.EventType == "customer.created" {
							n++
						}
					}
					return n
				}
				if n := count(mixedID); n != 1 {
					t.Errorf("WHM-031", "the endpoint registered for Customer.Created received %d deliveries of one customer.created, want 1 (event types are matched case-insensitively)", n)
				}
				if n := count(dupID); n != 1 {
					t.Errorf("WHM-031", "the endpoint registered for customer.created, CUSTOMER.CREATED, customer.created received %d deliveries of one customer.created, want 1 (duplicates are collapsed)", n)
				}
				// The attempt rows say the same: one delivery of the event
				// paired with the endpoint.
				deliveries := map[any]bool{}
				for _, row := range attemptRows(t, "WHM-031", "subject", dupID, "eventType=customer.created") {
					if row["resourceId"] == resource {
						deliveries[row["deliveryId"]] = true
					}
				}
				if len(deliveries) != 1 {
					t.Errorf("WHM-031", "the endpoint registered for customer.created three times has %d deliveries of one customer.created in its attempt rows, want 1 (duplicates are collapsed)", len(deliveries))
				}
			},
		},
		{
			ID:     "webhooks/register-max-attempts",
			Title:  "maxAttempts null or omitted is 5; 1 and 25 are accepted; 0, 26 and 2.5 are refused (400)",
			Rules:  []string{"WHM-034", "WHM-035"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.subject", "webhook_url"},
			Run: func(t *check.T) {
				var rs refusals
				for _, bad := range []any{0, 26, 2.5, "5"} {
					u := fresh.WebhookURL(t)
					rs.refused400(t, "WHM-035", register(t, map[string]any{"url": u, "eventTypes": []string{"customer.created"}, "maxAttempts": bad}), u, "maxAttempts "+jsonText(bad))
				}
				rs.none(t)
				for _, c := range []struct {
					in   any
					want int
				}{{nil, 5}, {1, 1}, {25, 25}} {
					r := register(t, map[string]any{"url": fresh.WebhookURL(t), "eventTypes": []string{"customer.created"}, "maxAttempts": c.in})
					shape.StatusAnswer(t, r, shape.Want{Rule: "WHM-035", Status: http.StatusCreated})
					m := shape.Object(t, "WHM-035", r)
					id := shape.String(t, "WHM-035", m, "subscriptionId")
					fresh.DisableSubscription(t, "subject", id)
					got, ok := m["maxAttempts"]
					if !ok || got == nil {
						if c.in != nil {
							t.ErrorAt(r, "WHM-035", "maxAttempts %v: the response reports %v", c.in, got)
						}
						continue
					}
					if n := shape.Int(t, "WHM-034", m, "maxAttempts"); n != c.want {
						t.ErrorAt(r, "WHM-034", "maxAttempts %v: the response reports %d, want %d", c.in, n, c.want)
					}
				}
			},
		},
		{
			ID:     "webhooks/register-unique-url",
			Title:  "A URL already registered in the tenant, disabled included, is refused with 409 webhook_subscription_url_already_registered",
			Rules:  []string{"WHM-026", "WHM-046", "ERR-120", "ERR-124"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.subject", "keys.tenant", "webhook_url"},
			Run: func(t *check.T) {
				u := fresh.WebhookURL(t)
				first := register(t, map[string]any{"url": u, "eventTypes": []string{"customer.created"}})
				shape.StatusAnswer(t, first, shape.Want{Rule: "WHM-026", Status: http.StatusCreated})
				id := shape.String(t, "WHM-026", shape.Object(t, "WHM-026", first), "subscriptionId")
				again := fresh.Register(t, "tenant", map[string]any{"url": u, "eventTypes": []string{"kyc.approved"}})
				webhookRefusal(t, "WHM-026", again, http.StatusConflict, "webhook_subscription_url_already_registered")
				fresh.DisableSubscription(t, "subject", id)
				disabled := register(t, map[string]any{"url": u, "eventTypes": []string{"customer.created"}})
				webhookRefusal(t, "WHM-046", disabled, http.StatusConflict, "webhook_subscription_url_already_registered")
			},
		},
		{
			ID:     "webhooks/register-unbound-key",
			Title:  "Registration with a key that has no subject binding is refused with 403, not as a scope failure",
			Rules:  []string{"WHM-037", "WHM-040"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.unbound", "webhook_url"},
			Run: func(t *check.T) {
				u := fresh.WebhookURL(t)
				r := fresh.Register(t, "unbound", map[string]any{"url": u, "eventTypes": []string{"customer.created"}})
				nonScope403(t, "WHM-037", r)
			},
		},
	}
}

// nonScope403 asserts one of the three non-scope 403s (WHM-040): status
// 403, a non-empty detail, and a code other than api_key_not_authorized.
func nonScope403(t *check.T, rule string, r *client.Response) {
	shape.StatusAnswer(t, r, shape.Want{Rule: rule, Status: http.StatusForbidden})
	m := shape.Object(t, rule, r)
	detail, _ := m["detail"].(string)
	if d, ok := shape.Get(m, "data.detail"); ok && detail == "" {
		detail, _ = d.(string)
	}
	if strings.TrimSpace(detail) == "" {
		t.FatalAt(r, "WHM-040", "the 403 carries no detail saying which refusal it is")
	}
	code, _ := m["code"].(string)
	if c, ok := shape.Get(m, "data.code"); ok && code == "" {
		code, _ = c.(string)
	}
	if code == "api_key_not_authorized" {
		t.FatalAt(r, "WHM-040", "the 403 is the scope refusal api_key_not_authorized; the key holds webhooks:write")
	}
}
