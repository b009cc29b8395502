package load

import "testing"

func TestCountPacerAndBounds(t *testing.T) {
	p := Count{N: 3}
	for hits, stop := range []bool{false, false, false, true} {
		if _, s := p.Pace(0, uint64(hits)); s != stop {
			t.Errorf("Count{3}.Pace(hits=%d) stop=%v", hits, s)
		}
	}
	b := bounded{Count{N: 100}, 2}
	if _, s := b.Pace(0, 2); !s {
		t.Error("bounded pacer did not stop at its bound")
	}
}
