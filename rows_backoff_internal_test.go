package pgcache

import (
	sqldriver "database/sql/driver"
	"fmt"
	"io"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/pgcache/pgcache/cache"
	"github.com/pgcache/pgcache/internal/backoff"
)

// The back-off as Rows runs it (the tracker's own rules: internal/backoff):
// the counts of a result set's skips and bulk passes, and the memory that
// carries a column's tracker between result sets and connections.

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

// numericResult makes a replayed result set of rows rows of cols numeric
// expression columns, the value of column k in row g being value(g, k), as
// the query text query would name them.
func numericResult(query string, rows, cols int, value func(g, k int) string) *replayRows {
	rec := &replayRows{query: query}
	for k := range cols {
		rec.fields = append(rec.fields, pgconn.FieldDescription{Name: fmt.Sprint("c", k), DataTypeOID: pgtype.NumericOID, Format: 0})
	}
	for g := range rows {
		row := make([][]byte, cols)
		for k := range row {
			row[k] = []byte(value(g, k))
		}
		rec.rows = append(rec.rows, row)
	}
	return rec
}

// readNext reads r to its end through Next, checking every value against
// the replayed text (what pgx stdlib returns), and closes it.
func readNext(t *testing.T, r *Rows, rec *replayRows) {
	t.Helper()
	dest := make([]sqldriver.Value, len(rec.fields))
	for g := 0; ; g++ {
		if err := r.Next(dest); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		for k, v := range dest {
			if v != string(rec.rows[g][k]) {
				t.Fatalf("row %d column %d: %#v, want %q", g, k, v, rec.rows[g][k])
			}
		}
	}
	r.Close()
}

// TestBackoffMemory: the back-off's judgement outlives result sets. Many
// short result sets of the same query, each shorter than a window:
//   - values that come exactly twice in a row and never again are admitted
//     only until the warm-up windows and a few re-probes are over, not on
//     every result set, whether the two rows are in one result set or in
//     two;
//   - repeating prices stay cached and hit;
//   - ResetCache forgets.
func TestBackoffMemory(t *testing.T) {
	c, done := rawConn(t, "")
	defer done()
	const cols, queries = 4, 6000

	ResetCache()
	// At 20 rows a value's two rows are mostly in one result set; at one
	// row always in two, which the column's last missed key, kept with its
	// Rows, links.
	var refs []*backoff.Ref // the columns' places in the memory
	for _, rowsPer := range []int{20, 1} {
		before := numericTable.Stats()
		query := fmt.Sprint("pairs-", rowsPer)
		var r *Rows
		for q := range queries {
			rec := numericResult(query, rowsPer, cols, func(g, k int) string { return fmt.Sprint(rowsPer*1000000 + (q*rowsPer+g)/2*cols + k) })
			r = replay(c, rec)
			readNext(t, r, rec)
		}
		for k := range r.mem {
			refs = append(refs, &r.mem[k])
		}
		d := numericTable.Stats()
		adms := d.Admissions - before.Admissions
		// Per column: QuickAdmissions in its first window, which then
		// fails, and as many in each re-probe after a skip (of at least
		// SkipFirst rows). Without the rule, the warm-up windows would
		// admit every second value; without the memory, every result set.
		bound := uint64(cols * backoff.QuickAdmissions * (queries*rowsPer/backoff.SkipFirst + 2))
		t.Logf("%s: %d admissions, %d hits over %d values; bound %d", query, adms, d.Hits-before.Hits, queries*rowsPer*cols, bound)
		if adms > bound || d.Hits != before.Hits {
			t.Errorf("%s: %d admissions and %d hits over %d values; want at most %d admissions and no hit",
				query, adms, d.Hits-before.Hits, queries*rowsPer*cols, bound)
		}
	}
	// Two of the columns may share a slot (the keys of expression columns
	// hash the query with a seed of the process's), which remembers one.
	slots := 0
	for i, ref := range refs {
		if !slices.ContainsFunc(refs[:i], ref.SameSlot) {
			slots++
		}
	}
	if s := Stats().Backoff; s.Columns < slots || s.Skipping < slots {
		t.Errorf("Stats().Backoff = %+v after the pairs, want their %d columns (in %d slots) remembered, skipping", s, 2*cols, slots)
	}

	const rowsPer = 20
	before := numericTable.Stats()
	for q := range queries / 10 {
		rec := numericResult("prices", rowsPer, cols, func(g, k int) string { return fmt.Sprintf("%d.%02d", 10+(q*7+g*13+k)%2, (q+g*31+k)%100) })
		readNext(t, replay(c, rec), rec)
	}
	d := numericTable.Stats()
	values := uint64(queries / 10 * rowsPer * cols)
	if hits := d.Hits - before.Hits; hits < values*9/10 {
		t.Errorf("repeating prices: %d hits of %d values, want at least 90%%", hits, values)
	}

	ResetCache()
	if s := Stats().Backoff; s != (BackoffStats{}) {
		t.Errorf("Stats().Backoff = %+v after ResetCache, want none", s)
	}
}

// TestBackoffMemoryFirstWindow: a column new to the back-off's memory whose
// first result set ends exactly one window (here, fails it and starts a
// skip) leaves its judgement in the memory at Close: a Ref that marked the
// column as one window ahead of its tracker would be brought level by the
// window, Close would see no judgement to write, and the next result set
// of the column, on another connection, would learn it all again.
func TestBackoffMemoryFirstWindow(t *testing.T) {
	c, done := rawConn(t, "")
	defer done()
	ResetCache()
	r := query(t, c, "select (i * 1.001)::numeric from generate_series(1, 6000) i")
	if got := r.cached[0].reuse.WindowsEnded(); got != 1 {
		t.Fatalf("the result set ended %d windows, want 1", got)
	}
	if cols, skipping := backoff.Stats(); cols != 1 || skipping != 1 {
		t.Errorf("after the result set: the memory holds %d columns, %d skipping; want 1 and 1", cols, skipping)
	}
}

// TestKeptRowsTakeUpJudgements: a kept Rows goes on with its own trackers
// while the back-off's memory has no write since its last start (Rows.start
// then skips the memory), and takes up another connection's judgement of
// its columns at its next result set after one.
func TestKeptRowsTakeUpJudgements(t *testing.T) {
	c1, done1 := rawConn(t, "")
	defer done1()
	c2, done2 := rawConn(t, "")
	defer done2()
	const cols = 2
	ResetCache()
	n := 0
	distinct := func(rows int) *replayRows {
		return numericResult("take up", rows, cols, func(g, k int) string { n++; return fmt.Sprint(10000000 + n) })
	}
	read := func(c *Conn, rec *replayRows, wantBackedOff int) {
		t.Helper()
		r := replay(c, rec)
		if r.backedOff != wantBackedOff {
			t.Errorf("a result set of %d rows starts with %d columns backed off, want %d", len(rec.rows), r.backedOff, wantBackedOff)
		}
		readNext(t, r, rec)
	}
	for range 3 {
		read(c1, distinct(1), 0)
	}
	// Another connection reads the column past its first window, which
	// fails: a judgement, written to the memory.
	read(c2, distinct(backoff.ProbeWindow+100), 0)
	read(c1, distinct(1), cols)
	// No write since: the kept trackers go on, in their skip.
	read(c1, distinct(1), cols)
	ResetCache()
	read(c1, distinct(1), 0)
}

// TestBulkNullCounts: the NULLs of cached columns in rows passed in bulk
// are no bypasses, whether the cached columns are many among the row's
// (plan.nullScan: a scan of the whole row first) or few (each looked at),
// and whether the NULL is in a cached column or another: the numeric
// table's counts add up to the column's values that are not NULL, under
// every reader.
func TestBulkNullCounts(t *testing.T) {
	c, done := rawConn(t, "pgcache_types=none")
	defer done()
	const rows = backoff.ProbeWindow + backoff.SkipFirst + 1000
	for _, plain := range []int{0, 1, 7} {
		rec := &replayRows{query: fmt.Sprint("bulk nulls ", plain)}
		rec.fields = append(rec.fields, pgconn.FieldDescription{Name: "n", DataTypeOID: pgtype.NumericOID})
		for k := range plain {
			rec.fields = append(rec.fields, pgconn.FieldDescription{Name: fmt.Sprint("t", k), DataTypeOID: pgtype.TextOID})
		}
		var values uint64
		for g := range rows {
			row := make([][]byte, 1+plain)
			if g%7 != 0 {
				row[0] = []byte(fmt.Sprint(10000000 + g))
				values++
			}
			for k := 1; k < len(row); k++ {
				if g%5 != 0 {
					row[k] = []byte("x")
				}
			}
			rec.rows = append(rec.rows, row)
		}
		for reader, got := range replayCounts(t, c, rec, func(s CacheStats) cache.Stats { return s.Numeric }) {
			if sum := got.Hits + got.Misses + got.Admissions + got.Bypasses; sum != values || got.Bypasses == 0 {
				t.Errorf("%d other columns, %s: counts %v add up to %d, want the %d values not NULL, some bypassed", plain, reader, got, sum, values)
			}
		}
	}
}
