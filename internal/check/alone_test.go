package check

import (
	"testing"

	"github.com/touchstone-harness/touchstone/internal/control"
)

// TestAloneOnlyWhereItsReasonHolds: a check alone for what it does
// through the control API runs beside the others on a target without it;
// one that reads what any other check's writes change (the customer list,
// a key's enabled endpoints, a webhook area) stays alone everywhere.
func TestAloneOnlyWhereItsReasonHolds(t *testing.T) {
	withControl := &Target{Control: &control.Client{}}
	without := &Target{}
	for _, c := range []struct {
		id             string
		alone          Solitude
		labels         []string
		with, withoutC bool
	}{
		{"demo/moves-the-clock", WithControl, nil, true, false},
		{"demo/reads-the-customer-list", Always, nil, true, true},
		{"demo/labelled", NotAlone, []string{Alone}, true, true},
		{"demo/beside-the-rest", NotAlone, nil, false, false},
	} {
		chk := &Check{ID: c.id, Alone: c.alone, Labels: c.labels}
		if got := chk.aloneOn(withControl); got != c.with {
			t.Errorf("%s with the control API: alone %v, want %v", c.id, got, c.with)
		}
		if got := chk.aloneOn(without); got != c.withoutC {
			t.Errorf("%s without it: alone %v, want %v", c.id, got, c.withoutC)
		}
	}
}
