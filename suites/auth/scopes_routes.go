package auth

// Document 1, Endpoints (the Scope column of every table, and Other paths)
// and document 2, Endpoints and Authentication 3: each documented route
// requires its scope. The profile key lacking exactly that scope
// (keys.lacking[scope], every other scope granted) is refused with 403
// api_key_not_authorized (problem+json) before the operation runs, and each
// scope is refused once more with the key lacking it in PascalCase
// (keys.lacking_pascal[scope]); keys.tenant, which holds every scope, passes
// the key step (no 401, no key-step 403). A key lacking only that scope
// tells this scope from another: a route requiring accounts:write where
// the document says onboarding:write refuses read_only all the same, but
// not the key lacking only onboarding:write. A row whose lacking key the
// profile does not have is not judged, naming the key to add.
//
// One row per documented route. A route the target does not serve (the
// tenant key's probe answers 404) is skipped with a logged reason, so the
// table's coverage grows as routes land. Requests change nothing: writes
// carry an unbindable body (a JSON array where an object is expected; the
// body is bound after the key step and before the operation), name a
// nonexistent sub-resource, or act on a customer whose state makes the
// operation a no-op (already verified, or not approved for money movement).

import (
	"bytes"
	"cmp"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"

	"github.com/google/uuid"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/profile"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// routeRow is one documented route and its scope.
type routeRow struct {
	rule   string // the catalogue rule naming this route's scope
	method string
	path   string // built from profile fixtures
	query  url.Values
	scope  string
	body   any // nil: no body
	// probe is a request whose 404 to keys.tenant means the route family is
	// not served; nil means the row's own answer to keys.tenant decides (a
	// row naming existing fixtures only). A probe names existing fixtures
	// or binds its body first, so that a served route never answers it 404.
	probe *probeReq
}

// probeReq is a family's served-probe.
type probeReq struct {
	method, path string
	body         any
}

func (p *probeReq) String() string { return p.method + " " + templated(p.path) }

// get is a GET probe.
func get(path string) *probeReq { return &probeReq{method: http.MethodGet, path: path} }

func (r routeRow) String() string {
	return r.method + " " + templated(r.path)
}

// fixtures are the ids a scope table builds its paths from.
type fixtures struct {
	customer, parent, child, money string
}

// scopeFixtures reads the profile's customers; a missing one is replaced by
// a random uuid (the scope step precedes any lookup, and keys.tenant's probe
// then decides whether the row can be judged).
func scopeFixtures(t *check.T) fixtures {
	m := t.Profile().CustomerMap()
	pick := func(names ...string) string {
		for _, n := range names {
			if id := m[n]; id != "" {
				return id
			}
		}
		return uuid.NewString()
	}
	return fixtures{
		customer: pick("active_personal"),
		parent:   pick("parent"),
		child:    pick("child"),
		// Money-moving writes act on a customer not approved for money
		// movement (409 kyc_or_kyb_not_approved at worst).
		money: pick("draft"),
	}
}

// unbindable is a body of the wrong JSON type for every documented request.
var unbindable = []any{}

// routeTable is one documented endpoint table.
type routeTable struct {
	slug, title string
	rows        func(f fixtures) []routeRow
}

var routeTables = []routeTable{
	{"identity-customers", "identity and customers (document 1)", func(f fixtures) []routeRow {
		c := api.P + "/customers/" + f.customer
		return []routeRow{
			{rule: "SCOPE-003", method: "GET", path: api.P + "/customers", scope: "onboarding:read"},
			{rule: "SCOPE-004", method: "GET", path: c, scope: "onboarding:read"},
			{rule: "SCOPE-005", method: "PATCH", path: c, scope: "onboarding:write", body: unbindable},
			{rule: "SCOPE-006", method: "POST", path: api.P + "/customers", scope: "onboarding:write", body: unbindable},
		}
	}},
	{"onboarding", "onboarding (document 1)", func(f fixtures) []routeRow {
		c := api.P + "/customers/" + f.customer
		return []routeRow{
			{rule: "SCOPE-007", method: "POST", path: c + "/onboarding/kyc/initiate", scope: "onboarding:write"},
			{rule: "SCOPE-008", method: "POST", path: c + "/onboarding/kyb/initiate", scope: "onboarding:write"},
			{rule: "SCOPE-009", method: "POST", path: c + "/onboarding/kyc/token", scope: "onboarding:write"},
			{rule: "SCOPE-010", method: "POST", path: c + "/onboarding/kyb/token", scope: "onboarding:write"},
			{rule: "SCOPE-011", method: "GET", path: c + "/onboarding/status", scope: "onboarding:read"},
			{rule: "SCOPE-012", method: "GET", path: c + "/onboarding/kyc/status", scope: "onboarding:read"},
			{rule: "SCOPE-013", method: "GET", path: c + "/onboarding/kyb/status", scope: "onboarding:read"},
			{rule: "SCOPE-014", method: "GET", path: api.P + "/onboarding/requirements", query: url.Values{"type": {"kyc"}}, scope: "onboarding:read"},
			{rule: "SCOPE-015", method: "POST", path: api.P + "/onboarding/kyc", scope: "onboarding:write", body: unbindable},
			{rule: "SCOPE-015", method: "POST", path: api.P + "/onboarding/kyb", scope: "onboarding:write", body: unbindable},
		}
	}},
	{"end-customers", "sub-customers (document 1)", func(f fixtures) []routeRow {
		pc := api.P + "/customers/" + f.parent + "/end-customers"
		ec := pc + "/" + f.child
		// Money-moving child writes name a nonexistent child.
		ecMoney := pc + "/" + uuid.NewString()
		return []routeRow{
			{rule: "SCOPE-016", method: "POST", path: pc, scope: "end-customers:write", body: unbindable},
			{rule: "SCOPE-017", method: "GET", path: pc, scope: "end-customers:read"},
			{rule: "SCOPE-018", method: "GET", path: ec, scope: "end-customers:read"},
			{rule: "SCOPE-019", method: "POST", path: ec + "/onboarding", scope: "end-customers:write", body: unbindable},
			{rule: "SCOPE-020", method: "POST", path: ec + "/accounts", scope: "accounts:write", body: unbindable},
			{rule: "SCOPE-021", method: "GET", path: ec + "/accounts", scope: "accounts:read"},
			{rule: "SCOPE-021", method: "GET", path: ec + "/accounts/" + uuid.NewString(), scope: "accounts:read", probe: get(ec + "/accounts")},
			{rule: "SCOPE-022", method: "GET", path: ec + "/balance", scope: "end-customers:read"},
			{rule: "SCOPE-023", method: "GET", path: ec + "/documents", scope: "end-customers:read"},
			{rule: "SCOPE-023", method: "GET", path: ec + "/documents/" + uuid.NewString(), scope: "end-customers:read", probe: get(ec + "/documents")},
			// They name a nonexistent child (keys.tenant's 404 is the
			// child's): the child's own reads tell whether the family is
			// served.
			{rule: "SCOPE-024", method: "POST", path: ecMoney + "/consolidate", scope: "end-customers:write", body: unbindable, probe: get(ec + "/balance")},
			{rule: "SCOPE-025", method: "POST", path: ecMoney + "/internal-transfers", scope: "end-customers:write", body: unbindable, probe: get(ec + "/internal-transfers")},
			{rule: "SCOPE-026", method: "GET", path: ec + "/internal-transfers", scope: "end-customers:read"},
			{rule: "SCOPE-027", method: "GET", path: ec + "/internal-transfers/" + uuid.NewString(), scope: "end-customers:read", probe: get(ec + "/internal-transfers")},
			{rule: "SCOPE-028", method: "GET", path: ec + "/internal-transfers/by-client-reference/" + uuid.NewString(), scope: "end-customers:read", probe: get(ec + "/internal-transfers")},
		}
	}},
	{"exchange", "exchange (document 1)", func(f fixtures) []routeRow {
		cr := api.P + "/customers/" + f.customer + "/banking/conversion-requests"
		return []routeRow{
			// The id-less exchange reads are probed through the customer's
			// conversion-request list (same family).
			{rule: "SCOPE-029", method: "GET", path: api.P + "/transfer/allowed-destinations", scope: "exchanges:read", probe: get(cr)},
			{rule: "SCOPE-030", method: "GET", path: api.P + "/transfer/price", query: url.Values{"pair": {"GBP/EUR"}}, scope: "exchanges:read", probe: get(cr)},
			{rule: "SCOPE-031", method: "GET", path: cr, scope: "exchanges:read"},
			{rule: "SCOPE-032", method: "GET", path: cr + "/" + uuid.NewString(), scope: "exchanges:read", probe: get(cr)},
			{rule: "SCOPE-033", method: "POST", path: api.P + "/customers/" + f.money + "/banking/conversion-requests", scope: "exchanges:write", body: unbindable},
		}
	}},
	{"accounts", "fiat accounts, beneficiaries, balances (document 1)", func(f fixtures) []routeRow {
		b := api.P + "/customers/" + f.customer + "/banking"
		return []routeRow{
			{rule: "SCOPE-034", method: "GET", path: b + "/accounts", scope: "accounts:read"},
			{rule: "SCOPE-035", method: "GET", path: b + "/accounts/" + uuid.NewString(), scope: "accounts:read", probe: get(b + "/accounts")},
			{rule: "SCOPE-036", method: "GET", path: b + "/accounts/form-schema", scope: "accounts:read"},
			{rule: "SCOPE-037", method: "GET", path: b + "/accounts/" + uuid.NewString() + "/transactions", scope: "accounts:read", probe: get(b + "/accounts")},
			{rule: "SCOPE-038", method: "POST", path: api.P + "/customers/" + f.money + "/banking/accounts", scope: "accounts:write", body: unbindable},
			{rule: "SCOPE-039", method: "GET", path: b + "/beneficiaries", scope: "accounts:read"},
			{rule: "SCOPE-039", method: "GET", path: b + "/beneficiaries/" + uuid.NewString(), scope: "accounts:read", probe: get(b + "/beneficiaries")},
			{rule: "SCOPE-040", method: "POST", path: b + "/beneficiaries", scope: "accounts:write", body: unbindable},
			{rule: "SCOPE-041", method: "PATCH", path: b + "/beneficiaries/" + uuid.NewString(), scope: "accounts:write", body: unbindable, probe: get(b + "/beneficiaries")},
			{rule: "SCOPE-042", method: "DELETE", path: b + "/beneficiaries/" + uuid.NewString(), scope: "accounts:write", probe: get(b + "/beneficiaries")},
			{rule: "SCOPE-043", method: "GET", path: b + "/balance", scope: "balances:read"},
			{rule: "SCOPE-044", method: "GET", path: api.P + "/customers/" + f.customer + "/crypto/wallets/BTC/balance", scope: "balances:read"},
		}
	}},
	{"deposits-withdrawals", "deposits and withdrawals (document 1)", func(f fixtures) []routeRow {
		c := api.P + "/customers/" + f.customer
		m := api.P + "/customers/" + f.money
		return []routeRow{
			{rule: "SCOPE-045", method: "GET", path: c + "/banking/deposits", scope: "deposits:read"},
			{rule: "SCOPE-045", method: "GET", path: c + "/banking/deposits/" + uuid.NewString(), scope: "deposits:read", probe: get(c + "/banking/deposits")},
			{rule: "SCOPE-046", method: "GET", path: c + "/crypto/deposits", scope: "deposits:read"},
			{rule: "SCOPE-046", method: "GET", path: c + "/crypto/deposits/" + uuid.NewString(), scope: "deposits:read", probe: get(c + "/crypto/deposits")},
			{rule: "SCOPE-047", method: "GET", path: c + "/banking/withdrawals", scope: "withdrawals:read"},
			{rule: "SCOPE-048", method: "POST", path: m + "/banking/withdrawals", scope: "withdrawals:write", body: unbindable},
			{rule: "SCOPE-049", method: "GET", path: c + "/crypto/withdrawals", scope: "withdrawals:read"},
			{rule: "SCOPE-050", method: "POST", path: m + "/crypto/withdrawals", scope: "withdrawals:write", body: unbindable},
			{rule: "SCOPE-051", method: "GET", path: c + "/crypto/withdrawal-addresses", scope: "withdrawal-addresses:read"},
			{rule: "SCOPE-052", method: "POST", path: c + "/crypto/withdrawal-addresses", scope: "withdrawal-addresses:write", body: unbindable},
			{rule: "SCOPE-053", method: "GET", path: c + "/crypto/wallets", scope: "wallets:read"},
			{rule: "SCOPE-054", method: "POST", path: m + "/crypto/wallets/BTC/address", scope: "wallets:write"},
		}
	}},
	{"fees", "fees (document 1)", func(f fixtures) []routeRow {
		fees := api.P + "/customers/" + f.customer + "/fees"
		return []routeRow{
			{rule: "SCOPE-056", method: "GET", path: api.P + "/commercial-config", scope: "fees:read", probe: get(fees)},
			{rule: "SCOPE-057", method: "GET", path: fees, scope: "fees:read"},
		}
	}},
	{"payout-batches", "payout batches (document 1)", func(f fixtures) []routeRow {
		pb := api.P + "/customers/" + f.customer + "/payout-batches"
		return []routeRow{
			{rule: "SCOPE-058", method: "POST", path: api.P + "/customers/" + f.money + "/payout-batches", scope: "payout-batches:write", body: unbindable},
			{rule: "SCOPE-059", method: "GET", path: pb, scope: "payout-batches:read"},
			{rule: "SCOPE-060", method: "GET", path: pb + "/" + uuid.NewString(), scope: "payout-batches:read", probe: get(pb)},
		}
	}},
	{"other-paths", "other paths (document 1)", func(fixtures) []routeRow {
		return []routeRow{
			{rule: "OTHER-001", method: "GET", path: api.P + "/test", scope: "onboarding:read"},
			{rule: "OTHER-002", method: "GET", path: "/api/public/partner/config", scope: "onboarding:read"},
			{rule: "OTHER-003", method: "GET", path: api.Callback, scope: "onboarding:write"},
		}
	}},
	{"webhooks", "webhook management (document 2)", func(fixtures) []routeRow {
		ws := api.V2 + "/webhook-subscriptions"
		id := ws + "/" + uuid.NewString()
		// The family is probed with a PATCH of a nonexistent subscription
		// and an unbindable body: a served route binds the body (400)
		// before it looks the subscription up.
		pr := &probeReq{method: http.MethodPatch, path: ws + "/" + uuid.NewString(), body: unbindable}
		return []routeRow{
			{rule: "SCOPE-062", method: "POST", path: ws, scope: "webhooks:write", body: unbindable, probe: pr},
			{rule: "SCOPE-063", method: "GET", path: ws, scope: "webhooks:read", probe: pr},
			{rule: "SCOPE-064", method: "GET", path: id, scope: "webhooks:read", probe: pr},
			{rule: "SCOPE-065", method: "PATCH", path: id, scope: "webhooks:write", body: unbindable, probe: pr},
			{rule: "SCOPE-066", method: "DELETE", path: id, scope: "webhooks:write", probe: pr},
			{rule: "SCOPE-067", method: "POST", path: id + "/secret-rotations", scope: "webhooks:write", body: unbindable, probe: pr},
			{rule: "SCOPE-068", method: "GET", path: id + "/delivery-attempts", scope: "webhooks:read", probe: pr},
			{rule: "SCOPE-069", method: "GET", path: api.V2 + "/webhook-spec", scope: "webhooks:read", probe: pr},
		}
	}},
	{"v2-other", "v2 customers, access requests, CRM leads, fiat accounts (document 2)", func(f fixtures) []routeRow {
		// v2 fiat accounts are probed through the v1 account list.
		accounts := get(api.P + "/customers/" + f.customer + "/banking/accounts")
		return []routeRow{
			{rule: "SCOPE-070", method: "GET", path: api.V2 + "/customers", scope: "onboarding:read"},
			{rule: "SCOPE-071", method: "POST", path: api.V2 + "/access-requests", scope: "onboarding:write", body: unbindable},
			{rule: "SCOPE-072", method: "POST", path: api.V2 + "/crm/leads", scope: "crm-leads:write", body: unbindable},
			{rule: "SCOPE-073", method: "GET", path: api.V2 + "/fiat/accounts", scope: "accounts:read", probe: accounts},
			{rule: "SCOPE-073", method: "GET", path: api.V2 + "/fiat/accounts/" + uuid.NewString(), scope: "accounts:read", probe: accounts},
		}
	}},
}

// lacking is the role of the profile key lacking exactly scope and
// holding every other, granted in PascalCase when pascal is set: one
// refusal with it shows that the route requires that scope, where a key
// lacking many (read_only, unused_scopes) would show only that it
// requires one of them.
func lacking(scope string, pascal bool) string { return profile.LackingRole(scope, pascal) }

// keyToAdd names a lacking key the way a profile spells it.
func keyToAdd(scope string, pascal bool) string {
	if pascal {
		return fmt.Sprintf("keys.lacking_pascal[%q]", scope)
	}
	return fmt.Sprintf("keys.lacking[%q]", scope)
}

// templated renders a path with ids replaced by {id}, for messages.
func templated(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		if isUUID(s) {
			segs[i] = "{id}"
		}
	}
	return strings.Join(segs, "/")
}

// send sends the row with c's key; refused declares it sent to be
// refused at the key step (client.Request.KeyRefusal).
func (r routeRow) send(t *check.T, c *client.Client, refused bool) *client.Response {
	req := client.Request{Method: r.method, Path: r.path, Query: r.query, JSON: r.body, KeyRefusal: refused}
	if r.method != http.MethodGet {
		req.IdempotencyKey = t.NewKey()
	}
	return t.Do(c, req)
}

// refusal is a row sent with the profile key lacking its scope. A table
// sends every row's refusal before any request that passes the key step:
// refused there, a refusal spends no rate budget (document 2, Check order
// 3 before 4), so the plan lets it out even in a clock minute a budget
// probe owns; only the failed-auth budget bounds it.
type refusal struct {
	key  string // the key's role, "" when the profile has none lacking the scope
	resp *client.Response
}

// refuse sends row with the key lacking its scope (in PascalCase
// spelling when pascal is set), or nothing when the profile has none.
func refuse(t *check.T, row routeRow, pascal bool) refusal {
	name := lacking(row.scope, pascal)
	if t.Profile().Key(name) == "" {
		return refusal{}
	}
	return refusal{key: name, resp: row.send(t, t.Client(name), true)}
}

// judgeRefusal judges one refusal under rule: 403 problem+json
// api_key_not_authorized.
//
// A refusal that is not a 403 is told apart by keys.tenant's answer to the
// same request (own): answered alike, the key step let the key through and
// the route does not require the scope (passRule: the row's own rule, or
// SCOPE-074 when only the other spelling got through); answered otherwise,
// the route refused the key some other way than a missing scope is
// (SCOPE-076).
func judgeRefusal(t *check.T, row routeRow, ref refusal, own *client.Response, passRule string) {
	r := ref.resp
	what := fmt.Sprintf("%s with keys.%s (lacks only %s)", row, ref.key, row.scope)
	// Refused at the key step for the missing scope, at another status:
	// the error catalogue's sentence giving the code 403 (ERR-023, which
	// StatusAnswer reports when the check declares it).
	if shape.BodyCode(r) == "api_key_not_authorized" && !shape.StatusAnswer(t, r, shape.Want{Rule: "SCOPE-076", Status: http.StatusForbidden, Code: "api_key_not_authorized", What: what, Continue: true}) {
		return
	}
	if r.Status != http.StatusForbidden {
		if passedKeyStep(r, own) {
			t.ErrorAt(r, passRule, "%s: status %d, answered as keys.tenant is (%d): the route does not require %s; a missing scope is 403 api_key_not_authorized; body: %s", what, r.Status, own.Status, row.scope, shape.Clip(r.Body))
			return
		}
		t.ErrorAt(r, "SCOPE-076", "%s: status %d (keys.tenant gets %d); a missing scope gives 403 api_key_not_authorized at the key step; body: %s", what, r.Status, own.Status, shape.Clip(r.Body))
		return
	}
	// The body of a key-step 403 is the error catalogue's: problem+json
	// (ERR-003) with the code api_key_not_authorized (ERR-023).
	if r.ContentType() != shape.Problem {
		t.ErrorAt(r, "ERR-003", "%s with keys.%s (lacks only %s): the 403 is not problem+json (Content-Type %q)", row, ref.key, row.scope, r.Header.Get("Content-Type"))
	}
	if m, err := r.JSON(); err != nil || m["code"] != "api_key_not_authorized" {
		t.ErrorAt(r, "ERR-023", "%s with keys.%s (lacks only %s): the 403 does not carry the code api_key_not_authorized; body: %s", row, ref.key, row.scope, shape.Clip(r.Body))
	}
}

// passedKeyStep tells whether a key lacking a route's scope got the
// answer keys.tenant got (own): the same status and, for a 404, the same
// body (the operation's own not-found, not a refusal dressed as one).
func passedKeyStep(r, own *client.Response) bool {
	return !keyStepRefusal(r) && r.Status == own.Status && (r.Status != http.StatusNotFound || bytes.Equal(r.Body, own.Body))
}

// keyStepRefusal tells whether a response is a refusal at the key step:
// 401, or 403 problem+json api_key_not_authorized (a flat 403 is a policy
// gate of the operation, past the key step).
func keyStepRefusal(r *client.Response) bool {
	return r.Status == http.StatusUnauthorized || refusedByScope(r)
}

// judgeRow judges one row from its refusal (sent before) and the tenant
// key's answer. It reports whether the route is served and, when the
// row's rule was not judged (the route not served, or no profile key
// lacking its scope to be refused), why.
func judgeRow(t *check.T, row routeRow, ref refusal, probed map[string]bool) (served bool, notJudged string, own *client.Response) {
	tenant := t.Client("tenant")
	if p := row.probe; p != nil {
		ok, seen := probed[p.String()]
		if !seen {
			req := client.Request{Method: p.method, Path: p.path, JSON: p.body}
			if p.method != http.MethodGet {
				req.IdempotencyKey = t.NewKey()
			}
			ok = t.Do(tenant, req).Status != http.StatusNotFound
			probed[p.String()] = ok
		}
		if !ok {
			t.Logf("%s: skipped, keys.tenant gets 404 on %s (route family not served by this target)", row, p)
			return false, fmt.Sprintf("the target does not serve %s (keys.tenant gets 404)", p), nil
		}
	}
	own = row.send(t, tenant, false)
	if row.probe == nil && own.Status == http.StatusNotFound {
		t.Logf("%s: skipped, keys.tenant gets 404 (route not served by this target)", row)
		return false, fmt.Sprintf("the target does not serve %s (keys.tenant gets 404)", row), nil
	}
	if keyStepRefusal(own) {
		t.Errorf(row.rule, "%s with keys.tenant (holds every scope, %s included): status %d, refused at the key step; body: %s", row, row.scope, own.Status, shape.Clip(own.Body))
	}
	if ref.key == "" {
		t.Logf("%s: the profile has no key lacking only %s; only the holding key was judged", row, row.scope)
		return true, fmt.Sprintf("the profile has no key lacking only %s to be refused (add %s)", row.scope, keyToAdd(row.scope, false)), own
	}
	judgeRefusal(t, row, ref, own, row.rule)
	return true, "", own
}

// pascalHome is, for each scope, the table that refuses it once in the
// PascalCase spelling: the first that has a route needing it (once per
// scope for the run: each refusal spends the failed-auth budget).
var pascalHome = func() map[string]string {
	home := map[string]string{}
	for _, tb := range routeTables {
		for _, r := range tb.rows(fixtures{}) {
			if home[r.scope] == "" {
				home[r.scope] = tb.slug
			}
		}
	}
	return home
}()

// scopesRoutesChecks are the checks of scopes_routes.go.
func scopesRoutesChecks() []check.Check {
	return slices.Concat(
		scopeTableChecks(),
		whitelistScopeSeparateFromWithdrawalsChecks(),
	)
}

// scopeTableChecks are the route-scope table of scopes_routes.go (see
// scopesRoutesChecks): one auth/route-scopes-* check per documented route,
// and auth/unused-scopes-key.
func scopeTableChecks() []check.Check {
	var cs []check.Check
	for _, tb := range routeTables {
		tb := tb
		rules := []string{}
		seen := map[string]bool{}
		pascal := false
		for _, r := range tb.rows(fixtures{}) {
			if !seen[r.rule] {
				seen[r.rule] = true
				rules = append(rules, r.rule)
			}
			pascal = pascal || pascalHome[r.scope] == tb.slug
		}
		sort.Strings(rules)
		if pascal {
			rules = append(rules, "SCOPE-074")
		}
		rules = append(rules, "SCOPE-076", "ERR-023", "ERR-003")
		cs = append(cs, check.Check{
			ID:     "auth/route-scopes-" + tb.slug,
			Title:  "each route of the " + tb.title + " table requires its documented scope: 403 api_key_not_authorized without it, the key step passed with it",
			Rules:  rules,
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant"},
			Run: func(t *check.T) {
				rows := tb.rows(scopeFixtures(t))
				probed := map[string]bool{}
				served := 0
				judged := map[string]bool{}
				var unjudged []string
				pascalJudged, pascalWhy := false, ""
				why := map[string]string{}
				// Each scope is also refused once in the other spelling
				// (SCOPE-074), on the first row of its home table that
				// needs it.
				refusals := make([]refusal, len(rows))
				pascals := map[int]refusal{}
				pascalOf := map[string]bool{}
				for i, row := range rows {
					refusals[i] = refuse(t, row, false)
					if pascalHome[row.scope] == tb.slug && !pascalOf[row.scope] {
						pascalOf[row.scope] = true
						pascals[i] = refuse(t, row, true)
					}
				}
				for i, row := range rows {
					ok, reason, own := judgeRow(t, row, refusals[i], probed)
					if p, asked := pascals[i]; asked && ok {
						if p.key == "" {
							pascalWhy = fmt.Sprintf("the profile has no key lacking only %s in PascalCase (add %s)", row.scope, keyToAdd(row.scope, true))
						} else {
							// Let through where the canonical spelling was
							// refused: the spelling decided (SCOPE-074).
							passRule := row.rule
							if c := refusals[i].resp; c != nil && c.Status == http.StatusForbidden {
								passRule = "SCOPE-074"
							}
							judgeRefusal(t, row, p, own, passRule)
							pascalJudged = true
						}
					}
					if ok {
						served++
					}
					switch {
					case reason == "":
						judged[row.rule] = true
					case why[row.rule] == "":
						why[row.rule] = reason
						unjudged = append(unjudged, row.rule)
					}
				}
				t.Logf("%d of %d routes served, %d rules judged with a key lacking the scope", served, len(rows), len(judged))
				if served == 0 {
					t.Skipf("the target serves none of the %d routes of the %s table", len(rows), tb.title)
				}
				// No silent pass: a rule no row judged is named, with why.
				for _, r := range unjudged {
					if !judged[r] {
						t.NotJudged(why[r], r)
					}
				}
				if len(judged) == 0 {
					t.NotJudged("no route was refused: no key lacking a scope judged any row", "SCOPE-076", "ERR-023", "ERR-003")
				}
				if len(pascals) > 0 && !pascalJudged {
					t.NotJudged(cmp.Or(pascalWhy, "no route needing a scope this table refuses in PascalCase was served"), "SCOPE-074")
				}
			},
		})
	}
	cs = append(cs, check.Check{
		ID:    "auth/unused-scopes-key",
		Title: "a key granted only scopes no operation demands (compliance:read, open-banking:*, end-user-fees:write) passes GET /me and is refused on scoped routes",
		Rules: []string{"SCOPE-080", "SCOPE-002", "SCOPE-076"},
		Needs: []string{"keys.unused_scopes", "customers.active_personal"},
		Run: func(t *check.T) {
			u := t.Client("unused_scopes")
			ap := t.Customer("active_personal")
			r := t.Do(u, client.Request{Method: http.MethodGet, Path: api.P + "/me"})
			shape.StatusAnswer(t, r, shape.Want{Rule: "SCOPE-002", Status: http.StatusOK, What: "GET /me with keys.unused_scopes", Why: "no scope needed"})
			// One refusal proves the rule; the route-scope tables judge
			// every read route with this key.
			c := call{method: "GET", path: api.P + "/customers/" + ap, refused: true}
			r = c.send(t, u)
			if r.Status == http.StatusOK {
				// Let through: a scope no operation demands granted the
				// route (SCOPE-080), not a refusal of another kind
				// (SCOPE-076).
				t.FatalAt(r, "SCOPE-080", "%s with keys.unused_scopes (holds only compliance:read, open-banking:*, end-user-fees:write): status 200, the key step passed; body: %s", c, shape.Clip(r.Body))
			}
			expect403(t, "SCOPE-080", r, c.String()+" with keys.unused_scopes")
		},
	})
	return cs
}

// Document 1, Deposits and withdrawals: "The whitelist scope is separate from
// the withdrawal scope." keys.withdrawals_only holds withdrawals:read and
// withdrawals:write, keys.whitelist_only withdrawal-addresses:read and
// withdrawal-addresses:write. Each is refused on the other's crypto routes,
// the read and the write (four refusals, one per scope not granted), and
// passes the key step on its own. Requests change nothing: the writes carry
// an unbindable body, the withdrawal one for a customer not approved for
// money movement.
func whitelistScopeSeparateFromWithdrawalsChecks() []check.Check {
	return []check.Check{
		{
			ID:     "auth/whitelist-scope-separate-from-withdrawals",
			Title:  "withdrawals:* grants no whitelist (withdrawal-addresses) route and withdrawal-addresses:* no withdrawal route: 403 api_key_not_authorized on the other's routes, the key step passed on its own",
			Rules:  []string{"SCOPE-055"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant", "keys.withdrawals_only", "keys.whitelist_only"},
			Run: func(t *check.T) {
				f := scopeFixtures(t)
				crypto := api.P + "/customers/" + f.customer + "/crypto"
				whitelist := []routeRow{
					{rule: "SCOPE-055", method: "GET", path: crypto + "/withdrawal-addresses", scope: "withdrawal-addresses:read"},
					{rule: "SCOPE-055", method: "POST", path: crypto + "/withdrawal-addresses", scope: "withdrawal-addresses:write", body: unbindable},
				}
				withdrawals := []routeRow{
					{rule: "SCOPE-055", method: "GET", path: crypto + "/withdrawals", scope: "withdrawals:read"},
					{rule: "SCOPE-055", method: "POST", path: api.P + "/customers/" + f.money + "/crypto/withdrawals", scope: "withdrawals:write", body: unbindable},
				}
				// Both families must be served (keys.tenant passes the key step).
				for _, row := range append(append([]routeRow{}, whitelist...), withdrawals...) {
					r := row.send(t, t.Client("tenant"), false)
					if r.Status == http.StatusNotFound && row.method == http.MethodGet {
						t.Skipf("%s answers 404 to keys.tenant: the crypto withdrawal and whitelist routes are not served by this target", row)
					}
					if keyStepRefusal(r) {
						t.Fatalf("SCOPE-055", "%s with keys.tenant (holds every scope): status %d, refused at the key step; body: %s", row, r.Status, shape.Clip(r.Body))
					}
				}
				for _, side := range []struct {
					key         string
					own, others []routeRow
				}{
					{"withdrawals_only", withdrawals, whitelist},
					{"whitelist_only", whitelist, withdrawals},
				} {
					c := t.Client(side.key)
					for _, row := range side.own {
						if r := row.send(t, c, false); keyStepRefusal(r) {
							t.Errorf("SCOPE-055", "%s with keys.%s (holds %s): status %d, refused at the key step; body: %s", row, side.key, row.scope, r.Status, shape.Clip(r.Body))
						}
					}
					for _, row := range side.others {
						r := row.send(t, c, true)
						shape.ProblemAnswer(t, r, shape.Want{Rule: "SCOPE-055", Status: http.StatusForbidden, Code: "api_key_not_authorized",
							What: fmt.Sprintf("%s with keys.%s (lacks %s)", row, side.key, row.scope)})
					}
				}
			},
		},
	}
}
