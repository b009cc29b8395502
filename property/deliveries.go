package property

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"pgregory.net/rapid"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/shape"
	"github.com/touchstone-harness/touchstone/internal/webhooks/verify"
)

// The webhook delivery schedule (document 2, Events / Retries; Delivery
// attempts): per case a new endpoint with a drawn maxAttempts (omitted = 5,
// else 1-25) and a drawn answer for each attempt (2xx, a retryable 408,
// 425, 429 or 5xx, or another 4xx), one customer.created, then the clock
// runs through the whole schedule and one more retry delay past it. The model
// predicts every attempt's instant (30 s after attempt 1, then 1, 2, 4,
// 8 minutes, then every 15: EVT-032, EVT-033), the last attempt (a 2xx
// delivers: EVT-025; another 4xx dead-letters at once: EVT-035; maxAttempts
// retryable failures dead-letter: EVT-034), one X-Webhook-Id throughout and
// a new attempt id each time (EVT-010, EVT-013), and the attempt rows:
// attemptNumber 1..n newest first, Pending with nextRetryAt at the next
// attempt's instant, the last Delivered or DeadLettered (WHM-067, WHM-068,
// WHM-071), responseStatusCode as answered (WHM-069).

var retryable = []int{408, 425, 429, 429, 500, 502, 503, 504}
var final4xx = []int{400, 401, 403, 404, 410, 410, 422}

func retryDelay(attempt int) time.Duration {
	if attempt >= 6 {
		return 15 * time.Minute
	}
	return 30 * time.Second << (attempt - 1)
}

func isRetryable(code int) bool { return code >= 500 || code == 408 || code == 425 || code == 429 }

// deliveriesChecks are the checks of deliveries.go.
func deliveriesChecks() []check.Check {
	rules := []string{"EVT-032", "EVT-033", "EVT-034", "EVT-025", "EVT-035", "EVT-026", "EVT-027", "EVT-028", "EVT-029", "EVT-010", "EVT-013", "WHM-067", "WHM-068", "WHM-069", "WHM-071", "WHM-034"}
	return []check.Check{
		{
			ID:     "property/webhook-delivery-schedule",
			Alone:  check.WithControl,
			Title:  "random endpoint answers per attempt and maxAttempts give exactly the modelled attempt instants, dead-letter point, numbering, constant X-Webhook-Id and attempt rows",
			Rules:  rules,
			Labels: []string{check.Mutating, check.NeedsControl, Label}, Needs: []string{"keys.subject", "customers.parent", "webhook_url"},
			ControlWhy: "the retry schedule runs 7.5 minutes to a fifth attempt, 15 minutes between later ones and hours to a 25th, with the endpoint's answer scripted per attempt: judging it takes a clock the harness can move",
			Run: func(t *check.T) {
				in := newInbox(t)
				defer in.close()
				c := t.Client("subject")
				counted(c)
				parent := t.Customer("parent")
				run(t, "property/webhook-delivery-schedule", rules, func(rt *rapid.T) {
					var log steps
					var maxA any
					limit := 5
					if rapid.IntRange(0, 3).Draw(rt, "explicit maxAttempts") > 0 {
						limit = rapid.OneOf(rapid.IntRange(1, 7), rapid.IntRange(1, 25)).Draw(rt, "maxAttempts")
						maxA = limit
					}
					answers := rapid.SliceOfN(rapid.OneOf(rapid.SampledFrom(retryable), rapid.SampledFrom(retryable), rapid.SampledFrom([]int{200, 204}), rapid.SampledFrom(final4xx), rapid.SampledFrom(final4xx)), 1, 25).Draw(rt, "answers")
					answer := func(n int) int { return answers[min(n, len(answers))-1] }
					// The model: attempts until a non-retryable answer or maxAttempts.
					n := 1
					for n < limit && isRetryable(answer(n)) {
						n++
					}
					id, _ := in.register("subject", maxA)
					defer fresh.DisableSubscription(t, "subject", id)
					in.script(func(endpoint string, k int) int {
						if endpoint != id {
							return http.StatusOK
						}
						return answer(k)
					})
					in.take()
					clk, err := t.Control().Clock(t.Context())
					if err != nil {
						t.NoVerdict(err)
					}
					start := clk.Now
					in.emit("customer.created", parent)
					log.lines = append(log.lines, fmt.Sprintf("1. register an endpoint (maxAttempts %v) answering %v per attempt; control: emit customer.created at %s", maxA, answers, start.Format(time.RFC3339)))
					var total time.Duration
					for k := 1; k < n; k++ {
						total += retryDelay(k)
					}
					// Past the last attempt by one more retry delay: nothing more may come.
					wait := total + retryDelay(n) + time.Second
					if _, err := t.Control().Advance(t.Context(), wait); err != nil {
						t.NoVerdict(err)
					}
					log.lines = append(log.lines, fmt.Sprintf("2. control: the clock advances %s", wait))
					var got []hookRec
					for _, r := range in.take() {
						if r.header.Get(verify.HeaderDeliveryID) == id {
							got = append(got, r)
						}
					}
					if len(got) != n {
						rule := countRule(len(got), n, limit, answer)
						if len(got) < n && maxA == nil {
							// Fewer than the default allows: is the default
							// itself other than 5 (WHM-034)?
							r := t.Do(c, client.Request{Method: http.MethodGet, Path: fresh.Subscriptions + "/" + id})
							var sub struct {
								MaxAttempts json.Number `json:"maxAttempts"`
							}
							if okInto(r, &sub) && sub.MaxAttempts != "" && sub.MaxAttempts.String() != "5" {
								log.add("GET the subscription", r)
								rule = "WHM-034"
							}
						}
						log.fail(rt, "%s: the endpoint received %d attempts, the model %d (maxAttempts %d, answers %v)", rule, len(got), n, limit, answers)
					}
					at := start
					seen := map[string]bool{}
					for k, r := range got {
						if k > 0 {
							at = at.Add(retryDelay(k))
						}
						ts := signedAt(r.header)
						if d := ts.Sub(at); d < -time.Second || d > time.Second {
							log.fail(rt, "%s: attempt %d was signed at %s, the schedule says %s (%s after the event)", scheduleRule(k+1), k+1, ts.Format(time.RFC3339Nano), at.Format(time.RFC3339), at.Sub(start))
						}
						if r.header.Get(verify.HeaderID) != got[0].header.Get(verify.HeaderID) {
							log.fail(rt, "EVT-010: attempt %d X-Webhook-Id %s differs from the first %s", k+1, r.header.Get(verify.HeaderID), got[0].header.Get(verify.HeaderID))
						}
						aid := r.header.Get(verify.HeaderAttemptID)
						if seen[aid] {
							log.fail(rt, "EVT-013: attempt %d repeats attempt id %s", k+1, aid)
						}
						seen[aid] = true
					}
					// The attempt rows, newest first.
					r := t.Do(c, client.Request{Method: http.MethodGet, Path: fresh.Subscriptions + "/" + id + "/delivery-attempts"})
					log.add("GET delivery-attempts", r)
					var page struct {
						Items []struct {
							AttemptNumber json.Number `json:"attemptNumber"`
							Status        string      `json:"status"`
							Code          json.Number `json:"responseStatusCode"`
							NextRetryAt   *string     `json:"nextRetryAt"`
						} `json:"items"`
					}
					if !okInto(r, &page) || len(page.Items) != n {
						log.fail(rt, "WHM-067: delivery attempts answered %d with %d rows, want %d rows: %s", r.Status, len(page.Items), n, shape.Clip(r.Body))
					}
					at = start
					next := map[int]time.Time{}
					for k := 1; k <= n; k++ {
						if k > 1 {
							at = at.Add(retryDelay(k - 1))
						}
						next[k] = at
					}
					for i, row := range page.Items {
						k := n - i
						want := "Pending"
						switch {
						case k < n:
						case answer(k)/100 == 2:
							want = "Delivered"
						default:
							want = "DeadLettered"
						}
						if row.AttemptNumber.String() != strconv.Itoa(k) {
							log.fail(rt, "WHM-067: row %d is attempt %s %s, the model attempt %d %s", i+1, row.AttemptNumber, row.Status, k, want)
						}
						if row.Status != want {
							log.fail(rt, "WHM-068: row %d (attempt %d) is %s, the model %s", i+1, k, row.Status, want)
						}
						if row.Code.String() != strconv.Itoa(answer(k)) {
							log.fail(rt, "WHM-069: attempt %d responseStatusCode %s, the endpoint answered %d", k, row.Code, answer(k))
						}
						switch {
						case want != "Pending" && row.NextRetryAt != nil:
							log.fail(rt, "WHM-071: %s attempt %d has nextRetryAt %s", want, k, *row.NextRetryAt)
						case want == "Pending" && !sameInstant(row.NextRetryAt, ptr(next[k+1])):
							log.fail(rt, "WHM-071/%s: attempt %d nextRetryAt %s, the schedule says %s", scheduleRule(k+1), k, str(row.NextRetryAt), next[k+1].Format(time.RFC3339))
						}
					}
				})
			},
		},
	}
}

func ptr(t time.Time) *time.Time { return &t }

// countRule is the rule a wrong number of attempts breaks. Fewer than the
// model: the sender stopped after an answer that is retried (408 EVT-026,
// 425 EVT-027, 429 EVT-028, 5xx EVT-029) before maxAttempts. More: it went
// on after a 2xx (EVT-025), another 4xx (EVT-035), or past maxAttempts
// (EVT-034).
func countRule(got, n, limit int, answer func(int) int) string {
	if got == 0 {
		return "EVT-034"
	}
	if got < n {
		switch a := answer(got); {
		case a == 408:
			return "EVT-026"
		case a == 425:
			return "EVT-027"
		case a == 429:
			return "EVT-028"
		default:
			return "EVT-029"
		}
	}
	switch a := answer(n); {
	case a/100 == 2:
		return "EVT-025"
	case !isRetryable(a):
		return "EVT-035"
	default:
		return "EVT-034"
	}
}

// scheduleRule is the rule an attempt's instant breaks: the delays before
// attempts 2 to 6 are stated (EVT-032); later ones are the 15-minute cap as
// read (EVT-032, EVT-033).
func scheduleRule(attempt int) string {
	if attempt <= 6 {
		return "EVT-032"
	}
	return "EVT-032/EVT-033"
}
