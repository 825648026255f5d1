package backoff

import (
	"fmt"
	"math"
	"testing"

	"github.com/pgcache/pgcache/cache"
)

// simColumn simulates one cached numeric column of a result set over a
// private table: the lookups pgcache's Rows makes of a packed-key column,
// with or without the reuse back-off.
type simColumn struct {
	table   *cache.Short[struct{}]
	tracker Tracker
	backoff bool
	counts  cache.Counts
}

func (c *simColumn) read(text []byte) {
	if c.backoff && c.tracker.skipping() {
		c.counts.Bypasses++
		return
	}
	o := c.lookup(text)
	if c.backoff {
		c.tracker.Observe(o)
	}
}

// lookup is a packed-key table's lookup of a text of 1 to 8 bytes, as
// pgcache's sightShort makes it: a hit, or a sighting that admits the text
// on its second one in a row in its slot.
func (c *simColumn) lookup(text []byte) Outcome {
	key, ok := cache.Pack(text)
	if !ok {
		panic("simColumn: the text does not pack")
	}
	if _, found := c.table.Get(key); found {
		c.counts.Hits++
		return Hit
	}
	if !c.table.Sight(key) {
		c.counts.Misses++
		return Missed
	}
	c.table.Put(key, struct{}{})
	c.counts.Admissions++
	return Admitted
}

func (c *simColumn) hitRatio() float64 {
	n := c.counts.Hits + c.counts.Misses + c.counts.Admissions + c.counts.Bypasses
	return float64(c.counts.Hits) / float64(n)
}

// skipping reports whether the next value should bypass the cache, counting
// it down: pgcache's Rows' test, for the simulations here.
func (t *Tracker) skipping() bool {
	if t.Skipping() {
		t.SkipRow()
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
			with := &simColumn{table: cache.NewShort[struct{}](), tracker: New(), backoff: true}
			without := &simColumn{table: cache.NewShort[struct{}]()}
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
	with := &simColumn{table: cache.NewShort[struct{}](), tracker: New(), backoff: true}
	without := &simColumn{table: cache.NewShort[struct{}]()}
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
	// runOutcomes feeds n lookups whose Outcome is o(i) and returns how many
	// of them were looked up (not skipped); run is runOutcomes with hits
	// where reused(i) and misses elsewhere.
	runOutcomes := func(tr *Tracker, n int, o func(i int) Outcome) (looked int) {
		for i := range n {
			if tr.skipping() {
				continue
			}
			looked++
			tr.Observe(o(i))
		}
		return looked
	}
	run := func(tr *Tracker, n int, reused func(i int) bool) (looked int) {
		return runOutcomes(tr, n, func(i int) Outcome {
			if reused(i) {
				return Hit
			}
			return Missed
		})
	}

	t.Run("repeating column never skips", func(t *testing.T) {
		tr := New()
		// A seventh of the lookups hitting is enough to keep consulting
		// the cache (an eighth is the least).
		if looked := run(&tr, 1_000_000, func(i int) bool { return i%7 == 5 }); looked != 1_000_000 {
			t.Fatalf("looked up %d of 1000000 values", looked)
		}
	})

	t.Run("all-distinct column backs off", func(t *testing.T) {
		tr := New()
		never := func(int) bool { return false }
		const n = 10_000_000
		looked := run(&tr, n, never)
		t.Logf("looked up %d of %d all-distinct values (%.2f%%)", looked, n, 100*float64(looked)/n)
		if looked > n/50 {
			t.Fatalf("looked up %d of %d all-distinct values, want under 2%%", looked, n)
		}
		if tr.next != SkipMax {
			t.Fatalf("skip length %d after a long distinct run, want the maximum %d", tr.next, SkipMax)
		}
	})

	t.Run("probes after a skip are short", func(t *testing.T) {
		tr := New()
		never := func(int) bool { return false }
		// The first window, then the first skip.
		if looked := run(&tr, ProbeWindow+SkipFirst, never); looked != ProbeWindow {
			t.Fatalf("first window and skip: looked up %d values, want %d", looked, ProbeWindow)
		}
		// A re-probe without reuse fails at the end of its early part,
		// then the doubled skip begins.
		if looked := run(&tr, EarlyWindow+2*SkipFirst, never); looked != EarlyWindow {
			t.Fatalf("re-probe and second skip: looked up %d values, want %d", looked, EarlyWindow)
		}
		// A re-probe that finds reuse runs to its end, ReprobeWindow
		// lookups, and ends the back-off: the next window is a full one
		// again.
		always := func(int) bool { return true }
		if looked := run(&tr, ReprobeWindow, always); looked != ReprobeWindow || tr.next != 0 {
			t.Fatalf("re-probe with reuse: looked up %d, next skip %d; want %d and 0", looked, tr.next, ReprobeWindow)
		}
		if looked := run(&tr, ProbeWindow+EarlyWindow+SkipFirst, func(i int) bool { return i < ProbeWindow }); looked != ProbeWindow+EarlyWindow {
			t.Fatalf("after the back-off ended: looked up %d values before skipping, want a full window of %d and the early part of the next, %d",
				looked, ProbeWindow, EarlyWindow)
		}
	})

	t.Run("a window without early reuse fails there", func(t *testing.T) {
		// A re-read of an all-distinct table: its first window admits the
		// values the previous read sighted, and from then on nothing
		// comes back. Only the early part of the second window is spent.
		tr := New()
		if looked := runOutcomes(&tr, ProbeWindow+EarlyWindow+SkipFirst, func(i int) Outcome {
			if i < ProbeWindow && i%2 == 0 {
				return Admitted
			}
			return Missed
		}); looked != ProbeWindow+EarlyWindow {
			t.Fatalf("looked up %d values before the first skip ended, want %d", looked, ProbeWindow+EarlyWindow)
		}
		// Reuse just after the early part is too late.
		tr = New()
		if looked := runOutcomes(&tr, ProbeWindow+EarlyWindow+SkipFirst, func(i int) Outcome {
			if i < ProbeWindow || i >= ProbeWindow+EarlyWindow {
				return Hit
			}
			return Missed
		}); looked != ProbeWindow+EarlyWindow {
			t.Fatalf("looked up %d values before the first skip ended, want %d", looked, ProbeWindow+EarlyWindow)
		}
		// A few hits are not enough either: 2% of the lookups, as on a
		// re-read of an all-distinct table whose earlier reads left entries
		// behind, fail in the early part of the second window.
		tr = New()
		if looked := run(&tr, ProbeWindow+EarlyWindow+SkipFirst, func(i int) bool { return i%50 == 0 }); looked != ProbeWindow+EarlyWindow {
			t.Fatalf("2%% hits: looked up %d values before the first skip ended, want %d", looked, ProbeWindow+EarlyWindow)
		}
		// Enough hits in the early part but too few in the whole window:
		// the window runs to its end and fails there.
		tr = New()
		if looked := run(&tr, 2*ProbeWindow+SkipFirst, func(i int) bool {
			return i < ProbeWindow || (i < ProbeWindow+EarlyWindow && i%2 == 0)
		}); looked != 2*ProbeWindow {
			t.Fatalf("reuse in the early part only: looked up %d values before the first skip ended, want %d", looked, 2*ProbeWindow)
		}
	})

	t.Run("a churning column backs off after its warm-up", func(t *testing.T) {
		// Four hits per admission, as a column drawing at random from 1.5
		// times as many values as the table has slots.
		churn := func(i int) Outcome {
			switch i % 6 {
			case 0:
				return Admitted
			case 1:
				return Missed
			}
			return Hit
		}
		tr := New()
		if looked := runOutcomes(&tr, (WarmWindows+1)*ProbeWindow+SkipFirst, churn); looked != (WarmWindows+1)*ProbeWindow {
			t.Fatalf("looked up %d values before the first skip ended, want the warm-up and one window: %d", looked, (WarmWindows+1)*ProbeWindow)
		}
		// Its re-probes find the same churn: the skips keep doubling.
		if looked := runOutcomes(&tr, ReprobeWindow+2*SkipFirst, churn); looked != ReprobeWindow || tr.next != 4*SkipFirst {
			t.Fatalf("re-probe: looked up %d values, next skip %d; want %d and %d", looked, tr.next, ReprobeWindow, 4*SkipFirst)
		}
	})

	t.Run("hits enough per admission keep the column cached", func(t *testing.T) {
		// A little over churnRatio hits per admission.
		tr := New()
		if looked := runOutcomes(&tr, 1_000_000, func(i int) Outcome {
			if i%(churnRatio+2) == 0 {
				return Admitted
			}
			return Hit
		}); looked != 1_000_000 {
			t.Fatalf("looked up %d of 1000000 values", looked)
		}
	})

	t.Run("a cycle through the whole table passes its warm-up", func(t *testing.T) {
		// A period of cache.Slots from an empty table: sightings, then
		// admissions, then only hits.
		tr := New()
		if looked := runOutcomes(&tr, 1_000_000, func(i int) Outcome {
			switch {
			case i < cache.Slots:
				return Missed
			case i < 2*cache.Slots:
				return Admitted
			}
			return Hit
		}); looked != 1_000_000 {
			t.Fatalf("looked up %d of 1000000 values", looked)
		}
	})

	t.Run("reuse found on a probe ends the back-off", func(t *testing.T) {
		tr := New()
		run(&tr, 3*ProbeWindow, func(int) bool { return false })
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

// TestQuietMatchesObserve: the Quiet path advance takes for most lookups
// leaves a tracker exactly as ObserveMiss and ObserveHit do, and is offered
// only where those would start no skip, over streams that open and close
// many windows and skips.
func TestQuietMatchesObserve(t *testing.T) {
	streams := map[string]func(i int) bool{
		"distinct":      func(int) bool { return false },
		"repeating":     func(i int) bool { return i%3 != 0 },
		"turns":         func(i int) bool { return (i/20_000)%2 == 1 },
		"sparse hits":   func(i int) bool { return i%97 == 0 },
		"bursts":        func(i int) bool { return (i/700)%5 == 0 },
		"every eighth":  func(i int) bool { return i%8 == 0 },
		"late repeater": func(i int) bool { return i > 60_000 },
	}
	for name, hit := range streams {
		t.Run(name, func(t *testing.T) {
			quiet, plain := New(), New()
			quietOnes := 0
			for i := range 200_000 {
				if plain.skipping() {
					if !quiet.skipping() {
						t.Fatalf("lookup %d: the trackers disagree on the skip", i)
					}
					continue
				}
				var started bool
				wasQuiet := quiet.Quiet()
				if wasQuiet != quiet.quietFields() {
					t.Fatalf("lookup %d: Quiet %v, its fields say %v (%+v)", i, wasQuiet, !wasQuiet, quiet)
				}
				if hit(i) {
					started = plain.ObserveHit()
				} else {
					started = plain.ObserveMiss()
				}
				if wasQuiet {
					quietOnes++
					if started {
						t.Fatalf("lookup %d: a Quiet lookup started a skip", i)
					}
					if hit(i) {
						quiet.QuietHit()
					} else {
						quiet.QuietMiss()
					}
				} else if hit(i) {
					quiet.ObserveHit()
				} else {
					quiet.ObserveMiss()
				}
				if quiet != plain {
					t.Fatalf("lookup %d: Quiet path %+v, Observe path %+v", i, quiet, plain)
				}
			}
			if quietOnes == 0 {
				t.Fatal("no lookup took the Quiet path")
			}
		})
	}
}

// TestQuietWord: Quiet's one compare of left and skip as a word (where
// quiet_word.go makes it) agrees with the fields' own test at the edges of
// both.
func TestQuietWord(t *testing.T) {
	lefts := []int32{math.MinInt32, -2, -1, 0, 1, 2, 3, EarlyWindow, ProbeWindow, math.MaxInt32 - 1, math.MaxInt32}
	skips := []int32{0, 1, 2, 255, 1 << 16, suspended - 1, suspended}
	for _, left := range lefts {
		for _, skip := range skips {
			tr := Tracker{left: left, skip: skip, rest: -1, next: -1, hits: -1, adms: -1, quick: -1, warm: -1, ends: 255}
			if got, want := tr.Quiet(), tr.quietFields(); got != want {
				t.Errorf("left %d, skip %d: Quiet %v, want %v", left, skip, got, want)
			}
		}
	}
}
