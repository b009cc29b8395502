package traffic

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestStats(t *testing.T) {
	c := &fakeClock{now: time.Date(2026, 1, 1, 10, 0, 50, 0, time.UTC)}
	p := planOn(c)
	// The target runs 20.5 s ahead: its minute 10:01 starts at our
	// 10:00:39.5.
	tgt := &fakeTarget{now: c.Now, offset: 20500 * time.Millisecond}
	tr := &Transport{Plan: p, Next: tgt}
	bg := context.Background()
	send(t, tr, meRequest())                                                   // 200, target 10:01:10.5
	send(t, tr, request(bg, http.MethodGet, "/api/v1/partner/me", unknownKey)) // 401, 10:01:10.5
	send(t, tr, request(ExpectKeyRefusal(bg), http.MethodPost, "/api/v1/partner/payouts", readOnlyKey))
	// A failed authentication (403 api_key_not_authorized) to a request
	// sorted Budgets (readOnlyKey is issued, the request not marked
	// ExpectKeyRefusal; the target refuses it on POST): unmarked.
	send(t, tr, request(bg, http.MethodPost, "/api/v1/partner/payouts", readOnlyKey))
	// Two target minutes later (our 10:03:00 is its 10:03:20.5).
	c.set(time.Date(2026, 1, 1, 10, 3, 0, 0, time.UTC))
	send(t, tr, request(bg, http.MethodGet, "/api/v1/partner/me", ""))
	send(t, tr, meRequest())

	st := p.Stats()
	if st.Sent != 3 || st.FailedAuth != 4 || st.Unmarked != 1 {
		t.Errorf("Sent %d, FailedAuth %d, Unmarked %d; want 3, 4, 1", st.Sent, st.FailedAuth, st.Unmarked)
	}
	s := st.String()
	for _, w := range []string{"3 requests", "4 failed authentications", "(1 failed authentications to requests not sent to be refused)"} {
		if !strings.Contains(s, w) {
			t.Errorf("String() = %q, lacks %q", s, w)
		}
	}

	// Other 403s are not failed authentications; 403
	// api_key_not_authorized is.
	p = planOn(c)
	for _, a := range []answer{{status: 403, code: "policy_forbidden"}, {status: 403, code: CodeNotAuthorized}} {
		tr := &Transport{Plan: p, Next: &scripted{answers: []answer{a}}}
		send(t, tr, meRequest())
	}
	if st := p.Stats(); st.FailedAuth != 1 || st.Unmarked != 1 {
		t.Errorf("a policy 403 and an api_key_not_authorized 403: FailedAuth %d, Unmarked %d; want 1, 1", st.FailedAuth, st.Unmarked)
	}
}

// OnAnswer hears each API request the plan admitted, with the problem
// code of a 401 or 403.
func TestOnAnswer(t *testing.T) {
	c := &fakeClock{now: t0}
	p := planOn(c)
	type heard struct {
		path   string
		k      Kind
		status int
		code   string
	}
	var got []heard
	p.OnAnswer = func(r *http.Request, k Kind, status int, code string) {
		got = append(got, heard{r.URL.Path, k, status, code})
	}
	tr := &Transport{Plan: p, Next: &fakeTarget{now: c.Now}}
	send(t, tr, meRequest())
	send(t, tr, request(context.Background(), http.MethodGet, "/api/v1/partner/me", ""))
	send(t, tr, request(context.Background(), http.MethodGet, "/openapi/v1.json", ""))
	if len(got) != 2 || got[0].status != 200 || got[0].code != "" || !got[0].k.Budgets ||
		got[1].status != 401 || got[1].code != CodeAuthenticationFailed || !got[1].k.FailedAuth {
		t.Errorf("heard %+v", got)
	}
}
