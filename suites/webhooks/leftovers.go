package webhooks

import (
	"fmt"
	"net/http"
	"sync"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// Racing secret rotations (document 2, Endpoints: Secret rotation), 3xx
// answers from an endpoint (Events: Retries; reading EVT-036) and the
// webhook refusal codes (Errors: Operation codes; reading ERR-124).

// redirectPath is where a scripted 3xx answer points (on the inbox).
const redirectPath = "/ts-redirected"

// webhookRefusal asserts a webhook refusal under the reading ERR-124: the
// status must match; the code is read from data.code (envelope) or the
// top-level code member (flat or problem+json), either accepted.
func webhookRefusal(t *check.T, rule string, r *client.Response, status int, code string) {
	shape.StatusAnswer(t, r, shape.Want{Rule: rule, Status: status, Code: code})
	m := shape.Object(t, rule, r)
	got, where := m["code"], "code"
	if d, ok := m["data"].(map[string]any); ok && d["code"] != nil {
		got, where = d["code"], "data.code"
	}
	if got == nil {
		t.FatalAt(r, "ERR-124", "the %d refusal carries no code in data.code or at the top level; want %s", status, code)
	}
	if got != code {
		t.FatalAt(r, rule, "%s is %v, want %q", where, got, code)
	}
}

// rotate posts a secret rotation with the key.
func rotate(t *check.T, key, id, reason string) *client.Response {
	r := t.Do(t.Client(key), client.Request{Method: http.MethodPost, Path: sub(id) + "/secret-rotations",
		JSON: map[string]any{"reason": reason}, IdempotencyKey: t.NewKey()})
	fresh.HoldSecret(t, r)
	return r
}

// leftoversChecks are the checks of leftovers.go.
func leftoversChecks() []check.Check {
	return []check.Check{
		{
			ID:     "webhooks/rotation-race-loser-not-stored",
			Title:  "Two racing rotations: one wins, the loser gets 409 webhook_secret_rotation_conflict; only the winner's secret is stored (secretSha256) and signs deliveries",
			Rules:  []string{"WHM-051", "ERR-122", "ERR-124", "WHM-076", "WHM-003", "WHM-049", "WHM-052"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.subject", "customers.parent", "webhook_url"},
			Run: func(t *check.T) {
				in, subID, stop := listen(t, "subject", "customer.created")
				defer stop()
				hold := func(ms int) error {
					return t.Control().Call(t.Context(), http.MethodPost, "/webhooks/rotation-hold", map[string]any{"subscription_id": subID, "delay_ms": ms}, nil)
				}
				if err := hold(250); err != nil {
					t.NoVerdict(err)
				}
				defer func() { _ = hold(0) }()
				// Two rotations released together race while the first is held
				// in flight. Two successes with consecutive secretVersions were
				// not a race (the second started after the first finished):
				// try again, at most three rounds.
				var winner, loser *client.Response
				for round := 0; round < 3 && loser == nil; round++ {
					var mu sync.Mutex
					rs := make([]*client.Response, 2)
					t.Go(2, func(i int) {
						r := rotate(t, "subject", subID, fmt.Sprintf("touchstone race %d", i))
						mu.Lock()
						rs[i] = r
						mu.Unlock()
					})
					winner = nil
					var versions []int
					for _, r := range rs {
						switch {
						case r == nil:
							t.NoVerdict(fmt.Errorf("a racing rotation did not answer"))
						case r.Status == http.StatusOK || r.Status == http.StatusCreated:
							versions = append(versions, shape.Int(t, "WHM-049", shape.Object(t, "WHM-049", r), "secretVersion"))
							winner = r
						default:
							loser = r
						}
					}
					if len(versions) == 2 && versions[0] == versions[1] {
						t.FatalAt(winner, "WHM-051", "both racing rotations succeeded with secretVersion %d; one must lose with 409", versions[0])
					}
				}
				if winner == nil || loser == nil {
					t.NoVerdict(fmt.Errorf("three rounds of two rotations released together did not race (no 409 and no shared version)"))
				}
				webhookRefusal(t, "ERR-122", loser, http.StatusConflict, "webhook_secret_rotation_conflict")
				secret := shape.String(t, "WHM-049", shape.Object(t, "WHM-049", winner), "secret")
				got := readSub(t, "WHM-052", subID)
				stored := shape.String(t, "WHM-052", got, "secretSha256")
				// Which secret signs tells what a wrong secretSha256 is: the
				// winner's secret stored but not shown (WHM-052), or the
				// loser's stored (WHM-051).
				in.setSecret(subID, secret)
				in.emit("customer.created", t.Customer("parent"))
				recs := in.await(subID, 1)
				if len(recs) == 0 {
					t.Fatalf("WHM-051", "no delivery after the race")
				}
				var unverified []string
				for _, rec := range recs {
					if !rec.SignatureOK() {
						unverified = append(unverified, rec.Reasons...)
					}
				}
				if stored != sha256Hex(secret) {
					if len(unverified) == 0 {
						t.FatalAt(winner, "WHM-052", "after the race deliveries verify with the winner's secret but GET secretSha256 %s is not its SHA-256", stored)
					}
					t.FatalAt(loser, "WHM-051", "after the race secretSha256 %s is not the SHA-256 of the winner's secret: the loser's secret was stored", stored)
				}
				// "Its returned secret was never stored" (reading WHM-076): a
				// secret the 409 carries is not the stored one.
				lm := shape.Object(t, "WHM-051", loser)
				for _, v := range []any{lm["secret"], func() any { d, _ := lm["data"].(map[string]any); return d["secret"] }()} {
					if ls, ok := v.(string); ok && ls != "" {
						t.Target().Redactor.Add(ls)
						if sha256Hex(ls) == stored {
							t.FatalAt(loser, "WHM-076", "the loser's returned secret is the stored one")
						}
					}
				}
				if len(unverified) > 0 {
					t.Fatalf("WHM-051", "a delivery after the race does not verify with the winner's secret: %v", unverified)
				}
			},
		},
		{
			ID:     "webhooks/redirect-not-followed",
			Title:  "An endpoint answering 307 with a Location is not followed: nothing is posted to the Location",
			Rules:  []string{"EVT-036", "WHM-003"},
			Labels: []string{check.Mutating, check.NeedsControl},
			Needs:  []string{"keys.subject", "customers.parent", "webhook_url"},
			Run: func(t *check.T) {
				in := startInbox(t)
				defer in.close()
				in.script(http.StatusTemporaryRedirect)
				s := in.subscribe("WHM-003", "subject", 1, "customer.created")
				subID := s["subscriptionId"].(string)
				defer disable(t, "subject", subID)
				in.emit("customer.created", t.Customer("parent"))
				in.await(subID, 1)
				if n := len(forSub(in.records(), subID)); n != 1 {
					t.Fatalf("EVT-036", "%d requests arrived for one delivery answered 307 (maxAttempts 1), want 1: the redirect was followed", n)
				}
			},
		},
	}
}
