package pgcache

import "testing"

// TestReuseTracker drives one column's tracker with synthetic outcomes.
func TestReuseTracker(t *testing.T) {
	// run feeds n lookups whose outcome is reused(i) and returns how many of
	// them were looked up (not skipped).
	run := func(tr *reuseTracker, n int, reused func(i int) bool) (looked int) {
		for i := range n {
			if tr.skipping() {
				continue
			}
			looked++
			tr.observe(reused(i))
		}
		return looked
	}

	t.Run("repeating column never skips", func(t *testing.T) {
		var tr reuseTracker
		// One reuse per window is enough to keep consulting the cache.
		if looked := run(&tr, 100_000, func(i int) bool { return i%probeWindow == 5 }); looked != 100_000 {
			t.Fatalf("looked up %d of 100000 values", looked)
		}
	})

	t.Run("all-distinct column backs off", func(t *testing.T) {
		var tr reuseTracker
		never := func(int) bool { return false }
		looked := run(&tr, 1_000_000, never)
		if looked > 1_000_000/100 {
			t.Fatalf("looked up %d of 1000000 all-distinct values, want under 1%%", looked)
		}
		if tr.next != skipMax {
			t.Fatalf("skip length %d after a long distinct run, want the maximum %d", tr.next, skipMax)
		}
	})

	t.Run("reuse found on a probe ends the back-off", func(t *testing.T) {
		var tr reuseTracker
		run(&tr, 20_000, func(int) bool { return false })
		// Let the current skip run out, then the column starts repeating.
		for tr.skipping() {
		}
		if looked := run(&tr, 10_000, func(int) bool { return true }); looked != 10_000 {
			t.Fatalf("after reuse appeared, looked up %d of 10000 values", looked)
		}
		if tr.next != 0 {
			t.Fatalf("skip length %d after a window with reuse, want reset", tr.next)
		}
	})
}
