package pgcache

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/pgcache/pgcache/cache"
	"github.com/pgcache/pgcache/internal/backoff"
)

// boundColumn is one cached numeric column read value by value over a
// private table, as Rows.advance reads it: a row of its skip bypasses the
// table, a packed key is looked up, and a miss goes to the sighting and
// admission with the previous missed key for the quick-admission rule.
type boundColumn struct {
	table  *cache.Short[*numEntry]
	tr     backoff.Tracker
	counts cache.Counts
	last   uint64
	looked int // lookups made, of every value read
}

func newBoundColumn() *boundColumn {
	return &boundColumn{table: cache.NewShort[*numEntry](), tr: backoff.New()}
}

func (c *boundColumn) read(text []byte) {
	if c.tr.Skipping() {
		c.tr.SkipRow()
		return
	}
	c.looked++
	key, ok := cache.Pack(text)
	if !ok {
		panic("a test value does not pack: " + string(text))
	}
	if _, ok := c.table.Get(key); ok {
		c.counts.Hits++
		c.tr.ObserveHit()
		return
	}
	_, o := admitShort(c.table, key, text, &c.counts, buildNumEntry)
	quick := key == c.last
	if o == backoff.Missed {
		c.last = key
	}
	c.tr.ObserveAdmission(o, quick)
}

// boundValue is value i of a pattern segment numbered seg: segments never
// share a value.
func boundValue(seg, i int) []byte { return fmt.Appendf(nil, "%d", seg*10_000_000+i) }

// boundHistory reads a random history into c: segments of repeating
// (periods 1 to 4096), all-distinct and pairs (each value twice in a row)
// values, of random lengths up to 300k values, so that the column ends it
// in any state — warming up, cached, in a skip of any length, re-probing.
// It returns the number of segments read.
func boundHistory(c *boundColumn, rng *rand.Rand) int {
	segs := rng.IntN(5)
	for seg := 1; seg <= segs; seg++ {
		n := rng.IntN(300_000)
		switch rng.IntN(3) {
		case 0:
			period := 1 + rng.IntN(cache.Slots)
			for i := range n {
				c.read(boundValue(seg, i%period))
			}
		case 1:
			for i := range n {
				c.read(boundValue(seg, i))
			}
		case 2:
			for i := range n {
				c.read(boundValue(seg, i/2))
			}
		}
	}
	return segs
}

// readmitPeriod is the longest period of a column that turns repeating
// in a skip which its next probe finds paying: P sightings and P
// admissions, then 8 hits per admission (the churn rule) in a probe.
const readmitPeriod = backoff.ReprobeWindow / (8 + 2)

// TestBackoffBounds states the back-off's bounds as properties of a column
// whose values change their pattern, from random histories:
//
//   - a column that becomes all-distinct makes at most backoff.ProbeWindow +
//     backoff.EarlyWindow lookups before it skips, and then at most backoff.ReprobeWindow
//     per backoff.SkipFirst rows;
//
//   - a column that becomes repeating with a period up to
//     readmitPeriod (64 values) is looked up on every row,
//     and hits, from at most backoff.SkipMax + backoff.ReprobeWindow rows after the change.
//
//   - a column the back-off has not seen, repeating with any period up to
//     cache.Slots, is looked up on every row and gets the hits the table
//     gives it without the back-off — its values sharing their first bytes,
//     as ids and prices do, or not.
func TestBackoffBounds(t *testing.T) {
	c, done := rawConn(t, "")
	defer done()
	for _, period := range []int{1, 2, 63, 64, 65, 200, 1000, 3000, cache.Slots} {
		t.Run(fmt.Sprint("unknown/period=", period), func(t *testing.T) {
			// Through Rows, as a result set of a query not seen before.
			const n = 50_000
			ResetCache()
			rec := numericResult(fmt.Sprint("periodic-", period), n, 1, func(g, _ int) string { return string(boundValue(1, g%period)) })
			before := numericTable.Stats()
			readNext(t, replay(c, rec), rec)
			d := numericTable.Stats()
			looked := d.Hits + d.Misses + d.Admissions - before.Hits - before.Misses - before.Admissions
			without := newBoundColumn()
			for g := range n {
				_, _ = lookupNumericRaw(without.table, boundValue(1, g%period), &without.counts)
			}
			if hits := d.Hits - before.Hits; looked != n || hits < without.counts.Hits*95/100 {
				t.Errorf("%d of %d values looked up, %d hits; want all, and at least 95%% of the %d hits without the back-off",
					looked, n, hits, without.counts.Hits)
			}
		})
	}
	seeds := 12
	if testing.Short() || raceEnabled {
		seeds = 2
	}
	for seed := range seeds {
		rng := rand.New(rand.NewPCG(uint64(seed), 29))
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			t.Run("becomes distinct", func(t *testing.T) {
				c := newBoundColumn()
				segs := boundHistory(c, rng)
				const n = 400_000
				before := c.looked
				for i := range n {
					c.read(boundValue(segs+1, i))
				}
				looked := c.looked - before
				bound := backoff.ProbeWindow + backoff.EarlyWindow + (n+backoff.SkipFirst-1)/backoff.SkipFirst*backoff.ReprobeWindow
				if looked > bound {
					t.Errorf("%d lookups of %d all-distinct values after the history, want at most %d", looked, n, bound)
				}
			})
			t.Run("becomes repeating", func(t *testing.T) {
				c := newBoundColumn()
				segs := boundHistory(c, rng)
				period := 1 + rng.IntN(readmitPeriod)
				const tail = 2 * backoff.ProbeWindow
				for i := range backoff.SkipMax + backoff.ReprobeWindow {
					c.read(boundValue(segs+1, i%period))
				}
				before, hits := c.looked, c.counts.Hits
				for i := range tail {
					c.read(boundValue(segs+1, i%period))
				}
				if looked := c.looked - before; looked != tail {
					t.Errorf("period %d: %d of the last %d values looked up, %d rows after the change; want all", period, looked, tail, backoff.SkipMax+backoff.ReprobeWindow)
				}
				// Values whose slots collide evict each other's sightings and
				// always miss: the cache without the back-off misses them too.
				if got := c.counts.Hits - hits; got < tail*9/10 {
					t.Errorf("period %d: %d hits of the last %d values, want at least 90%%", period, got, tail)
				}
			})
		})
	}
}
