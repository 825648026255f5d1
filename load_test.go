package pgcache_test

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pgcache/pgcache"
)

// load is a concurrent read load, as TestStress and TestSoak run it:
// workers goroutines read in iterations until the load's time is up (each at
// least once), while one more goroutine disturbs the cache after every
// pause, until the workers are done.
type load struct {
	workers  int
	duration time.Duration
	seed     uint64 // the second seed of each worker's PCG; the first is its number
	// read runs iteration iter of worker w and returns the rows it read,
	// which count even when it fails.
	read    func(w, iter int, rng *rand.Rand) (rows int, err error)
	pause   func() time.Duration
	disturb func() error
}

// run runs the load, reports on t every error a worker or the disturbing
// goroutine returned (each stops at its first), and returns the rows read
// and how often the cache was disturbed.
func (l load) run(t *testing.T) (rows int64, disturbed int64) {
	t.Helper()
	stop := time.Now().Add(l.duration)
	var (
		wg, disturbing sync.WaitGroup
		read, times    atomic.Int64
		errs           = make(chan error, l.workers+1)
		done           = make(chan struct{})
	)
	for w := range l.workers {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), l.seed))
			for iter := 0; iter == 0 || time.Now().Before(stop); iter++ {
				n, err := l.read(w, iter, rng)
				read.Add(int64(n))
				if err != nil {
					errs <- fmt.Errorf("worker %d, iteration %d: %w", w, iter, err)
					return
				}
			}
		})
	}
	disturbing.Go(func() {
		for {
			select {
			case <-done:
				return
			case <-time.After(l.pause()):
			}
			if err := l.disturb(); err != nil {
				errs <- err
				return
			}
			times.Add(1)
		}
	})
	wg.Wait()
	close(done)
	disturbing.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	return read.Load(), times.Load()
}

// loadTraffic checks that every non-NULL value a load read was counted
// exactly once, in one table, and that both tables hit; values is the
// number read per table. It returns the traffic for further checks.
func loadTraffic(t *testing.T, before, after pgcache.CacheStats, values int64) (num, hs counts) {
	t.Helper()
	num, hs = countsDelta(before.Numeric, after.Numeric), countsDelta(before.Hstore, after.Hstore)
	for _, c := range []struct {
		name string
		c    counts
	}{{"numeric", num}, {"hstore", hs}} {
		if total := c.c.Hits + c.c.Misses + c.c.Admissions + c.c.Bypasses; total != uint64(values) {
			t.Errorf("%s traffic %v adds up to %d, but %d values were read", c.name, c.c, total, values)
		}
		if c.c.Hits == 0 {
			t.Errorf("%s traffic %v: no hits, so the shared path was not exercised", c.name, c.c)
		}
	}
	return num, hs
}
