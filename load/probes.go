package load

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"
	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/traffic"
)

// Documented limits (document 2, Limits).
const (
	routeBudget      = 600
	tenantBudget     = 6000
	failedAuthBudget = 20
)

// The API's two prefixes, as the checks spell them.
const (
	v1 = api.P
	v2 = api.V2
)

// Disruptive marks a probe that exhausts a budget shared beyond the
// harness: the tenant ceiling blocks the whole tenant (dashboard included)
// until the minute ends; failed-auth blocks everyone behind the source IP.
const Disruptive = "disruptive"

// Warnings say what each disruptive probe blocks, and for how long.
var Warnings = map[string]string{
	"tenant-ceiling": "exhausts the tenant-wide ceiling (6,000/60 s): every API call of the tenant, dashboard included, is refused with 429 until the end of the clock minute (up to 60 s)",
	"failed-auth":    "exhausts the failed-authentication budget of this machine's source IP (20/60 s): every caller behind that IP with a wrong or missing key gets 429 for up to 60 s",
}

// A Probe's spec: name, title, rules, labels, needs, the budgets it spends
// on purpose (check.Budget: on a real clock the run's timetable gives it
// clock minutes where it owns them, shared with other probes) and body.
type spec struct {
	name, title string
	rules       []string
	labels      []string
	needs       []string
	budget      *check.Budget
	run         func(p *Probe)
}

func route(role, method, tmpl string) string { return role + " " + method + " " + tmpl }

// Probes lists the probe names in run order.
var Probes []string

var specs = []spec{
	{name: "route-budget", title: "vegeta: one key, method and template: exactly 600 admitted in a clock minute, the rest 429 problem+json rate_limited with Retry-After to the next boundary (±1 s), no X-RateLimit-*; the first request after the boundary admitted",
		rules: []string{"RATE-004", "RATE-001", "RATE-002", "RATE-003", "RATE-016", "RATE-017"}, needs: []string{"keys.tenant"}, run: routeBudgetProbe,
		budget: &check.Budget{Routes: []string{route("tenant", "GET", v1+"/me")}, Tenant: 2 * (routeBudget + 6), Windows: 2}},
	{name: "template-sharing", title: "vegeta: GET /customers/{a} and /customers/{b} share one budget (300 + 300, then {c} is 429)",
		rules: []string{"RATE-005"}, needs: []string{"keys.tenant", "customers.active_personal", "customers.active_business", "customers.draft"}, run: templateProbe,
		budget: &check.Budget{Routes: []string{route("tenant", "GET", v1+"/customers/{id}")}, Tenant: 2 * (routeBudget + 1)}},
	{name: "method-separation", title: "vegeta: GET and POST on /customers keep separate budgets (POST after 600 GETs is not 429)",
		rules: []string{"RATE-006"}, needs: []string{"keys.tenant"}, run: methodProbe,
		// The POST it sends after the 600 needs its budget unspent: it holds
		// it too (another probe exhausts it).
		budget: &check.Budget{Routes: []string{route("tenant", "GET", v1+"/customers"), route("tenant", "POST", v1+"/customers")}, Tenant: 2*(routeBudget+1) + 1}},
	{name: "key-separation", title: "vegeta: a second key of the tenant has its own 600 on a route the first key exhausted",
		rules: []string{"RATE-007"}, needs: []string{"keys.read_only", "keys.pascal_scopes"}, run: keyProbe,
		budget: &check.Budget{Routes: []string{route("read_only", "GET", v1+"/me"), route("pascal_scopes", "GET", v1+"/me")}, Tenant: 3*routeBudget + 2}},
	{name: "window-boundary", title: "vegeta: 600 admitted just before a minute boundary and 600 just after (1,200 across one boundary): fixed windows, not sliding",
		rules: []string{"RATE-008"}, needs: []string{"keys.umbrella"}, run: boundaryProbe,
		budget: &check.Budget{Routes: []string{route("umbrella", "GET", v1+"/me")}, Tenant: 3*routeBudget + 1, Windows: 2}},
	{name: "tenant-ceiling", title: "vegeta: 6,000 admitted across five keys and both prefixes, each route under its budget; the 6,001st (V2, untouched route) is 429",
		rules: []string{"RATE-010"}, labels: []string{Disruptive}, needs: []string{"keys.tenant", "keys.read_only", "keys.pascal_scopes", "keys.umbrella", "keys.subject"}, run: tenantProbe,
		budget: &check.Budget{WholeTenant: true, Tenant: tenantBudget + 1}},
	{name: "failed-auth", title: "vegeta: 20 failed authentications per 60 s per source IP, then 429 instead of 401; 30 successes in between consume nothing",
		rules: []string{"RATE-012", "RATE-013"}, labels: []string{Disruptive}, needs: []string{"keys.tenant", "customers.active_personal"}, run: failedAuthProbe,
		// The source IP's whole failed-auth window; its 30 successes go to
		// a route budget no other probe exhausts.
		budget: &check.Budget{Tenant: 30, Auth: true, Routes: []string{route("tenant", "GET", v1+"/customers/{id}/onboarding/status")}}},
	{name: "access-requests", title: "vegeta: POST V2/access-requests has its own budget, tighter than 600: measured",
		rules: []string{"RATE-014"}, labels: []string{check.Mutating}, needs: []string{"keys.tenant"}, run: accessProbe,
		budget: &check.Budget{Routes: []string{route("tenant", "POST", v2+"/access-requests")}, Tenant: 2 * (routeBudget + 1)}},
}

func init() {
	for _, s := range specs {
		Probes = append(Probes, s.name)
	}
	Probes = append(Probes, "latency")
}

// Checks returns the load probes' checks, one per probe but latency
// (which Check builds on demand): each runs its probe on both clocks (a
// virtual clock is moved, a real one waited on; see check.Clock). The runner
// (cmd/touchstone/allchecks) registers them.
func Checks() []check.Check {
	var cs []check.Check
	for _, s := range specs {
		labels := append([]string{"load", "ratelimit"}, s.labels...)
		name, rules, run := s.name, s.rules, s.run
		cs = append(cs, check.Check{ID: "load/" + s.name, Title: s.title, Rules: s.rules, Labels: labels, Needs: s.needs,
			Budget: s.budget, Alone: check.Always, // it spends a budget on purpose
			Run: func(t *check.T) { RunProbe(t, name, rules, run) }})
	}
	return cs
}

// RunProbe runs one probe body as check t, filing its summary.
func RunProbe(t *check.T, name string, rules []string, run func(*Probe)) {
	p := start(t, name, rules)
	defer p.finish()
	run(p)
}

// Check returns the check that runs probe name on any clock (the
// registered fast forms need a virtual one), latency included; nil for an
// unknown name.
func Check(name string) *check.Check {
	if name == "latency" {
		return &check.Check{ID: "load/latency", Title: "vegeta: a steady rate of reads spread under every budget: percentiles, throughput, errors by status",
			Labels: []string{"load"}, Needs: []string{"keys.tenant"},
			Run: func(t *check.T) { RunProbe(t, "latency", nil, latencyProbe) }}
	}
	for _, s := range specs {
		if s.name == name {
			s := s
			// A rate-limit probe spends a budget on purpose: it runs alone
			// and owns the run's traffic plan (check.Alone).
			return &check.Check{ID: "load/" + s.name, Title: s.title, Rules: s.rules, Labels: append(append([]string(nil), s.labels...), check.Alone), Needs: s.needs,
				Budget: s.budget,
				Run:    func(t *check.T) { RunProbe(t, s.name, s.rules, s.run) }}
		}
	}
	return nil
}

// IsDisruptive tells whether probe name exhausts a budget shared beyond
// the harness.
func IsDisruptive(name string) bool { _, ok := Warnings[name]; return ok }

// budgetBurst sends n hits on ts in one window; on a real clock a burst
// that straddles a boundary is redone once in the next window.
func (p *Probe) budgetBurst(label string, ts []vegeta.Target, n int, fresh func(*vegeta.Target)) []outcome {
	for attempt := 0; ; attempt++ {
		p.clear(3 * time.Second)
		os := p.burst(label, ts, n, fresh, 0)
		if !straddles(os) {
			return os
		}
		if attempt == 1 {
			p.T.NoVerdict(fmt.Errorf("%s straddled a minute boundary twice", label))
		}
		p.T.Logf("%s straddled a minute boundary; redone in the next window", label)
		p.to(1, true)
	}
}

// freshBurst is budgetBurst on budgets the probe assumes untouched: on a
// real clock it starts at once and, when fewer than want are admitted and
// the rest are 429 (the budget was touched earlier in the minute), redoes
// the burst once at the start of the next minute.
func (p *Probe) freshBurst(label string, ts []vegeta.Target, n, want int, fresh func(*vegeta.Target)) []outcome {
	os := p.budgetBurst(label, ts, n, fresh)
	if ad, _, other := count(os); !p.Clock.Virtual && ad < want && other == 0 {
		p.T.Logf("%s: %d admitted, the budget was touched earlier in this minute; redone in the next", label, ad)
		p.to(1, true)
		os = p.budgetBurst(label+" (redone)", ts, n, fresh)
	}
	return os
}

func routeBudgetProbe(p *Probe) {
	me := []vegeta.Target{p.target("tenant", http.MethodGet, v1+"/me")}
	const extra = 5
	// Start at once (a virtual clock is at :01 of a fresh minute); on a real
	// clock the budget may have been touched earlier in this minute: then
	// the burst is redone once at the start of the next one.
	os := p.budgetBurst("GET /me x605", me, routeBudget+extra, nil)
	admitted, limited, other := count(os)
	if !p.Clock.Virtual && admitted < routeBudget && other == 0 {
		p.T.Logf("%d of 605 admitted: the budget was touched earlier in this minute; redone in the next", admitted)
		p.to(1, true)
		os = p.budgetBurst("GET /me x605 (redone)", me, routeBudget+extra, nil)
		admitted, limited, other = count(os)
	}
	p.Measure("admitted per key, method and template in one clock minute", routeBudget, admitted)
	if other > 0 || admitted != routeBudget || limited != extra {
		p.T.FatalAt(offending(os, routeBudget).response(), "RATE-004", "%d GET /me of one key in one clock minute: %d admitted, %d 429, %d other; want exactly %d admitted, %d 429", len(os), admitted, limited, other, routeBudget, extra)
	}
	p.limitedShape(os, "GET /me past the budget")
	p.noRateLimitHeaders(os)
	for _, o := range os {
		if o.code == http.StatusTooManyRequests && len(o.retryAfter) == 1 {
			p.Measure("Retry-After of a 429 (s)", fmt.Sprintf("%d ±1 (to the next clock minute)", check.SecondsLeft(o.at)), o.retryAfter[0])
			break
		}
	}
	p.to(0.2, true)
	after := p.burst("GET /me after the boundary", me, 1, nil, 1)
	if after[0].code != http.StatusOK {
		p.T.FatalAt(after[0].response(), "RATE-004", "the first GET /me after the minute boundary is %d, want 200 (a new window)", after[0].code)
	}
	p.noRateLimitHeaders(after)
}

func templateProbe(p *Probe) {
	a := p.target("tenant", http.MethodGet, v1+"/customers/"+p.T.Customer("active_personal"))
	b := p.target("tenant", http.MethodGet, v1+"/customers/"+p.T.Customer("active_business"))
	c := p.target("tenant", http.MethodGet, v1+"/customers/"+p.T.Customer("draft"))
	os := p.freshBurst("GET /customers/{a|b} x600", []vegeta.Target{a, b}, routeBudget, routeBudget, nil)
	if ad, _, _ := count(os); ad != routeBudget {
		p.T.NoVerdict(fmt.Errorf("300 + 300 GET /customers/{a|b}: %d admitted, want 600 (the budget is the route-budget probe's)", ad))
	}
	last := p.burst("GET /customers/{c}", []vegeta.Target{c}, 1, nil, 1)
	p.Measure("GET /customers/{c} after 600 on {a} and {b}", 429, last[0].code)
	if last[0].code != http.StatusTooManyRequests {
		p.T.FatalAt(last[0].response(), "RATE-005", "GET /customers/{c} after 300 on {a} and 300 on {b} is %d, want 429: the template does not share one counter", last[0].code)
	}
}

func methodProbe(p *Probe) {
	list := p.target("tenant", http.MethodGet, v1+"/customers?limit=1")
	os := p.freshBurst("GET /customers x601", []vegeta.Target{list}, routeBudget+1, routeBudget, nil)
	if ad, lim, _ := count(os); ad != routeBudget || lim != 1 {
		p.T.NoVerdict(fmt.Errorf("601 GET /customers: %d admitted, %d 429; want 600 and 1 (the budget is the route-budget probe's)", ad, lim))
	}
	// No Idempotency-Key: past the rate limit (step 4) the POST stops at
	// step 5 with 400, so nothing is created.
	post := p.target("tenant", http.MethodPost, v1+"/customers")
	post.Body = []byte("{}")
	post.Header.Set("Content-Type", "application/json")
	r := p.burst("POST /customers", []vegeta.Target{post}, 1, nil, 1)
	p.Measure("POST /customers after 600 GET /customers", "not 429", r[0].code)
	if r[0].code == http.StatusTooManyRequests {
		p.T.FatalAt(r[0].response(), "RATE-006", "POST /customers is 429 after 600 GET /customers: GET and POST share a budget")
	}
}

func keyProbe(p *Probe) {
	// keys.read_only and keys.pascal_scopes: budgets the probes before it
	// leave untouched.
	a := p.target("read_only", http.MethodGet, v1+"/me")
	b := p.target("pascal_scopes", http.MethodGet, v1+"/me")
	os := p.freshBurst("GET /me x601 keys.read_only", []vegeta.Target{a}, routeBudget+1, routeBudget, nil)
	if ad, lim, _ := count(os); ad != routeBudget || lim != 1 {
		p.T.NoVerdict(fmt.Errorf("601 GET /me: %d admitted, %d 429; want 600 and 1", ad, lim))
	}
	osb := p.burst("GET /me x600 keys.pascal_scopes", []vegeta.Target{b}, routeBudget, nil, 0)
	if straddles(append(os, osb...)) {
		p.T.NoVerdict(fmt.Errorf("the two keys' bursts straddled a minute boundary"))
	}
	ad, lim, _ := count(osb)
	p.Measure("admitted for a second key after the first spent its budget", routeBudget, ad)
	if ad != routeBudget {
		p.T.FatalAt(offending(osb, routeBudget).response(), "RATE-007", "600 GET /me with keys.pascal_scopes after keys.read_only spent its budget: %d admitted, %d 429; keys share a counter", ad, lim)
	}
}

func tenantProbe(p *Probe) {
	keys := []string{"tenant", "read_only", "pascal_scopes", "umbrella", "subject"}
	var ts []vegeta.Target
	for _, k := range keys {
		// Two routes per key, one per prefix: ten budgets of 600 = 6,000.
		ts = append(ts, p.target(k, http.MethodGet, v1+"/me"), p.target(k, http.MethodGet, v1+"/customers?limit=1"))
	}
	// The clock minute the probe owns (a real clock), or :01 of a
	// fresh one (a virtual clock: the runner moved there).
	p.Clock.Fresh()
	os := p.budgetBurst("10 budgets x 600", ts, tenantBudget, nil)
	ad, lim, other := count(os)
	if ad != tenantBudget {
		p.T.NoVerdict(fmt.Errorf("6,000 requests over ten key/route budgets: %d admitted, %d 429, %d other; want all admitted", ad, lim, other))
	}
	last := p.burst("6,001st on V2", []vegeta.Target{p.target("tenant", http.MethodGet, v2+"/customers")}, 1, nil, 1)
	p.Measure("tenant-wide requests admitted in 60 s", tenantBudget, fmt.Sprintf("%d, then the 6,001st (GET V2/customers, untouched route) %d", ad, last[0].code))
	if last[0].code != http.StatusTooManyRequests {
		p.T.FatalAt(last[0].response(), "RATE-010", "the tenant's 6,001st request in the minute (GET %s/customers, an untouched route budget) is %d, want 429", v2, last[0].code)
	}
	p.limitedShape(last, "the tenant's 6,001st request")
}

func boundaryProbe(p *Probe) {
	// keys.umbrella: a budget the probes before it leave untouched.
	me := []vegeta.Target{p.target("umbrella", http.MethodGet, v1+"/me")}
	// :55 leaves a real target five seconds for 600 requests. On a real
	// clock the probe uses this minute's :55 when it is far enough ahead,
	// and redoes the first burst once at the next :55 when the budget had
	// been touched earlier in the minute.
	next := p.Clock.Virtual
	if !next {
		now := p.Clock.Now()
		next = now.Sub(now.Truncate(time.Minute)) > 50*time.Second
	}
	var os []outcome
	var before int
	for attempt := 0; attempt < 2; attempt++ {
		at := p.to(55, next || attempt == 1)
		os = p.burst("GET /me x600 before the boundary", me, routeBudget, nil, 0)
		if straddles(os) || os[0].at.Truncate(time.Minute) != at.Truncate(time.Minute) {
			p.T.NoVerdict(fmt.Errorf("the first 600 did not finish before the boundary (started %s)", at.Format("15:04:05")))
		}
		if before, _, _ = count(os); before == routeBudget || p.Clock.Virtual {
			break
		}
		p.T.Logf("600 GET /me at :55: %d admitted (budget touched earlier in the minute); redone at the next :55", before)
	}
	if before != routeBudget {
		p.T.NoVerdict(fmt.Errorf("600 GET /me at :55: %d admitted, want 600", before))
	}
	p.to(0.2, true)
	os = p.burst("GET /me x601 after the boundary", me, routeBudget+1, nil, 0)
	after, lim, _ := count(os)
	p.Measure("admitted across one boundary (600 at :55, 601 at :00)", 2*routeBudget, before+after)
	if after != routeBudget || lim != 1 {
		p.T.FatalAt(offending(os, routeBudget).response(), "RATE-008", "601 GET /me just after the boundary, 600 having passed just before it: %d admitted, %d 429; want 600 and 1 (fixed clock-minute windows, not sliding)", after, lim)
	}
}

func failedAuthProbe(p *Probe) {
	// The whole sequence in one clock minute, whose failed-auth budget the
	// probe owns (check.Budget.Auth). The successes go to GET
	// /customers/{id}/onboarding/status, a route budget no other probe
	// spends.
	p.clear(5 * time.Second)
	good := p.target("tenant", http.MethodGet, v1+"/customers/"+p.T.Customer("active_personal")+"/onboarding/status")
	prefix, _, _ := strings.Cut(good.Header.Get("X-Api-Key"), ".")
	bad := p.targetKey(prefix+".ts"+strings.ReplaceAll(uuid.NewString(), "-", ""), http.MethodGet, v1+"/me")
	first := p.burst("10 wrong secrets", []vegeta.Target{bad}, failedAuthBudget/2, nil, 1)
	okays := p.burst("30 successes", []vegeta.Target{good}, 30, nil, 4)
	second := p.burst("11 wrong secrets", []vegeta.Target{bad}, failedAuthBudget/2+1, nil, 1)
	all := append(append([]outcome{}, first...), second...)
	if straddles(append(all, okays...)) {
		p.T.NoVerdict(fmt.Errorf("the failed-auth sequence straddled a minute boundary"))
	}
	if ad, _, _ := count(okays); ad != 30 {
		p.T.NoVerdict(fmt.Errorf("30 GET /customers/{id}/onboarding/status with keys.tenant: %d admitted", ad))
	}
	refused := 0
	for _, o := range all {
		if o.code == http.StatusUnauthorized || o.code == http.StatusForbidden {
			refused++
		}
	}
	_, lim, _ := count(all)
	p.Measure("failed authentications answered 401/403 before 429 (one IP, 60 s)", failedAuthBudget, refused)
	if second[0].code == http.StatusTooManyRequests && refused < failedAuthBudget {
		p.T.FatalAt(second[0].response(), "RATE-013", "after 10 failures and 30 successful calls the next failure is 429: successes consumed the failed-auth budget (%d 401/403 in all)", refused)
	}
	if refused != failedAuthBudget || lim != 1 || all[len(all)-1].code != http.StatusTooManyRequests {
		p.T.FatalAt(all[len(all)-1].response(), "RATE-012", "21 failed authentications from one IP in one minute: %d answered 401/403, %d 429 (last %d); want 20 then 429", refused, lim, all[len(all)-1].code)
	}
	p.limitedShape(all, "the 21st failed authentication")
}

func accessProbe(p *Probe) {
	t := p.target("tenant", http.MethodPost, v2+"/access-requests")
	t.Header.Set("Content-Type", "application/json")
	fresh := func(t *vegeta.Target) {
		newIdempotencyKey(t)
		t.Body = []byte(fmt.Sprintf(`{"email":"ts-%s@example.com","companyName":"Touchstone Harness Ltd","name":"Touchstone Harness"}`, uuid.NewString()))
	}
	// Untouched in this minute: the runner moved a virtual clock to a
	// fresh one; on a real clock the probe owns it in its minutes.
	os := p.budgetBurst("POST V2/access-requests x601", []vegeta.Target{t}, routeBudget+1, fresh)
	ad, lim, other := count(os)
	p.sum.AccessRequestsBudget = ad
	p.Measure("POST V2/access-requests admitted per key in one clock minute", "below 600 (numbers not shown)", ad)
	if other > 0 {
		p.T.NoVerdict(fmt.Errorf("POST V2/access-requests: %d answers neither 2xx nor 429 (the harness's guessed body?)", other))
	}
	if ad >= routeBudget || lim == 0 {
		p.T.FatalAt(os[len(os)-1].response(), "RATE-014", "601 POST V2/access-requests of one key in one minute: %d admitted, %d 429; want a budget tighter than the general 600", ad, lim)
	}
	p.limitedShape(os, "POST V2/access-requests past its budget")
}

// Documented limits the probes' windows are drawn against (document 2,
// Limits).
var (
	perRouteLimit = Limit{Value: routeBudget, What: "per API key, HTTP method and route template"}
	tenantLimit   = Limit{Value: tenantBudget, What: "tenant-wide ceiling, every budget of the tenant", TenantWide: true}
	failedLimit   = Limit{Value: failedAuthBudget, What: "failed authentications (401/403) per source IP"}
	accessLimit   = Limit{Value: routeBudget, What: "the general per-route budget: access-requests is documented tighter, its number not shown"}
	latencyLimits = []Limit{perRouteLimit, tenantLimit}
	limits        = map[string][]Limit{
		"route-budget": {perRouteLimit}, "template-sharing": {perRouteLimit}, "method-separation": {perRouteLimit},
		"key-separation": {perRouteLimit}, "window-boundary": {perRouteLimit}, "tenant-ceiling": {perRouteLimit, tenantLimit},
		"failed-auth": {failedLimit}, "access-requests": {accessLimit}, "latency": latencyLimits,
	}
)

// latencyReads are the latency probe's reads, a key role and a path each:
// budgets (key, method, route template) no other probe spends, so that the
// probes run before it in the same minute leave them untouched. The
// tenant-ceiling probe spends every budget of the tenant at once: after
// it, the probe waits for the next minute (tenantRoom).
var latencyReads = []struct{ key, path string }{
	{"tenant", v2 + "/customers?limit=5"},
	{"read_only", v1 + "/customers?limit=5"}, {"read_only", v2 + "/customers?limit=5"},
	{"pascal_scopes", v1 + "/customers?limit=5"}, {"pascal_scopes", v2 + "/customers?limit=5"},
	{"umbrella", v1 + "/customers?limit=5"}, {"umbrella", v2 + "/customers?limit=5"},
	{"subject", v1 + "/me"}, {"subject", v1 + "/customers?limit=5"}, {"subject", v2 + "/customers?limit=5"},
}

// tenantSpent counts the requests the probes of this run sent in the
// server's clock-minute window starting at minute, over every budget.
func tenantSpent(sums map[string]*Summary, minute time.Time) int {
	n := 0
	for _, s := range sums {
		for _, w := range s.Windows {
			if w.Start.Equal(minute) {
				n += w.Total()
			}
		}
	}
	return n
}

// tenantRoom makes room for n requests under the tenant-wide ceiling: on a
// real clock, when the probes run before this one leave too little of it
// in the current minute (tenant-ceiling leaves none), the probe waits for
// the next minute. A virtual clock starts every check in a fresh minute.
func (p *Probe) tenantRoom(n int) {
	if p.Clock.Virtual {
		return
	}
	now := p.Clock.Now()
	if spent := tenantSpent(p.sess.Summaries(), now.Truncate(time.Minute)); spent+n >= tenantBudget {
		p.T.Logf("the probes before it sent %d requests in this minute: %d more would reach the tenant-wide ceiling (%d); waiting for the next minute", spent, n, tenantBudget)
		p.to(1, true)
	}
}

// latencyProbe sends a steady rate of reads spread over budgets of its own
// so that no limit is reached; it is not a conformance check (no rule
// fixes latency) and runs only under touchstone load.
func latencyProbe(p *Probe) {
	rate, dur := p.opts.LatencyRate, p.opts.LatencyDuration
	var ts []vegeta.Target
	for _, r := range latencyReads {
		if p.T.Target().Profile.Key(r.key) == "" {
			continue
		}
		ts = append(ts, p.target(r.key, http.MethodGet, r.path))
	}
	if len(ts) == 0 {
		p.T.Skipf("profile has no read keys")
	}
	n := int(float64(rate) * dur.Seconds())
	perBudget := (n + len(ts) - 1) / len(ts) // the targets take turns
	if perBudget >= routeBudget || n >= tenantBudget {
		p.T.NoVerdict(fmt.Errorf("latency: %d requests over %d key/route budgets would reach a rate limit; lower the rate or duration", n, len(ts)))
	}
	p.sum.RequestedRate = float64(rate)
	p.clear(dur)
	p.tenantRoom(n)
	p.standStill()
	// Its requests are the probe's own: never held for the budgets (a
	// held request's wait would be measured as latency), and a 429 is its
	// to count as an error, not waited out and sent again. Its budgets
	// are its own and the tenant has room (above), so the plan would hold
	// nothing a conformant target refuses.
	eng := *p.eng
	eng.HTTP = asProbe(traffic.AsProbe(p.T.Context(), nil), p.T.Target().HTTP)
	a := Attack{Name: p.Name, Targeter: Targets(ts, nil), Pacer: vegeta.Rate{Freq: rate, Per: time.Second}, Duration: dur, Workers: p.opts.Workers * 4}
	if err := eng.Run(p.T.Context(), a, p.rec, nil); err != nil {
		p.T.NoVerdict(err)
	}
	sent := p.rec.Requests()
	p.Measure("requests per second", fmt.Sprintf("%d requested", rate), fmt.Sprintf("%.1f sent (%d in %s over %d budgets of its own)", float64(sent)/dur.Seconds(), sent, dur, len(ts)))
}
