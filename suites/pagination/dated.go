package pagination

import (
	"fmt"
	"net/http"
	"time"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
)

// pagingChange is when v1 list pagination began returning real totals and
// honouring page (document 2, Versioning 5; VER-009).
var pagingChange = time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)

// afterPagingChange skips unless the target's current date is on or after
// the change (VER-011): the virtual clock when the target has one, else
// the Date header of an unauthenticated request.
func afterPagingChange(t *check.T) {
	var now time.Time
	if t.Target().Control != nil {
		c, err := t.Target().Control.Clock(t.Context())
		if err != nil {
			t.NoVerdict(err)
		}
		now = c.Now
	} else {
		r := t.Do(t.Anonymous(), client.Request{Method: http.MethodGet, Path: "/openapi/v1.json"})
		d, err := http.ParseTime(r.Header.Get("Date"))
		if err != nil {
			t.NoVerdict(fmt.Errorf("the target's date is unknown: Date header %q", r.Header.Get("Date")))
		}
		now = d
	}
	if now.Before(pagingChange) {
		t.Skipf("the target's date %s is before %s, when real totals and page began (VER-009)", now.Format(time.RFC3339), pagingChange.Format("2006-01-02"))
	}
}
