package ratelimit

import (
	"fmt"
	"net/http"
	"time"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// reopensChecks are the checks of reopens.go.
func reopensChecks() []check.Check {
	return []check.Check{
		{
			ID:     "ratelimit/window-reopens",
			Title:  "after a 429 with Retry-After RA, a request at RA-2 s is still 429 and one at RA+0.5 s passes",
			Rules:  []string{"RATE-008", "RATE-016", "RATE-004"},
			Needs:  []string{"keys.pascal_scopes"},
			Budget: &check.Budget{Routes: []string{route("pascal_scopes", "GET", customers)}, Tenant: 603, Windows: 2},
			Run: func(t *check.T) {
				clk := t.Clock()
				c := t.Client("pascal_scopes")
				r := list(customers)
				_, lim, ra := overBudget(t, clk, c, r)
				if ra < 3 {
					t.NoVerdict(fmt.Errorf("Retry-After %d is too short to probe before the window ends", ra))
				}
				// The clock's instant of the answer, then RA-2 s and RA+0.5 s
				// after it, in the clock's own time.
				at := clk.At(lim)
				clk.To(secondOf(at.Add(time.Duration(ra)*time.Second-2*time.Second)), false)
				limited(t, "RATE-016", t.Do(c, r), "GET /customers two seconds before Retry-After ends")
				end := at.Add(time.Duration(ra)*time.Second + 500*time.Millisecond)
				clk.To(secondOf(end), !end.Truncate(time.Minute).Equal(at.Truncate(time.Minute)))
				shape.StatusAnswer(t, t.Do(c, r), shape.Want{Rule: "RATE-008", Status: http.StatusOK, What: fmt.Sprintf("GET /customers half a second after Retry-After (%d s) ended", ra)})
			},
		},
	}
}

// secondOf is at's second of its minute, with the fraction.
func secondOf(at time.Time) float64 {
	return at.Sub(at.Truncate(time.Minute)).Seconds()
}
