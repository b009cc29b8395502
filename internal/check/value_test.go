package check

import (
	"sync"
	"sync/atomic"
	"testing"
)

type keyA struct{}
type keyB struct{}

// A target's values are its own: init runs once per key however many
// goroutines ask at once, keys of different types never meet, SetValue
// replaces, and another target holds nothing of them.
func TestTargetValue(t *testing.T) {
	tgt, other := &Target{}, &Target{}
	var inits atomic.Int32
	var wg sync.WaitGroup
	got := make([]any, 16)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = tgt.Value(keyA{}, func() any { inits.Add(1); return new(int) })
		}()
	}
	wg.Wait()
	if n := inits.Load(); n != 1 {
		t.Fatalf("init ran %d times, want once", n)
	}
	for _, v := range got[1:] {
		if v != got[0] {
			t.Fatalf("concurrent Value calls saw different values")
		}
	}
	if v := tgt.Value(keyB{}, func() any { return "b" }); v != "b" {
		t.Errorf("keyB: %v", v)
	}
	tgt.SetValue(keyA{}, "replaced")
	if v := tgt.Value(keyA{}, func() any { return "init again" }); v != "replaced" {
		t.Errorf("after SetValue: %v", v)
	}
	if v := other.Value(keyA{}, func() any { return "other's own" }); v != "other's own" {
		t.Errorf("another target: %v", v)
	}
}
