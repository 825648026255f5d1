package pgcache

import (
	sqldriver "database/sql/driver"
	"fmt"
	"testing"

	"github.com/pgcache/pgcache/cache"
)

// column simulates one cached numeric column of a result set over a private
// table: the lookups Rows.advance makes, with or without the reuse back-off.
type simColumn struct {
	table   *cache.Short[*numEntry]
	tracker reuseTracker
	backoff bool
	counts  cache.Counts
}

func (c *simColumn) read(text []byte) {
	if c.backoff && c.tracker.skipping() {
		c.counts.Bypasses++
		return
	}
	_, reused := lookupNumericRaw(c.table, text, &c.counts)
	if c.backoff {
		c.tracker.observe(reused)
	}
}

func (c *simColumn) hitRatio() float64 {
	n := c.counts.Hits + c.counts.Misses + c.counts.Admissions + c.counts.Bypasses
	return float64(c.counts.Hits) / float64(n)
}

// skipping reports whether the next value should bypass the cache, counting
// it down: Rows.advance's test, for the simulations here.
func (t *reuseTracker) skipping() bool {
	if t.skip > 0 {
		t.skip--
		return true
	}
	return false
}

// price is the i-th of a column's distinct values: 8-byte numeric texts.
func price(i int) []byte { return fmt.Appendf(nil, "%d.%02d", 10000+i/100, i%100) }

// TestReuseBackoffPeriodic: a column that repeats with any period up to the
// table size gets at least 95% of the hits it gets with the back-off
// disabled, from an empty table: a window shorter than the period would
// take such a column for an all-distinct one.
func TestReuseBackoffPeriodic(t *testing.T) {
	const n = 100_000
	for _, period := range []int{1, 2, 50, 128, 129, 200, 300, 1000, 2000, 3000, cache.Slots} {
		t.Run(fmt.Sprint("period=", period), func(t *testing.T) {
			with := &simColumn{table: cache.NewShort[*numEntry](), tracker: newReuseTracker(), backoff: true}
			without := &simColumn{table: cache.NewShort[*numEntry]()}
			for i := range n {
				text := price(i % period)
				with.read(text)
				without.read(text)
			}
			got, ref := with.hitRatio(), without.hitRatio()
			t.Logf("hit ratio %.4f with the back-off, %.4f without (%d bypasses)", got, ref, with.counts.Bypasses)
			if got < 0.95*ref {
				t.Errorf("hit ratio %.4f with the back-off, want at least 95%% of %.4f", got, ref)
			}
		})
	}
	// The issue's own example, ((g % 1000) / 100.0)::numeric(12,2): 1000
	// values 0.00 … 9.99 of 4 bytes each.
	with := &simColumn{table: cache.NewShort[*numEntry](), tracker: newReuseTracker(), backoff: true}
	without := &simColumn{table: cache.NewShort[*numEntry]()}
	for g := 1; g <= n; g++ {
		v := g % 1000
		text := fmt.Appendf(nil, "%d.%02d", v/100, v%100)
		with.read(text)
		without.read(text)
	}
	if got, ref := with.hitRatio(), without.hitRatio(); got < 0.95*ref || with.counts.Bypasses != 0 {
		t.Errorf("(g %% 1000) / 100.0: hit ratio %.4f (%d bypasses) with the back-off, %.4f without", got, with.counts.Bypasses, ref)
	}
}

// TestReuseTracker drives one column's tracker with synthetic outcomes.
func TestReuseTracker(t *testing.T) {
	// runOutcomes feeds n lookups whose outcome is o(i) and returns how many
	// of them were looked up (not skipped); run is runOutcomes with hits
	// where reused(i) and misses elsewhere.
	runOutcomes := func(tr *reuseTracker, n int, o func(i int) outcome) (looked int) {
		for i := range n {
			if tr.skipping() {
				continue
			}
			looked++
			tr.observe(o(i))
		}
		return looked
	}
	run := func(tr *reuseTracker, n int, reused func(i int) bool) (looked int) {
		return runOutcomes(tr, n, func(i int) outcome {
			if reused(i) {
				return hit
			}
			return missed
		})
	}

	t.Run("repeating column never skips", func(t *testing.T) {
		tr := newReuseTracker()
		// A seventh of the lookups hitting is enough to keep consulting
		// the cache (an eighth is the least).
		if looked := run(&tr, 1_000_000, func(i int) bool { return i%7 == 5 }); looked != 1_000_000 {
			t.Fatalf("looked up %d of 1000000 values", looked)
		}
	})

	t.Run("all-distinct column backs off", func(t *testing.T) {
		tr := newReuseTracker()
		never := func(int) bool { return false }
		const n = 10_000_000
		looked := run(&tr, n, never)
		t.Logf("looked up %d of %d all-distinct values (%.2f%%)", looked, n, 100*float64(looked)/n)
		if looked > n/50 {
			t.Fatalf("looked up %d of %d all-distinct values, want under 2%%", looked, n)
		}
		if tr.next != skipMax {
			t.Fatalf("skip length %d after a long distinct run, want the maximum %d", tr.next, skipMax)
		}
	})

	t.Run("probes after a skip are short", func(t *testing.T) {
		tr := newReuseTracker()
		never := func(int) bool { return false }
		// The first window, then the first skip.
		if looked := run(&tr, probeWindow+skipFirst, never); looked != probeWindow {
			t.Fatalf("first window and skip: looked up %d values, want %d", looked, probeWindow)
		}
		// A re-probe without reuse fails at the end of its early part,
		// then the doubled skip begins.
		if looked := run(&tr, earlyWindow+2*skipFirst, never); looked != earlyWindow {
			t.Fatalf("re-probe and second skip: looked up %d values, want %d", looked, earlyWindow)
		}
		// A re-probe that finds reuse runs to its end, reprobeWindow
		// lookups, and ends the back-off: the next window is a full one
		// again.
		always := func(int) bool { return true }
		if looked := run(&tr, reprobeWindow, always); looked != reprobeWindow || tr.next != 0 {
			t.Fatalf("re-probe with reuse: looked up %d, next skip %d; want %d and 0", looked, tr.next, reprobeWindow)
		}
		if looked := run(&tr, probeWindow+earlyWindow+skipFirst, func(i int) bool { return i < probeWindow }); looked != probeWindow+earlyWindow {
			t.Fatalf("after the back-off ended: looked up %d values before skipping, want a full window of %d and the early part of the next, %d",
				looked, probeWindow, earlyWindow)
		}
	})

	t.Run("a window without early reuse fails there", func(t *testing.T) {
		// A re-read of an all-distinct table: its first window admits the
		// values the previous read sighted, and from then on nothing
		// comes back. Only the early part of the second window is spent.
		tr := newReuseTracker()
		if looked := runOutcomes(&tr, probeWindow+earlyWindow+skipFirst, func(i int) outcome {
			if i < probeWindow && i%2 == 0 {
				return admitted
			}
			return missed
		}); looked != probeWindow+earlyWindow {
			t.Fatalf("looked up %d values before the first skip ended, want %d", looked, probeWindow+earlyWindow)
		}
		// Reuse just after the early part is too late.
		tr = newReuseTracker()
		if looked := runOutcomes(&tr, probeWindow+earlyWindow+skipFirst, func(i int) outcome {
			if i < probeWindow || i >= probeWindow+earlyWindow {
				return hit
			}
			return missed
		}); looked != probeWindow+earlyWindow {
			t.Fatalf("looked up %d values before the first skip ended, want %d", looked, probeWindow+earlyWindow)
		}
		// A few hits are not enough either: 2% of the lookups, as on a
		// re-read of an all-distinct table whose earlier reads left entries
		// behind, fail in the early part of the second window.
		tr = newReuseTracker()
		if looked := run(&tr, probeWindow+earlyWindow+skipFirst, func(i int) bool { return i%50 == 0 }); looked != probeWindow+earlyWindow {
			t.Fatalf("2%% hits: looked up %d values before the first skip ended, want %d", looked, probeWindow+earlyWindow)
		}
		// Enough hits in the early part but too few in the whole window:
		// the window runs to its end and fails there.
		tr = newReuseTracker()
		if looked := run(&tr, 2*probeWindow+skipFirst, func(i int) bool {
			return i < probeWindow || (i < probeWindow+earlyWindow && i%2 == 0)
		}); looked != 2*probeWindow {
			t.Fatalf("reuse in the early part only: looked up %d values before the first skip ended, want %d", looked, 2*probeWindow)
		}
	})

	t.Run("a churning column backs off after its warm-up", func(t *testing.T) {
		// Four hits per admission, as a column drawing at random from 1.5
		// times as many values as the table has slots.
		churn := func(i int) outcome {
			switch i % 6 {
			case 0:
				return admitted
			case 1:
				return missed
			}
			return hit
		}
		tr := newReuseTracker()
		if looked := runOutcomes(&tr, (warmWindows+1)*probeWindow+skipFirst, churn); looked != (warmWindows+1)*probeWindow {
			t.Fatalf("looked up %d values before the first skip ended, want the warm-up and one window: %d", looked, (warmWindows+1)*probeWindow)
		}
		// Its re-probes find the same churn: the skips keep doubling.
		if looked := runOutcomes(&tr, reprobeWindow+2*skipFirst, churn); looked != reprobeWindow || tr.next != 4*skipFirst {
			t.Fatalf("re-probe: looked up %d values, next skip %d; want %d and %d", looked, tr.next, reprobeWindow, 4*skipFirst)
		}
	})

	t.Run("hits enough per admission keep the column cached", func(t *testing.T) {
		// A little over churnRatio hits per admission.
		tr := newReuseTracker()
		if looked := runOutcomes(&tr, 1_000_000, func(i int) outcome {
			if i%(churnRatio+2) == 0 {
				return admitted
			}
			return hit
		}); looked != 1_000_000 {
			t.Fatalf("looked up %d of 1000000 values", looked)
		}
	})

	t.Run("a cycle through the whole table passes its warm-up", func(t *testing.T) {
		// A period of cache.Slots from an empty table: sightings, then
		// admissions, then only hits.
		tr := newReuseTracker()
		if looked := runOutcomes(&tr, 1_000_000, func(i int) outcome {
			switch {
			case i < cache.Slots:
				return missed
			case i < 2*cache.Slots:
				return admitted
			}
			return hit
		}); looked != 1_000_000 {
			t.Fatalf("looked up %d of 1000000 values", looked)
		}
	})

	t.Run("reuse found on a probe ends the back-off", func(t *testing.T) {
		tr := newReuseTracker()
		run(&tr, 3*probeWindow, func(int) bool { return false })
		// Let the current skip run out, then the column starts repeating.
		for tr.skipping() {
		}
		if looked := run(&tr, 100_000, func(int) bool { return true }); looked != 100_000 {
			t.Fatalf("after reuse appeared, looked up %d of 100000 values", looked)
		}
		if tr.next != 0 {
			t.Fatalf("skip length %d after a window with reuse, want reset", tr.next)
		}
	})
}

// TestRowsSkippingCount: Rows.backedOff, by which advance decides to pass
// whole rows in bulk, is the number of cached columns in a skip after every
// row. A window that does not pay can be closed by a hit (a column churning
// the table): that skip must be counted too, or rows of such result sets
// would never pass in bulk.
func TestRowsSkippingCount(t *testing.T) {
	c, closeDB := rawConn(t, "pgcache_types=all")
	defer closeDB()
	rec := record(t, c, `SELECT 1000 + abs(hashint8extended(g, 0)) % 6000 AS id, 1000 + abs(hashint8extended(-g, 0)) % 6000 AS ref,
		hashint8extended(g, 1) AS distinct_id FROM generate_series(1, 200000) g`)
	dest := make([]sqldriver.Value, len(rec.fields))
	r := newRows(c, rec, true, rec.query)
	defer r.Close()
	var rows, bulk int
	for r.Next(dest) == nil {
		rows++
		n := 0
		for k := range r.cached {
			if r.cached[k].reuse.skip > 0 {
				n++
			}
		}
		if r.backedOff != n {
			t.Fatalf("row %d: skipping is %d, %d columns are in a back-off", rows, r.backedOff, n)
		}
		if r.inBulk {
			bulk++
		}
	}
	t.Logf("%d of %d rows passed in bulk", bulk, rows)
	if rows != 200000 || bulk < rows/2 {
		t.Fatalf("%d of %d rows passed in bulk, want over half of 200000", bulk, rows)
	}
}
