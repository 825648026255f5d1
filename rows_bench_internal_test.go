package pgcache

import (
	sqldriver "database/sql/driver"
	"fmt"
	"testing"

	"github.com/pgcache/pgcache/cache"
	"github.com/pgcache/pgcache/internal/backoff"
)

// BenchmarkRowsReplay measures what pgcache itself adds per value: Rows.Next
// (the per-row bookkeeping of advance, the lookups and the conversions) over
// a result set read once from the server and then replayed from memory, so
// neither the server, the socket nor database/sql is in the figures. The
// end-to-end benchmarks in bench/ are the user-facing numbers; this one has
// a fraction of their noise on a shared machine, which is what a change to
// the hot path needs to be judged by. The result set is replayed by the
// fake of replay_internal_test.go.
func BenchmarkRowsReplay(b *testing.B) {
	sets := []struct{ name, query string }{
		// Random int8 keys and 8-character codes that never repeat: what the
		// reuse back-off exists for.
		{"distinct-keys", `SELECT hashint8extended(g, 0) AS id, hashint8extended(-g, 0) AS ref, substr(md5(g::text), 1, 8) AS code,
			substr(md5((-g)::text), 1, 8)::varchar(8) AS tag FROM generate_series(1, 200000) g`},
		// The same shapes drawn from 64 values each: every read a hit.
		{"repeating-keys", `SELECT hashint8extended(g % 64, 0) AS id, hashint8extended(-(g % 64), 0) AS ref, substr(md5((g % 64)::text), 1, 8) AS code,
			substr(md5((-(g % 64))::text), 1, 8)::varchar(8) AS tag FROM generate_series(1, 200000) g`},
	}
	// Two int8 columns drawn at random from N keys, around and above the
	// table's cache.Slots: part hits, part churn, which mode=types-reuse-only
	// measures without the back-off's churn rule (what churnRatio is set by).
	for _, n := range []int{3000, 4000, 6000} {
		sets = append(sets, struct{ name, query string }{fmt.Sprint("random-keys-", n),
			fmt.Sprintf(`SELECT 1000 + abs(hashint8extended(g, 0)) %% %d AS id, 1000 + abs(hashint8extended(-g, 0)) %% %d AS ref FROM generate_series(1, 200000) g`, n, n)})
	}
	modes := []struct{ name, opts string }{
		{"off", "pgcache=off"},
		{"default", ""},
		{"types", "pgcache_types=all"},
		{"types-reuse-only", "pgcache_types=all"},
	}
	for _, set := range sets {
		for _, mode := range modes {
			b.Run("data="+set.name+"/mode="+mode.name, func(b *testing.B) {
				if mode.name == "types-reuse-only" {
					// Any hit keeps a column cached: the back-off
					// without its churn rule.
					defer backoff.SetChurnRatio(backoff.SetChurnRatio(0))
				}
				c, closeDB := rawConn(b, mode.opts)
				defer closeDB()
				rec := record(b, c, set.query)
				dest := make([]sqldriver.Value, len(rec.fields))
				b.ReportAllocs()
				h0, a0, l0 := tableTraffic()
				b.ResetTimer()
				for range b.N {
					readReplay(c, rec, dest)
				}
				values := float64(b.N) * float64(len(rec.rows)*len(rec.fields))
				h1, a1, l1 := tableTraffic()
				b.ReportMetric(float64(h1-h0)/values, "hits/value")
				b.ReportMetric(float64(a1-a0)/values, "admissions/value")
				// Every iteration but the first re-reads the result set.
				b.ReportMetric(float64(l1-l0)/values, "lookups/value")
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/values, "ns/value")
			})
		}
	}
}

// readReplay reads a replay of rec on c to its end through Next, into dest.
func readReplay(c *Conn, rec *replayRows, dest []sqldriver.Value) {
	r := replay(c, rec)
	for r.Next(dest) == nil {
	}
	r.Close()
}

// tableTraffic sums the counts of every table: hits, admissions, and
// lookups (hits, misses and admissions: the values not bypassed).
func tableTraffic() (hits, admissions, lookups uint64) {
	s := Stats()
	for _, t := range []cache.Stats{s.Numeric, s.Hstore, s.Text, s.LongText, s.Int8, s.Int4, s.Float8, s.Date, s.Timestamp, s.Timestamptz} {
		hits, admissions = hits+t.Hits, admissions+t.Admissions
		lookups += t.Hits + t.Misses + t.Admissions
	}
	return hits, admissions, lookups
}

// BenchmarkKindHits measures, for each fixed-size kind of pgcache_types,
// what a column of it costs when every value hits (mode=KIND) against the
// same column uncached (mode=none: pgx stdlib's decoding, boxed by
// internal/box): two columns drawn from 64 values above 255, replayed from
// memory through Next (Go 1.26's path; on Go 1.27 a destination takes the
// wire routes, which this does not measure). It is what the default kinds
// on Go 1.26 (driver/defaults_go126.go) are chosen by; bench/README.md
// gives its instruction counts.
func BenchmarkKindHits(b *testing.B) {
	for _, set := range []struct{ kind, expr string }{
		{"int2", "(1000 + g % 64)::int2"},
		{"int4", "(100000 + g % 64)::int4"},
		{"int8", "(10000000000 + g % 64)::int8"},
		{"float8", "(1.5 + g % 64)::float8"},
		{"date", "'2020-01-01'::date + (g % 64)"},
		{"timestamp", "'2020-01-01'::timestamp + (g % 64) * interval '1 hour'"},
		{"timestamptz", "'2020-01-01'::timestamptz + (g % 64) * interval '1 hour'"},
	} {
		for _, mode := range []string{"none", set.kind} {
			b.Run("kind="+set.kind+"/mode="+mode, func(b *testing.B) {
				c, closeDB := rawConn(b, "pgcache_types="+mode)
				defer closeDB()
				rec := record(b, c, "select "+set.expr+" as a, "+set.expr+" as b from generate_series(1, 100000) g")
				dest := make([]sqldriver.Value, len(rec.fields))
				b.ReportAllocs()
				b.ResetTimer()
				for range b.N {
					readReplay(c, rec, dest)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(rec.rows)*len(rec.fields)), "ns/value")
			})
		}
	}
}
