package pagination

import (
	"sync"
	"time"

	"github.com/touchstone-harness/touchstone/internal/check"
)

// tied prepares the id-tiebreak check's three rows so that they share
// created_at. A virtual clock stands still while they are made one by one.
// On a real clock the timestamps this API renders have whole seconds
// (document 1, Resources: ISO 8601), so rows made together inside one
// second tie as well: at the start of the next second of the harness's
// clock (a target's clock is within a second of it in practice) the three
// are created at once, and l.create hands them out one per call. A target
// that stamps sub-second instants gives distinct created_at; the check
// then skips (there is no tie to order).
func tied(t *check.T, l pagedList) pagedList {
	if t.Target().VirtualClock() {
		t.NeedVirtualClock()
		return l
	}
	var (
		once sync.Once
		mu   sync.Mutex
		ids  []string
	)
	create := l.create
	l.create = func(t *check.T) string {
		once.Do(func() {
			now := time.Now()
			time.Sleep(now.Truncate(time.Second).Add(time.Second + 50*time.Millisecond).Sub(now))
			t.Go(3, func(int) {
				id := create(t)
				mu.Lock()
				ids = append(ids, id)
				mu.Unlock()
			})
			t.Logf("real clock: the three rows were created together at the start of a second, so that they share created_at")
		})
		mu.Lock()
		defer mu.Unlock()
		id := ids[0]
		ids = ids[1:]
		return id
	}
	return l
}
