package pgcache_test

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/pgcache/pgcache"
	"github.com/pgcache/pgcache/cache"
	"github.com/pgcache/pgcache/internal/pgtest"
)

// The cache contract as seen through the driver and Stats. These tests reset
// the process-wide cache and assert exact deltas, so none of them runs in
// parallel (see TestMain).

// readTraffic reads query once, scanning every row into fresh targets, and
// returns the rows and the traffic the read caused.
func readTraffic(t *testing.T, q querier, query string, targets ...target) (lines []string, numeric, hstore counts) {
	t.Helper()
	numeric, hstore = traffic(func() { lines = readAll(t, q, query, nil, targets) })
	return lines, numeric, hstore
}

// textLen shows the length of a text.
var textLen = targetOf("len", func(p *string) string { return strconv.Itoa(len(*p)) })

func TestCacheContractNumeric(t *testing.T) {
	pc := openDB(t, pcDriver, pgtest.DSN(t))
	if err := pc.Ping(); err != nil {
		t.Fatal(err)
	}
	pgcache.ResetCache()
	if s := pgcache.Stats(); s.Numeric.Entries != 0 || s.Numeric.Slots != cache.Slots || s.Hstore.Entries != 0 || s.Hstore.Slots != cache.Slots {
		t.Errorf("after ResetCache: %+v; want no entries and %d slots in each table", s, cache.Slots)
	}

	// A repeated value: miss, admission, then hits, one read at a time.
	for i, want := range []counts{{Misses: 1}, {Admissions: 1}, {Hits: 1}, {Hits: 1}} {
		lines, num, hs := readTraffic(t, pc, "select 12.50::numeric", tString)
		if num != want || hs != (counts{}) {
			t.Errorf("read %d of 12.50: traffic %v, hstore %v; want %v", i+1, num, hs, want)
		}
		if len(lines) != 1 || lines[0] != `string "12.50"` {
			t.Errorf("read %d of 12.50: %q", i+1, lines)
		}
	}
	if e := pgcache.Stats().Numeric.Entries; e != 1 {
		t.Errorf("%d numeric entries after admitting one value, want 1", e)
	}

	// ResetCache forgets entries and sightings: the next read is a miss.
	pgcache.ResetCache()
	if _, num, _ := readTraffic(t, pc, "select 12.50::numeric", tString); num != (counts{Misses: 1}) {
		t.Errorf("first read after ResetCache: %v, want one miss", num)
	}

	// Within one result set: miss, admission, hits.
	pgcache.ResetCache()
	if _, num, _ := readTraffic(t, pc, "select 0.25::numeric from generate_series(1, 10)", tString); num != (counts{Misses: 1, Admissions: 1, Hits: 8}) {
		t.Errorf("ten rows of 0.25: %v, want a miss, an admission and eight hits", num)
	}

	// Every column counts, NULLs do not.
	pgcache.ResetCache()
	_, num, _ := readTraffic(t, pc, "select 1.5::numeric, NULL::numeric, 2.5::numeric from generate_series(1, 3)", tString, tNullString, tString)
	if want := (counts{Misses: 2, Admissions: 2, Hits: 2}); num != want {
		t.Errorf("two cached columns and a NULL one over three rows: %v, want %v", num, want)
	}

	// An all-distinct column records sightings and never admits. After its
	// first window without reuse it stops consulting the cache for a skip,
	// then probes again, briefly: it finds nothing there and skips again.
	// So it misses a window, more than that by a re-probe's early part at
	// most, and every other value bypasses. (The exact counts, from the
	// constants: TestBackoffCountsDistinct.)
	pgcache.ResetCache()
	n := pgcache.ProbeWindow + pgcache.SkipFirst + pgcache.ReprobeWindow
	_, num, _ = readTraffic(t, pc, fmt.Sprintf("select i::numeric + 0.5 from generate_series(1, %d) i", n), tString)
	if num.Hits != 0 || num.Admissions != 0 || num.Misses <= pgcache.ProbeWindow || num.Misses > pgcache.ProbeWindow+pgcache.EarlyWindow ||
		num.Misses+num.Bypasses != uint64(n) {
		t.Errorf("%d distinct values: %v, want no hit, no admission, more misses than a window of %d and at most %d more, and the rest bypasses",
			n, num, pgcache.ProbeWindow, pgcache.EarlyWindow)
	}

	// Rows passed in bulk (every column in a skip) count their NULLs out of
	// the bypasses, in whichever of nine columns they fall.
	pgcache.ResetCache()
	n = pgcache.ProbeWindow + pgcache.SkipFirst/2
	cols, targets := make([]string, 9), make([]target, 9)
	for k := range cols {
		cols[k] = fmt.Sprintf("case when (i + %d) %% 7 = 0 or i %% 11 = %d then null else i * 9 + %d + 0.5 end::numeric", k, k, k)
		targets[k] = tNullString
	}
	var values uint64
	for i := 1; i <= n; i++ {
		for k := range cols {
			if (i+k)%7 != 0 && i%11 != k {
				values++
			}
		}
	}
	_, num, _ = readTraffic(t, pc, fmt.Sprintf("select %s from generate_series(1, %d) i", strings.Join(cols, ", "), n), targets...)
	if num.Hits != 0 || num.Admissions != 0 || num.Misses+num.Bypasses != values || num.Bypasses < values/2 {
		t.Errorf("nine distinct columns with NULLs over %d rows: %v, want no hit, no admission, %d misses and bypasses, most of them bypasses",
			n, num, values)
	}

	// Texts longer than 8 bytes bypass the cache, however often they repeat;
	// 8 bytes is still cached.
	pgcache.ResetCache()
	for pass := 0; pass < passes; pass++ {
		if _, num, _ := readTraffic(t, pc, "select 123456789.5::numeric, '-12345.67'::numeric, 1e30::numeric from generate_series(1, 3)", tString, tString, tString); num != (counts{Bypasses: 9}) {
			t.Errorf("pass %d over long texts: %v, want nine bypasses", pass+1, num)
		}
	}
	if _, num, _ := readTraffic(t, pc, "select '12345.67'::numeric from generate_series(1, 3)", tString); num != (counts{Misses: 1, Admissions: 1, Hits: 1}) {
		t.Errorf("an 8-byte text: %v, want it cached", num)
	}
	if e := pgcache.Stats().Numeric.Entries; e != 1 {
		t.Errorf("%d numeric entries, want only 12345.67", e)
	}
}

// TestCacheContractScanSighting: Rows.Next records a sighting of a value and
// Decimal.Scan (or Hstore.Scan) of that same value must not record another,
// or every value scanned into a Decimal would be admitted on its first read.
func TestCacheContractScanSighting(t *testing.T) {
	needHstore(t)
	pc := openDB(t, pcDriver, pgtest.DSN(t))
	if err := pc.Ping(); err != nil {
		t.Fatal(err)
	}
	pgcache.ResetCache()
	for i, want := range []counts{{Misses: 1}, {Admissions: 1}, {Hits: 1}} {
		var d pgcache.Decimal
		var s string
		var num counts
		num, _ = traffic(func() {
			if err := pc.QueryRow("select 77.25::numeric").Scan(&d); err != nil {
				t.Fatal(err)
			}
		})
		if num != want {
			t.Errorf("read %d of 77.25 into *pgcache.Decimal: %v, want %v", i+1, num, want)
		}
		// Scanning the same row's value twice is still one sighting.
		num, _ = traffic(func() {
			rows, err := pc.Query("select 88.25::numeric")
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			for rows.Next() {
				if err := rows.Scan(&d); err != nil {
					t.Fatal(err)
				}
				if err := rows.Scan(&s); err != nil {
					t.Fatal(err)
				}
				if err := rows.Scan(&d); err != nil {
					t.Fatal(err)
				}
			}
		})
		if num != want || d.String() != "88.25" || s != "88.25" {
			t.Errorf("read %d of 88.25 scanned three times: %v %s %q, want %v", i+1, num, d, s, want)
		}
	}

	pgcache.ResetCache()
	for i, want := range []counts{{Misses: 1}, {Admissions: 1}, {Hits: 1}} {
		var h pgcache.Hstore
		_, hs := traffic(func() {
			if err := pc.QueryRow(`select 'a=>1, b=>NULL'::hstore`).Scan(&h); err != nil {
				t.Fatal(err)
			}
		})
		if hs != want {
			t.Errorf("read %d of an hstore into *pgcache.Hstore: %v, want %v", i+1, hs, want)
		}
		if v, ok := h.Lookup("a"); !ok || v != (sql.NullString{String: "1", Valid: true}) {
			t.Errorf("read %d: Lookup(a) = %v, %t", i+1, v, ok)
		}
	}
}

func TestCacheContractHstore(t *testing.T) {
	needHstore(t)
	pc := openDB(t, pcDriver, pgtest.DSN(t))
	if err := pc.Ping(); err != nil {
		t.Fatal(err)
	}
	pgcache.ResetCache()
	for i, want := range []counts{{Misses: 1}, {Admissions: 1}, {Hits: 1}} {
		if _, num, hs := readTraffic(t, pc, "select 'k=>v'::hstore", tString); hs != want || num != (counts{}) {
			t.Errorf("read %d of k=>v: hstore %v, numeric %v; want %v", i+1, hs, num, want)
		}
	}
	if e := pgcache.Stats().Hstore.Entries; e != 1 {
		t.Errorf("%d hstore entries after admitting one value, want 1", e)
	}

	// The empty hstore and texts beyond MaxHstoreText bypass the table; a
	// text of exactly MaxHstoreText bytes is cached. `"k"=>"` + `"` is 7 bytes.
	long := fmt.Sprintf("select hstore('k', repeat('x', %d)) from generate_series(1, 3)", pgcache.MaxHstoreText-7+1)
	edge := fmt.Sprintf("select hstore('k', repeat('x', %d)) from generate_series(1, 3)", pgcache.MaxHstoreText-7)
	for pass := 0; pass < passes; pass++ {
		if _, _, hs := readTraffic(t, pc, "select ''::hstore from generate_series(1, 3)", tString); hs != (counts{Bypasses: 3}) {
			t.Errorf("pass %d over empty hstores: %v, want three bypasses", pass+1, hs)
		}
		lines, _, hs := readTraffic(t, pc, long, textLen)
		if hs != (counts{Bypasses: 3}) {
			t.Errorf("pass %d over a text of MaxHstoreText+1 bytes: %v, want three bypasses", pass+1, hs)
		}
		if want := strconv.Itoa(pgcache.MaxHstoreText + 1); lines[0] != want {
			t.Fatalf("the long hstore text has %s bytes, want %s", lines[0], want)
		}
	}
	pgcache.ResetCache()
	lines, _, hs := readTraffic(t, pc, edge, textLen)
	if hs != (counts{Misses: 1, Admissions: 1, Hits: 1}) {
		t.Errorf("a text of MaxHstoreText bytes: %v, want it cached", hs)
	}
	if want := strconv.Itoa(pgcache.MaxHstoreText); lines[0] != want {
		t.Fatalf("the edge hstore text has %s bytes, want %s", lines[0], want)
	}
}

// TestCacheCountsPublishedOnClose: a result set publishes its traffic when it
// is closed, including when it is closed early; unread rows are not counted.
func TestCacheCountsPublishedOnClose(t *testing.T) {
	pc := openDB(t, pcDriver, pgtest.DSN(t))
	pgcache.ResetCache()
	before := pgcache.Stats()
	rows, err := pc.QueryContext(context.Background(), "select 5.5::numeric from generate_series(1, 1000)")
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3 && rows.Next(); i++ {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
	}
	if open := countsDelta(before.Numeric, pgcache.Stats().Numeric); open != (counts{}) {
		t.Errorf("traffic published before Close: %v", open)
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	if closed := countsDelta(before.Numeric, pgcache.Stats().Numeric); closed != (counts{Misses: 1, Admissions: 1, Hits: 1}) {
		t.Errorf("after closing a result set read for three rows: %v, want a miss, an admission and a hit", closed)
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	if again := countsDelta(before.Numeric, pgcache.Stats().Numeric); again != (counts{Misses: 1, Admissions: 1, Hits: 1}) {
		t.Errorf("a second Close published again: %v", again)
	}
}

// TestCacheHitRatio is a smoke test of HitRatio over a realistic read.
func TestCacheHitRatio(t *testing.T) {
	pc := openDB(t, pcDriver, pgtest.DSN(t))
	pgcache.ResetCache()
	before := pgcache.Stats().Numeric
	lines := readAll(t, pc, "select (i % 10)::numeric(12,2) from generate_series(1, 1000) i", nil, []target{tString})
	after := pgcache.Stats().Numeric
	d := countsDelta(before, after)
	// Ten values round-robin: each is seen twice in a row in its slot on its
	// second round, so 10 misses, 10 admissions and 980 hits, unless two of
	// the ten share a slot (they do not: Short's slot function is fixed).
	if d != (counts{Misses: 10, Admissions: 10, Hits: 980}) {
		t.Errorf("1000 rows of 10 values: %v", d)
	}
	for i, l := range lines {
		if want := fmt.Sprintf("string %q", fmt.Sprintf("%d.00", (i+1)%10)); l != want {
			t.Fatalf("row %d: %s, want %s", i, l, want)
		}
	}
	if r := (cache.Stats{Hits: d.Hits, Misses: d.Misses}).HitRatio(); r != 980.0/990 {
		t.Errorf("hit ratio %v, want 980/990", r)
	}
}

// TestCacheHitRatioLongPeriod: a column cycling through 1000 values, a period
// shorter than the table but long enough to hide its reuse from a short
// window, is not mistaken for an all-distinct one: from an empty cache it
// gets every hit the table can give it and bypasses nothing.
func TestCacheHitRatioLongPeriod(t *testing.T) {
	pc := openDB(t, pcDriver, pgtest.DSN(t))
	pgcache.ResetCache()
	var n int
	num, _ := traffic(func() {
		rows, err := pc.Query("select ((g % 1000) / 100.0)::numeric(12,2) from generate_series(1, 100000) g")
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var s string
		for rows.Next() {
			if err := rows.Scan(&s); err != nil {
				t.Fatal(err)
			}
			n++
		}
	})
	if n != 100000 {
		t.Fatalf("%d rows", n)
	}
	// 1000 misses and 1000 admissions, but for slot collisions: texts that
	// share a direct-mapped slot and alternate are never admitted, with or
	// without the back-off (TestReuseBackoffPeriodic compares the two). The
	// back-off itself must skip nothing.
	if ratio := float64(num.Hits) / float64(n); ratio < 0.85 || num.Bypasses != 0 {
		t.Errorf("100000 values of period 1000: %v (hit ratio %.3f), want ≥ 0.85 and no bypasses", num, ratio)
	}
}

// TestCacheContractUnscannedRows: a row that is read but never scanned still
// records its sightings (on Go 1.27 NextRow does what Next does on Go 1.26),
// so the traffic of a result set does not depend on which rows were scanned.
func TestCacheContractUnscannedRows(t *testing.T) {
	pc := openDB(t, pcDriver, pgtest.DSN(t))
	pgcache.ResetCache()
	const query = "select 66.25::numeric from generate_series(1, 5)"
	for _, scanned := range []bool{false, true} {
		pgcache.ResetCache()
		num, _ := traffic(func() {
			rows, err := pc.Query(query)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			var s string
			for rows.Next() {
				if scanned {
					if err := rows.Scan(&s); err != nil {
						t.Fatal(err)
					}
				}
			}
		})
		if want := (counts{Misses: 1, Admissions: 1, Hits: 3}); num != want {
			t.Errorf("5 rows of one value, scanned=%t: %v, want %v", scanned, num, want)
		}
	}
}
