package pgcache

import (
	"fmt"
	"testing"

	"github.com/pgcache/pgcache/cache"
	"github.com/pgcache/pgcache/internal/backoff"
)

// The reuse back-off's exact counts, computed from its constants: what a
// result set that Rows reads from a replay (replay_internal_test.go) does to
// the tables, read with each of database/sql's readers. The server tests
// (stats_test.go, types_test.go) assert properties of the same scenarios.

// countsOf is the traffic part of a table's Stats.
func countsOf(s cache.Stats) cache.Counts {
	return cache.Counts{Hits: s.Hits, Misses: s.Misses, Admissions: s.Admissions, Bypasses: s.Bypasses}
}

// replayCounts reads rec with each reader from an empty cache and returns
// the traffic of the table table picks out of Stats, per reader.
func replayCounts(t *testing.T, c *Conn, rec *replayRows, table func(CacheStats) cache.Stats) map[string]cache.Counts {
	t.Helper()
	got := make(map[string]cache.Counts)
	for _, reader := range replayReaders {
		ResetCache()
		before := countsOf(table(Stats()))
		r := replay(c, rec)
		if err := reader.read(r); err != nil {
			t.Fatalf("%s: %v", reader.name, err)
		}
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
		after := countsOf(table(Stats()))
		got[reader.name] = cache.Counts{
			Hits: after.Hits - before.Hits, Misses: after.Misses - before.Misses,
			Admissions: after.Admissions - before.Admissions, Bypasses: after.Bypasses - before.Bypasses,
		}
	}
	return got
}

// TestBackoffCountsDistinct: an all-distinct numeric column is looked up for
// its first window, skips skipFirst rows, and looks up the early part of a
// re-probe, which fails there and starts the doubled skip: probeWindow +
// earlyWindow misses, every other value a bypass, no hit, no admission.
// The values are those of TestCacheContractNumeric's i::numeric + 0.5.
func TestBackoffCountsDistinct(t *testing.T) {
	c, closeDB := rawConn(t, "")
	defer closeDB()
	const n = backoff.ProbeWindow + backoff.SkipFirst + backoff.ReprobeWindow
	rec := &replayRows{fields: record(t, c, "select 1.5::numeric").fields}
	for i := 1; i <= n; i++ {
		rec.rows = append(rec.rows, [][]byte{fmt.Appendf(nil, "%d.5", i)})
	}
	want := cache.Counts{Misses: backoff.ProbeWindow + backoff.EarlyWindow, Bypasses: n - backoff.ProbeWindow - backoff.EarlyWindow}
	for reader, got := range replayCounts(t, c, rec, func(s CacheStats) cache.Stats { return s.Numeric }) {
		if got != want {
			t.Errorf("%s over %d distinct values: %+v, want %+v", reader, n, got, want)
		}
	}
}

// TestBackoffCountsChurn: two int8 columns drawing at random from 6000
// values, more than the table has slots (TestTypesChurnBacksOff's), pass
// their warm-up and fail the window after it on hits per admission; after
// the first skip, a re-probe finds the same churn and runs to its end
// (its early part shows reuse enough) before the doubled skip, which lasts
// past the last row. Each column looks up (warmWindows+1)*probeWindow +
// reprobeWindow values.
func TestBackoffCountsChurn(t *testing.T) {
	c, closeDB := rawConn(t, "pgcache_types=int8")
	defer closeDB()
	const n = (backoff.WarmWindows+1)*backoff.ProbeWindow + 2*backoff.SkipFirst
	rec := record(t, c, fmt.Sprintf(`select 1000 + abs(hashint8extended(g, 0)) %% 6000, 1000 + abs(hashint8extended(-g, 0)) %% 6000
		from generate_series(1, %d) g`, n))
	const looked = 2 * ((backoff.WarmWindows+1)*backoff.ProbeWindow + backoff.ReprobeWindow)
	for reader, got := range replayCounts(t, c, rec, func(s CacheStats) cache.Stats { return s.Int8 }) {
		if got.Hits+got.Misses+got.Admissions != looked || got.Bypasses != 2*n-looked || got.Admissions == 0 {
			t.Errorf("%s over %d rows of two churning columns: %+v, want %d values looked up, admissions among them, and %d bypasses", reader, n, got, looked, 2*n-looked)
		}
	}
}
