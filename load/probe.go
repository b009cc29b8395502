package load

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/traffic"
)

// outcome is the little a probe keeps of one result to judge it.
type outcome struct {
	code       uint16
	at         time.Time // server time the answer arrived
	retryAfter []string
	problem    string // content type of a 429
	errCode    string // problem code of a 429
	rlHeaders  []string
	ex         *client.Exchange // the evidence a failure about this answer carries
}

// response is the answer as a check sees one, so that a failure about it
// carries its exchange (request, key role, answer) as evidence.
func (o outcome) response() *client.Response {
	r := &client.Response{Status: int(o.code), Exchange: o.ex}
	if o.ex != nil && o.ex.Response != nil {
		r.Header, r.Body = o.ex.Response.Header, o.ex.Response.Body
	}
	return r
}

// evidenceBody is how much of an answer's body a probe keeps as evidence.
const evidenceBody = 4 << 10

// exchange records a result as evidence: the request of the target it
// answers (method, URL, headers; the key named by its profile role, so
// that the curl line holds a placeholder) and the answer, its body clipped.
func (p *Probe) exchange(r *vegeta.Result, ts []vegeta.Target) *client.Exchange {
	ex := &client.Exchange{Time: r.Timestamp, Duration: r.Latency, Request: client.RequestRecord{Method: r.Method, URL: r.URL}, Error: r.Error}
	for _, t := range ts {
		if t.Method == r.Method && t.URL == r.URL {
			ex.Request.Header = t.Header.Clone()
			ex.Request.Body = t.Body
			ex.KeyName = p.keyRole(t.Header.Get("X-Api-Key"))
			break
		}
	}
	if r.Code != 0 {
		body := r.Body
		if len(body) > evidenceBody {
			body = body[:evidenceBody]
		}
		ex.Response = &client.ResponseRecord{Status: int(r.Code), Header: r.Headers.Clone(), Body: append([]byte(nil), body...)}
	}
	return ex
}

// keyRole is the profile name of a full key; a profile key's public prefix
// with another secret (the failed-auth probe's) is "<name>_wrong_secret".
func (p *Probe) keyRole(key string) string {
	if key == "" {
		return ""
	}
	prefix, _, _ := strings.Cut(key, ".")
	role := ""
	for name, k := range p.T.Target().Profile.KeyMap() {
		if k == key {
			return name
		}
		if kp, _, _ := strings.Cut(k, "."); k != "" && kp == prefix {
			role = name + "_wrong_secret"
		}
	}
	return role
}

// idSegment is a path segment that names one record: a UUID or a number.
var idSegment = regexp.MustCompile(`^(?:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|[0-9]+)$`)

// routeTemplate is the route template of a request path, in the
// documents' notation: P/... for V1, V2/... for V2, ids as {id}.
func routeTemplate(path string) string {
	for prefix, short := range map[string]string{v1: "P", v2: "V2"} {
		if i := strings.Index(path, prefix+"/"); i >= 0 {
			path = short + path[i+len(prefix):]
			break
		}
	}
	segs := strings.Split(path, "/")
	for i, s := range segs {
		if idSegment.MatchString(s) {
			segs[i] = "{id}"
		}
	}
	return strings.Join(segs, "/")
}

// budget names the rate-limit budget request r spends: method, route
// template and the profile role of its key (never the key itself).
func (p *Probe) budget(r *http.Request) string {
	key := r.Header.Get("X-Api-Key")
	role, ok := p.roles.Load(key)
	if !ok {
		name := p.keyRole(key)
		if name == "" {
			name = "no key"
		} else {
			name = "keys." + name
		}
		role, _ = p.roles.LoadOrStore(key, name)
	}
	return r.Method + " " + routeTemplate(r.URL.Path) + " · " + role.(string)
}

// offending is the first answer that breaks "the first n are admitted, the
// rest are 429", or the last answer when none does.
func offending(os []outcome, n int) outcome {
	for i, o := range os {
		admitted := o.code >= 200 && o.code < 400
		if (i < n && !admitted) || (i >= n && o.code != http.StatusTooManyRequests) {
			return o
		}
	}
	return os[len(os)-1]
}

// Probe is one probe running inside a check: its clock, engine and recorder.
type Probe struct {
	T     *check.T
	Name  string
	Clock *check.Clock // the target's, t.Clock() at the start
	eng   *Engine
	rec   *Recorder
	sum   *Summary
	sess  *Session // the run's (see Attach)
	opts  Options  // sess's
	base  string
	roles sync.Map // X-Api-Key value → "keys.<role>" (in memory only)
}

// start prepares a probe for check t: the clock (virtual through the
// control API, else the traffic plan's, made tight by t.Clock), the engine
// on the harness's client, and the recorder streaming to <OutDir>/<name>.bin.
func start(t *check.T, name string, rules []string) *Probe {
	tg := t.Target()
	sess := sessionOf(tg)
	o := sess.opts
	p := &Probe{T: t, Name: name, sess: sess, opts: o, base: tg.Profile.BaseURL}
	p.eng = &Engine{HTTP: asProbe(t.Context(), tg.HTTP), MaxRequests: o.MaxRequests, MaxDuration: o.MaxDuration, Budget: p.budget}
	p.Clock = t.Clock()
	var w *os.File
	if o.OutDir != "" {
		var err error
		if w, err = os.Create(filepath.Join(o.OutDir, name+".bin")); err != nil {
			t.NoVerdict(err)
		}
	}
	if w != nil {
		p.rec = NewRecorder(w)
	} else {
		p.rec = NewRecorder(nil)
	}
	p.rec.Offset = p.Clock.Offset() // a snapshot at the probe's start
	p.sum = &Summary{Probe: name, Check: "load/" + name, Rules: rules, Virtual: p.Clock.Virtual, ClockOffset: p.rec.Offset,
		Limits: limits[name], Started: time.Now().UTC()}
	return p
}

// asProbe is hc sending every request as the probe's own (vegeta builds
// its requests without the check's context): the run's traffic plan
// neither holds them nor waits out their 429s.
func asProbe(ctx context.Context, hc *http.Client) *http.Client {
	if !traffic.IsProbe(ctx) {
		return hc
	}
	cp := *hc
	next := cp.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	cp.Transport = probeTransport{next: next, slot: traffic.SlotOf(ctx)}
	return &cp
}

type probeTransport struct {
	next http.RoundTripper
	slot *traffic.Slot
}

func (pt probeTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	return pt.next.RoundTrip(r.WithContext(traffic.AsProbe(r.Context(), pt.slot)))
}

// finish closes the recorder and files the summary (also on failure):
// the aggregates, and when the results are on disk, their timeline.
func (p *Probe) finish() {
	if err := p.rec.Close(); err != nil {
		p.T.Logf("load: %v", err)
	}
	if err := p.sum.fill(p.rec); err != nil {
		p.T.Logf("load: %v", err)
	}
	p.sum.Windows = p.rec.Windows()
	if p.opts.OutDir != "" {
		src := []binSource{{path: filepath.Join(p.opts.OutDir, p.Name+".bin"), offset: p.rec.Offset}}
		tl, err := p.rec.timeline(p.Clock.Virtual, src, p.rec.clientBoundaries())
		if err != nil {
			p.T.Logf("load: timeline: %v", err)
		}
		p.sum.Timeline = tl
	}
	p.sum.Duration = time.Since(p.sum.Started)
	p.sum.Passed = !p.T.Failed()
	p.sess.file(p.sum)
}

// Measure records a measured value beside the documented one.
func (p *Probe) Measure(what string, documented, measured any) {
	p.sum.Measures = append(p.sum.Measures, Measure{What: what, Documented: fmt.Sprint(documented), Measured: fmt.Sprint(measured)})
	if len(p.sum.Rules) == 0 { // a measurement: nothing is documented
		p.T.Logf("%s: %v, %v", what, documented, measured)
		return
	}
	p.T.Logf("%s: documented %v, measured %v", what, documented, measured)
}

// target is one vegeta target with the key of profile name.
func (p *Probe) target(keyName, method, path string) vegeta.Target {
	key := p.T.Target().Profile.Key(keyName)
	if key == "" {
		p.T.Skipf("profile has no keys.%s", keyName)
	}
	return p.targetKey(key, method, path)
}

func (p *Probe) targetKey(key, method, path string) vegeta.Target {
	h := http.Header{"X-Api-Key": {key}, "Accept": {"application/json"}, "X-Correlation-Id": {p.T.CaseID()}}
	return vegeta.Target{Method: method, URL: p.base + path, Header: h}
}

// standStill files the results that follow at the virtual clock's time,
// which stands still while the probe sends (the zero time on a real one).
func (p *Probe) standStill() time.Time {
	var fixed time.Time
	if p.Clock.Virtual {
		fixed = p.Clock.Now()
	}
	p.rec.SetFixed(fixed)
	return fixed
}

// burst sends n hits cycling through ts as fast as Workers allow and
// returns what each answered, in arrival order.
func (p *Probe) burst(label string, ts []vegeta.Target, n int, fresh func(*vegeta.Target), workers uint64) []outcome {
	if workers == 0 {
		workers = uint64(p.T.Target().Plan().InFlight(int(p.opts.Workers)))
	}
	if p.opts.MaxRequests > 0 && uint64(n) > p.opts.MaxRequests {
		p.T.NoVerdict(fmt.Errorf("%s needs %d requests; --max-requests is %d", label, n, p.opts.MaxRequests))
	}
	var out []outcome
	var mu sync.Mutex
	fixed := p.standStill()
	a := Attack{Name: p.Name + ":" + label, Targeter: Targets(ts, fresh), Pacer: Count{N: uint64(n)}, Workers: workers}
	err := p.eng.Run(p.T.Context(), a, p.rec, func(r *vegeta.Result) {
		o := outcome{code: r.Code, at: r.Timestamp.Add(r.Latency).Add(p.Clock.Offset()), ex: p.exchange(r, ts)}
		if !fixed.IsZero() {
			o.at = fixed
		}
		for name := range r.Headers {
			if strings.HasPrefix(strings.ToLower(name), "x-ratelimit") {
				o.rlHeaders = append(o.rlHeaders, name)
			}
		}
		if r.Code == http.StatusTooManyRequests {
			o.retryAfter = r.Headers.Values("Retry-After")
			o.problem = r.Headers.Get("Content-Type")
			var body struct {
				Code string `json:"code"`
			}
			_ = json.Unmarshal(r.Body, &body)
			o.errCode = body.Code
		}
		mu.Lock()
		out = append(out, o)
		mu.Unlock()
	})
	if err != nil {
		p.T.NoVerdict(err)
	}
	if len(out) != n {
		p.T.NoVerdict(fmt.Errorf("%s: %d of %d requests were sent (bounded by --max-requests/--max-duration?)", label, len(out), n))
	}
	for _, o := range out {
		if o.code == 0 {
			p.T.NoVerdict(fmt.Errorf("%s: a request got no HTTP answer (transport error or timeout)", label))
		}
	}
	return out
}

// count tallies admitted (2xx/3xx), limited (429) and other answers.
func count(os []outcome) (admitted, limited, other int) {
	for _, o := range os {
		switch {
		case o.code == http.StatusTooManyRequests:
			limited++
		case o.code >= 200 && o.code < 400:
			admitted++
		default:
			other++
		}
	}
	return
}

// straddles tells whether a burst's answers span a minute boundary.
func straddles(os []outcome) bool {
	if len(os) == 0 {
		return false
	}
	lo, hi := os[0].at, os[0].at
	for _, o := range os {
		if o.at.Before(lo) {
			lo = o.at
		}
		if o.at.After(hi) {
			hi = o.at
		}
	}
	return !lo.Truncate(time.Minute).Equal(hi.Truncate(time.Minute))
}

// clear makes sure a burst of about need can finish before the next
// boundary: on a real clock it waits for the next minute when too little is
// left; a virtual clock stands still.
func (p *Probe) clear(need time.Duration) {
	if p.Clock.Virtual {
		return
	}
	now := p.Clock.Now()
	left := now.Truncate(time.Minute).Add(time.Minute).Sub(now)
	if left < need+2*time.Second {
		p.boundary(now.Truncate(time.Minute).Add(time.Minute))
		p.Clock.To(1, true)
	}
}

// boundary notes a window boundary for the report.
func (p *Probe) boundary(at time.Time) {
	p.sum.Boundaries = append(p.sum.Boundaries, at.UTC())
}

// to moves the clock (see check.Clock.To) and notes a crossed boundary.
func (p *Probe) to(sec float64, next bool) time.Time {
	before := p.Clock.Now()
	now := p.Clock.To(sec, next)
	if !now.Truncate(time.Minute).Equal(before.Truncate(time.Minute)) {
		p.boundary(now.Truncate(time.Minute))
	}
	return now
}

var wholeSeconds = regexp.MustCompile(`^[0-9]+$`)

// limitedShape checks every 429 of os: problem+json rate_limited, one
// whole-second Retry-After pointing at the next minute boundary of the
// server's clock within 1 s (rules given by the caller's check).
func (p *Probe) limitedShape(os []outcome, what string) {
	for _, o := range os {
		if o.code != http.StatusTooManyRequests {
			continue
		}
		if !strings.HasPrefix(o.problem, "application/problem+json") || o.errCode != "rate_limited" {
			p.T.FatalAt(o.response(), "RATE-003", "%s: 429 with Content-Type %q and code %q, want application/problem+json and rate_limited", what, o.problem, o.errCode)
		}
		if len(o.retryAfter) != 1 {
			p.T.FatalAt(o.response(), "RATE-001", "%s: 429 carries %d Retry-After headers %q, want one", what, len(o.retryAfter), o.retryAfter)
		}
		if !wholeSeconds.MatchString(o.retryAfter[0]) {
			p.T.FatalAt(o.response(), "RATE-017", "%s: Retry-After %q, want whole seconds", what, o.retryAfter[0])
		}
		ra, _ := strconv.Atoi(o.retryAfter[0])
		want := check.SecondsLeft(o.at)
		if d := ra - want; d > 1 || d < -1 {
			p.T.FatalAt(o.response(), "RATE-016", "%s: Retry-After %d at server time %s, want %d ±1 (seconds to the next clock minute)", what, ra, o.at.Format("15:04:05.000"), want)
		}
	}
}

// noRateLimitHeaders fails when any answer carries X-RateLimit-*.
func (p *Probe) noRateLimitHeaders(os []outcome) {
	for _, o := range os {
		if len(o.rlHeaders) > 0 {
			p.T.FatalAt(o.response(), "RATE-002", "an answer (%d) carries %v: no X-RateLimit-* headers exist", o.code, o.rlHeaders)
		}
	}
}

// newIdempotencyKey gives each hit its own key.
func newIdempotencyKey(t *vegeta.Target) { t.Header.Set("Idempotency-Key", "ts-"+uuid.NewString()) }
