package pgcache_test

import (
	"database/sql"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pgcache/pgcache"
	"github.com/pgcache/pgcache/driver"
	"github.com/pgcache/pgcache/internal/box"
	"github.com/pgcache/pgcache/internal/pgtest"
)

// The pgcache_types option: more column kinds through the cache, with values
// identical to pgx stdlib's for every kind, destination and exec mode.

// execModes are pgx's five query exec modes.
var execModes = []string{"cache_statement", "cache_describe", "describe_exec", "exec", "simple_protocol"}

// typeCase is one column kind: expressions producing its values (each
// repeated in the list so that a single read also sees admissions and
// hits), and the destinations to compare.
type typeCase struct {
	name    string
	exprs   []string
	targets []target
}

var (
	tTime      = targetOf("time.Time", func(p *time.Time) string { return p.String() + " " + p.Location().String() })
	tNullTime  = targetOf("sql.NullTime", func(p *sql.NullTime) string { return fmt.Sprintf("%t %s %s", p.Valid, p.Time, p.Time.Location()) })
	tNullInt64 = targetOf("sql.NullInt64", goSyntax[sql.NullInt64])
	tInt32     = targetOf("int32", goSyntax[int32])
	tInt       = targetOf("int", goSyntax[int])
	tNullF64   = targetOf("sql.NullFloat64", goSyntax[sql.NullFloat64])
	tAnyTime   = targetOf("any (time)", func(p *any) string {
		if t, ok := (*p).(time.Time); ok {
			return "time " + t.String() + " " + t.Location().String()
		}
		return goSyntax(p)
	})
)

// twice lists every expression twice in a row, then all of them once more:
// miss, admission, then a hit for each.
func twice(exprs ...string) []string {
	var out []string
	for _, e := range exprs {
		out = append(out, e, e)
	}
	return append(out, exprs...)
}

var typeCases = []typeCase{
	{"text", twice("'N'::text", "'TRUCK'::text", "''::text", "'12345678'::text", "'DELIVER IN PERSON'::text",
		"repeat('x', 64)::text", "repeat('x', 65)::text", "'héllo wörld ☃'::text", "NULL::text", "' padded '::text"),
		[]target{tString, tAny, tNullString, tRawBytes, tBytes, tStringPtr, tInt64, tBool}},
	{"varchar", twice("'MAIL'::varchar(10)", "'REG AIR'::varchar(10)", "NULL::varchar", "'a much longer varchar value'::varchar"),
		[]target{tString, tAny, tNullString}},
	{"bpchar", twice("'N'::char(1)", "'O'::char(5)", "'ab'::char(25)", "'DELIVER IN PERSON'::char(25)", "''::char(3)", "NULL::char(2)"),
		[]target{tString, tAny, tNullString, tRawBytes}},
	{"name", twice("'pg_class'::name", "'a_rather_long_identifier_name'::name"), []target{tString, tAny}},
	{"uuid", twice("'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid", "'00000000-0000-0000-0000-000000000000'::uuid", "NULL::uuid"),
		[]target{tString, tAny, tBytes}},
	{"int8", twice("0::int8", "1::int8", "255::int8", "256::int8", "-1::int8", "123456789012::int8",
		"9223372036854775807::int8", "(-9223372036854775807 - 1)::int8", "2147483648::int8", "NULL::int8",
		// The one value PackFixed maps to key 0, which is never admitted.
		"(x'9e3779b97f4a7c15'::bit(64)::int8)"),
		[]target{tInt64, tAny, tString, tInt32, tInt, tNullInt64, tFloat64, tBool, tRawBytes}},
	{"int4", twice("0::int4", "1000::int4", "(-2147483648)::int4", "2147483647::int4", "NULL::int4"),
		[]target{tInt64, tAny, tString, tInt32, tNullInt64}},
	{"int2", twice("0::int2", "1000::int2", "(-32768)::int2", "7::int2"),
		[]target{tInt64, tAny, tString, tInt32}},
	{"float8", twice("0::float8", "'-0'::float8", "1.5::float8", "'NaN'::float8", "'Infinity'::float8", "'-Infinity'::float8",
		"1e308::float8", "5e-324::float8", "0.1::float8", "NULL::float8"),
		[]target{tFloat64, tAny, tString, tNullF64}},
	{"date", twice("'2000-01-01'::date", "'1995-03-15'::date", "'infinity'::date", "'-infinity'::date",
		"'0044-03-15 BC'::date", "'5874897-12-31'::date", "NULL::date"),
		[]target{tTime, tNullTime, tAnyTime, tString}},
	{"timestamp", twice("'2000-01-01 00:00:00'::timestamp", "'1998-12-01 10:30:00.123456'::timestamp", "'infinity'::timestamp",
		"'-infinity'::timestamp", "'1500-06-01 12:00'::timestamp", "NULL::timestamp"),
		[]target{tTime, tNullTime, tAnyTime, tString}},
	{"timestamptz", twice("'2000-01-01 00:00:00+00'::timestamptz", "'1998-12-01 10:30:00.5-05'::timestamptz",
		"'2021-03-28 01:30:00 Europe/Berlin'::timestamptz", "'infinity'::timestamptz", "'-infinity'::timestamptz", "NULL::timestamptz"),
		[]target{tTime, tNullTime, tAnyTime, tString}},
}

// TestTypesDifferential compares every kind of pgcache_types=all, and of the
// default (no pgcache_types: driver.DefaultTypes), with pgx stdlib, in every
// exec mode, and in a session whose TimeZone is not UTC.
func TestTypesDifferential(t *testing.T) {
	dsn := pgtest.DSN(t)
	mustExec(t, openDB(t, stdDriver, dsn), "do $$ begin create type pgcache_mood as enum ('sad', 'ok', 'happy'); exception when duplicate_object then null; end $$")
	cases := append(slices.Clip(typeCases), typeCase{"enum", twice("'ok'::pgcache_mood", "'happy'::pgcache_mood", "NULL::pgcache_mood"),
		[]target{tString, tAny, tNullString}})
	for _, mode := range execModes {
		for _, tz := range []string{"UTC", "America/New_York"} {
			for _, types := range []string{"all", "default"} {
				testTypesDifferential(t, dsn, mode, tz, types, cases)
			}
		}
	}
}

// testTypesDifferential is one subtest of TestTypesDifferential: types is
// "all" or "default", for a DSN without pgcache_types.
func testTypesDifferential(t *testing.T, dsn, mode, tz, types string, cases []typeCase) {
	t.Run(mode+"/"+tz+"/types="+types, func(t *testing.T) {
		d := withParams(t, dsn, "default_query_exec_mode", mode, "timezone", tz)
		std := openDB(t, stdDriver, d)
		set, pcDSN := driver.DefaultTypes, d
		if types == "all" {
			set, pcDSN = driver.AllTypes, withParams(t, d, "pgcache_types", "all")
		}
		pc := openDB(t, pcDriver, pcDSN)
		before := pgcache.Stats()
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				differential(t, std, pc, valuesQuery(c.exprs), c.targets)
			})
		}
		after := pgcache.Stats()
		if mode != "simple_protocol" && mode != "exec" {
			// Binary kinds are cached in every mode but the simple
			// protocol and exec mode, where results arrive as text.
			for _, tab := range []struct {
				name string
				kind driver.TypeKind
				d    counts
			}{
				{"Int8", driver.TypeInt8, countsDelta(before.Int8, after.Int8)},
				{"Date", driver.TypeDate, countsDelta(before.Date, after.Date)},
				{"Timestamptz", driver.TypeTimestamptz, countsDelta(before.Timestamptz, after.Timestamptz)},
			} {
				if set.Has(tab.kind) && (tab.d.Hits == 0 || tab.d.Admissions == 0) {
					t.Errorf("%s table traffic %v: the cached states were not all compared", tab.name, tab.d)
				}
			}
		}
		if d := countsDelta(before.Text, after.Text); d.Hits == 0 || d.Admissions == 0 {
			t.Errorf("Text table traffic %v", d)
		}
		if d := countsDelta(before.LongText, after.LongText); d.Hits == 0 || d.Bypasses == 0 {
			t.Errorf("LongText table traffic %v", d)
		}
	})
}

// TestTypesOption: each kind is cached only when listed; numeric stays
// cached whatever the list; pgcache_disable wins; pgcache=off turns it all
// off; an unknown kind fails sql.Open naming it.
func TestTypesOption(t *testing.T) {
	dsn := pgtest.DSN(t)
	const query = "select 'N'::text, '1995-03-15'::date, 1.50::numeric from generate_series(1, 10)"
	read := func(t *testing.T, d string) (text, date, num counts) {
		t.Helper()
		pc := openDB(t, pcDriver, d)
		pgcache.ResetCache()
		before := pgcache.Stats()
		// The date into *any: on Go 1.27 a fixed-size kind's table serves
		// the destinations that take its boxed value (see planLazy).
		lines := readAll(t, pc, query, nil, []target{tString, tAnyTime, tString})
		after := pgcache.Stats()
		if len(lines) != 10 || strings.Contains(lines[0], "error") {
			t.Fatalf("read: %q", lines)
		}
		return countsDelta(before.Text, after.Text), countsDelta(before.Date, after.Date), countsDelta(before.Numeric, after.Numeric)
	}
	cached := counts{Misses: 1, Admissions: 1, Hits: 8}
	// Without the option: the toolchain's default kinds, the text kinds
	// among them on every toolchain.
	defDate := counts{}
	if driver.DefaultTypes.Has(driver.TypeDate) {
		defDate = cached
	}
	for _, tc := range []struct {
		name             string
		params           []string
		text, date, nums counts
	}{
		{"default", nil, cached, defDate, cached},
		{"default named", []string{"pgcache_types", "default"}, cached, defDate, cached},
		{"default and date", []string{"pgcache_types", "default, date"}, cached, cached, cached},
		{"none", []string{"pgcache_types", "none"}, counts{}, counts{}, cached},
		{"empty", []string{"pgcache_types", ""}, counts{}, counts{}, cached},
		{"text only", []string{"pgcache_types", "text"}, cached, counts{}, cached},
		{"date only", []string{"pgcache_types", "date"}, counts{}, cached, cached},
		{"all", []string{"pgcache_types", "all"}, cached, cached, cached},
		{"long names", []string{"pgcache_types", " Text , DATE "}, cached, cached, cached},
		{"disable wins", []string{"pgcache_types", "all", "pgcache_disable", "date"}, cached, counts{}, cached},
		{"off wins", []string{"pgcache_types", "all", "pgcache", "off"}, counts{}, counts{}, counts{}},
		{"off wins over the default", []string{"pgcache", "off"}, counts{}, counts{}, counts{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text, date, num := read(t, withParams(t, dsn, tc.params...))
			if text != tc.text || date != tc.date || num != tc.nums {
				t.Errorf("text %v, date %v, numeric %v; want %v, %v, %v", text, date, num, tc.text, tc.date, tc.nums)
			}
		})
	}
	for _, bad := range []string{"txt", "int8,bogus", "all,", "numeric", "none,text"} {
		_, err := sql.Open(pcDriver, withParams(t, dsn, "pgcache_types", bad))
		if err == nil || !strings.Contains(err.Error(), "pgcache_types") {
			t.Errorf("pgcache_types=%q: %v, want an error naming the option", bad, err)
		}
	}
}

// TestTypesEnumLifecycle: enums created and altered while connections are
// open are cached (and read right) without reconnecting, since enums are
// recognised as types pgx does not know rather than looked up at connect.
func TestTypesEnumLifecycle(t *testing.T) {
	dsn := pgtest.DSN(t)
	std := openDB(t, stdDriver, dsn)
	pc := openDB(t, pcDriver, withParams(t, dsn, "pgcache_types", "enum"))
	pc.SetMaxOpenConns(1)
	if err := pc.Ping(); err != nil { // the connection exists before the type
		t.Fatal(err)
	}
	mustExec(t, std, "drop type if exists pgcache_life")
	mustExec(t, std, "create type pgcache_life as enum ('a', 'b')")
	t.Cleanup(func() { std.Exec("drop type if exists pgcache_life") })
	query := "select v::pgcache_life from (values ('a'), ('a'), ('b'), ('a')) t(v)"
	differential(t, std, pc, query, []target{tString, tAny})
	mustExec(t, std, "alter type pgcache_life add value 'c' before 'a'")
	query = "select v::pgcache_life from (values ('c'), ('c'), ('a'), ('c')) t(v)"
	pgcache.ResetCache()
	before := pgcache.Stats().Text
	differential(t, std, pc, query, []target{tString})
	if d := countsDelta(before, pgcache.Stats().Text); d.Hits == 0 {
		t.Errorf("enum values not cached: %v", d)
	}
}

// TestTypesReuseBackoff: an all-distinct key column backs off from its table
// like an all-distinct numeric one, and a repeating one never does.
func TestTypesReuseBackoff(t *testing.T) {
	pc := openDB(t, pcDriver, withParams(t, pgtest.DSN(t), "pgcache_types", "int8"))
	pgcache.ResetCache()
	// Long enough for the distinct column's first skip and a re-probe.
	rowCount := pgcache.ProbeWindow + pgcache.SkipFirst + pgcache.ReprobeWindow
	var n int
	before := pgcache.Stats().Int8
	rows, err := pc.Query("select i::int8 * 1000, (i / 12)::int8 * 1000 from generate_series(1, $1::int) i", rowCount)
	if err != nil {
		t.Fatal(err)
	}
	// Into *any: the destination whose values the int8 table serves on
	// every toolchain (on Go 1.27 an int8 into *int64 takes its wire route).
	var a, b any
	for rows.Next() {
		if err := rows.Scan(&a, &b); err != nil {
			t.Fatal(err)
		}
		n++
		if a != any(int64(n)*1000) || b != any(int64(n/12)*1000) {
			t.Fatalf("row %d: %d, %d", n, a, b)
		}
	}
	rows.Close()
	if n != rowCount {
		t.Fatalf("%d rows, want %d", n, rowCount)
	}
	d := countsDelta(before, pgcache.Stats().Int8)
	// The distinct column looks up its first window and at most the early
	// part of a re-probe, and bypasses the rest. The repeating one (each key
	// on twelve consecutive rows) gets a miss, an admission and ten hits per
	// key, more than churnRatio, so it stays cached to the end and bypasses
	// nothing: most of its values hit.
	if d.Bypasses < uint64(n-pgcache.ProbeWindow-pgcache.EarlyWindow) || d.Bypasses > uint64(n-pgcache.ProbeWindow) || d.Hits < uint64(4*n/5) ||
		d.Hits+d.Misses+d.Admissions+d.Bypasses != uint64(2*n) {
		t.Errorf("int8 traffic %v over %d rows: want %d to %d bypasses, at least %d hits, %d values in all",
			d, n, n-pgcache.ProbeWindow-pgcache.EarlyWindow, n-pgcache.ProbeWindow, 4*n/5, 2*n)
	}
}

// TestTypesChurnBacksOff: two int8 columns drawing at random from 6000
// values, more than the table has slots, hit and admit all the time (each
// admission evicting an entry, too few hits per admission); the
// back-off takes them out of the table after their warm-up (WarmWindows
// windows, then one judged by hits per admission), and every value still
// comes back as pgx stdlib returns it.
func TestTypesChurnBacksOff(t *testing.T) {
	std := openDB(t, stdDriver, pgtest.DSN(t))
	pc := openDB(t, pcDriver, withParams(t, pgtest.DSN(t), "pgcache_types", "int8"))
	pgcache.ResetCache()
	// Rows for the warm-up and its window, the first skip and one re-probe
	// (a skip after a re-probe is at least as long as the first).
	const n = (pgcache.WarmWindows+1)*pgcache.ProbeWindow + 2*pgcache.SkipFirst
	query := fmt.Sprintf(`select 1000 + abs(hashint8extended(g, 0)) %% 6000, 1000 + abs(hashint8extended(-g, 0)) %% 6000
		from generate_series(1, %d) g`, n)
	before := pgcache.Stats().Int8
	got, err := pc.Query(query)
	if err != nil {
		t.Fatal(err)
	}
	want, err := std.Query(query)
	if err != nil {
		t.Fatal(err)
	}
	defer want.Close()
	var read int
	for got.Next() {
		// Into *any, which the int8 table serves on every toolchain.
		var a, b, wa, wb any
		if err := got.Scan(&a, &b); err != nil {
			t.Fatal(err)
		}
		if !want.Next() {
			t.Fatal("pgx stdlib's rows ended first")
		}
		if err := want.Scan(&wa, &wb); err != nil {
			t.Fatal(err)
		}
		if a != wa || b != wb {
			t.Fatalf("row %d: %d, %d; pgx stdlib %d, %d", read+1, a, b, wa, wb)
		}
		read++
	}
	if err := got.Err(); err != nil {
		t.Fatal(err)
	}
	got.Close()
	d := countsDelta(before, pgcache.Stats().Int8)
	looked := d.Hits + d.Misses + d.Admissions
	t.Logf("int8 traffic %v: %d of %d values looked up", d, looked, 2*n)
	// Per column: the warm-up and the window after it in full, a skip, a
	// re-probe, a skip past the end. Allow the re-probe to pay, and the full
	// window after it. (The exact count: TestBackoffCountsChurn.)
	const least = 2 * (pgcache.WarmWindows + 1) * pgcache.ProbeWindow
	const most = least + 2*(pgcache.ReprobeWindow+pgcache.ProbeWindow)
	if read != n || looked+d.Bypasses != 2*n || looked < least || looked > most {
		t.Errorf("read %d rows; int8 traffic %v: %d of %d values looked up, want %d to %d", read, d, looked, 2*n, least, most)
	}
}

// allocsPerRow measures rows.Next + rows.Scan into dest, after the first ten
// rows (the miss and the admission): whole allocations per row, rounded
// down, as testing.AllocsPerRun counts them.
func allocsPerRow(t *testing.T, db *sql.DB, query string, dest any) float64 {
	t.Helper()
	var n float64
	readRows(t, db, query, dest, func(step func()) { n = testing.AllocsPerRun(2000, step) })
	return n
}

// exactAllocsPerRow is allocsPerRow unrounded: a fraction for a conversion
// that boxes its values many to an allocation (internal/box's Slab).
func exactAllocsPerRow(t *testing.T, db *sql.DB, query string, dest any) float64 {
	t.Helper()
	const rows = 3200 // a multiple of box.SlabLen
	var n float64
	readRows(t, db, query, dest, func(step func()) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		for range rows {
			step()
		}
		runtime.ReadMemStats(&m1)
		n = float64(m1.Mallocs-m0.Mallocs) / rows
	})
	return n
}

// near reports whether allocations per row n are want, give or take the
// few allocations of reading the rows' messages (pgx's read buffer).
func near(n, want float64) bool { return n >= want && n <= want+0.002 }

// readRows runs query on db and hands measure a step that reads its next
// row into dest, after the first ten rows.
func readRows(t *testing.T, db *sql.DB, query string, dest any, measure func(step func())) {
	t.Helper()
	r, err := db.Query(query)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	dests := []any{dest}
	step := func() {
		if !r.Next() {
			t.Fatal("too few rows")
		}
		if err := r.Scan(dests...); err != nil {
			t.Fatal(err)
		}
	}
	for range 10 {
		step()
	}
	measure(step)
}

// TestTypesAllocs: on a hit, a pgcache_types column costs no allocation per
// row, against stdlib's conversion with pgcache_types=none, which allocates
// as internal/box boxes: a text one allocation, a fixed-size value one
// allocation per box.SlabLen values — on Go 1.27 its direct route fills a
// *time.Time without any (TestDirectRouteAllocs) and boxes a value for *any
// on its own, one allocation as stdlib's; without the option, a
// kind of driver.DefaultTypes costs what it costs with pgcache_types=all,
// any other what it costs with none.
func TestTypesAllocs(t *testing.T) {
	dsn := pgtest.DSN(t)
	on := openDB(t, pcDriver, withParams(t, dsn, "pgcache_types", "all"))
	off := openDB(t, pcDriver, withParams(t, dsn, "pgcache_types", "none"))
	def := openDB(t, pcDriver, dsn)
	on.SetMaxOpenConns(1)
	off.SetMaxOpenConns(1)
	def.SetMaxOpenConns(1)
	for _, tc := range []struct {
		name, query string
		kind        driver.TypeKind
		dest        func() any
		// slab: uncached, the value is boxed box.SlabLen to an allocation
		// (a text is one allocation a value).
		slab bool
		// wireFree: on Go 1.27 the uncached column's wire route fills the
		// destination without allocating at all.
		wireFree bool
	}{
		{"text into *string", "select 'TRUCK'::text from generate_series(1, 5000)", driver.TypeText, func() any { return new(string) }, false, false},
		{"char(25) into *string", "select 'DELIVER IN PERSON'::char(25) from generate_series(1, 5000)", driver.TypeBPChar, func() any { return new(string) }, false, false},
		{"int8 into *any", "select 123456789::int8 from generate_series(1, 5000)", driver.TypeInt8, func() any { return new(any) }, true, false},
		{"date into *time.Time", "select '1995-03-15'::date from generate_series(1, 5000)", driver.TypeDate, func() any { return new(time.Time) }, true, true},
		{"timestamptz into *time.Time", "select '1995-03-15 10:00+02'::timestamptz from generate_series(1, 5000)", driver.TypeTimestamptz, func() any { return new(time.Time) }, true, true},
		{"float8 into *any", "select 2.5::float8 from generate_series(1, 5000)", driver.TypeFloat8, func() any { return new(any) }, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pgcache.ResetCache()
			got, base := allocsPerRow(t, on, tc.query, tc.dest()), exactAllocsPerRow(t, off, tc.query, tc.dest())
			t.Logf("%v allocations per row with pgcache_types=all, %.4f with none", got, base)
			if got != 0 {
				t.Errorf("%v allocations per row with pgcache_types=all, want 0", got)
			}
			switch {
			case tc.wireFree && pgcache.RowsColumnScanner:
				if base != 0 {
					t.Errorf("%.4f allocations per row with pgcache_types=none, want 0 (a wire route)", base)
				}
			case tc.slab && !pgcache.RowsColumnScanner:
				if !near(base, 1.0/box.SlabLen) {
					t.Errorf("%.4f allocations per row with pgcache_types=none, want 1/%d", base, box.SlabLen)
				}
			default:
				if !near(base, 1) {
					t.Errorf("%.4f allocations per row with pgcache_types=none, want 1", base)
				}
			}
			want := base
			if driver.DefaultTypes.Has(tc.kind) {
				want = 0
			}
			if d := exactAllocsPerRow(t, def, tc.query, tc.dest()); !near(d, want) {
				t.Errorf("%.4f allocations per row without pgcache_types, want %.4f (all: %v, none: %.4f)", d, want, got, base)
			}
		})
	}
}

// TestTypesBulkSkipCounts: when every cached column of a result set is in a
// back-off, whole rows are passed at once and the bypasses counted in bulk.
// The counts must still be exact: NULLs are not counted, and a text-kind
// value is counted in the table its length belongs to (Text up to 8 bytes,
// LongText above), however the row was passed. The rows are scanned into
// *any and compared with the query's own arithmetic, so a row passed in
// bulk cannot read a stale cached value either. The result set is read to
// its end, which comes in the middle of a bulk skip, and closed in the
// middle of one: the rows not read are not counted.
func TestTypesBulkSkipCounts(t *testing.T) {
	pc := openDB(t, pcDriver, withParams(t, pgtest.DSN(t), "pgcache_types", "text,int8"))
	// Both columns are in their second skip, and so rows pass in bulk, from
	// row 1.5*(ProbeWindow+EarlyWindow) + SkipFirst on (the text column,
	// NULL on a third of its rows, is the later of the two) to row
	// 1.25*(ProbeWindow+EarlyWindow) + 3*SkipFirst (the int8 one, NULL on a
	// fifth, ends it first): the result set ends there, and is closed
	// there too.
	for _, limit := range []int{0, pgcache.SkipFirst + 2*(pgcache.ProbeWindow+pgcache.EarlyWindow)} {
		t.Run(fmt.Sprint("limit=", limit), func(t *testing.T) { testBulkSkipCounts(t, pc, limit) })
	}
}

func testBulkSkipCounts(t *testing.T, pc *sql.DB, limit int) {
	const n = 3 * pgcache.SkipFirst
	// Every row distinct; a NULL in every third row of the text column and
	// every fifth of the int8 one; texts alternate between 6 and 20 bytes.
	query := fmt.Sprintf(`select case when i %% 3 = 0 then null when i %% 2 = 0 then lpad(i::text, 6, 'x')
		else lpad(i::text, 20, 'y') end, case when i %% 5 = 0 then null else i::int8 * 7 end
		from generate_series(1, %d) i`, n)
	pgcache.ResetCache()
	before := pgcache.Stats()
	rows, err := pc.Query(query)
	if err != nil {
		t.Fatal(err)
	}
	var short, long, ints uint64
	var row int
	for (limit == 0 || row < limit) && rows.Next() {
		row++
		var s, k any
		if err := rows.Scan(&s, &k); err != nil {
			t.Fatal(err)
		}
		switch {
		case row%3 == 0:
			if s != nil {
				t.Fatalf("row %d: text %#v, want NULL", row, s)
			}
		case row%2 == 0:
			short++
			if s != strings.Repeat("x", 6-len(fmt.Sprint(row)))+fmt.Sprint(row) {
				t.Fatalf("row %d: text %#v", row, s)
			}
		default:
			long++
			if s != strings.Repeat("y", 20-len(fmt.Sprint(row)))+fmt.Sprint(row) {
				t.Fatalf("row %d: text %#v", row, s)
			}
		}
		if row%5 == 0 {
			if k != nil {
				t.Fatalf("row %d: int8 %#v, want NULL", row, k)
			}
		} else {
			ints++
			if k != int64(row)*7 {
				t.Fatalf("row %d: int8 %#v, want %d", row, k, row*7)
			}
		}
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	after := pgcache.Stats()
	total := func(c counts) uint64 { return c.Hits + c.Misses + c.Admissions + c.Bypasses }
	text, longText, int8s := countsDelta(before.Text, after.Text), countsDelta(before.LongText, after.LongText), countsDelta(before.Int8, after.Int8)
	if total(text) != short || total(longText) != long || total(int8s) != ints {
		t.Errorf("traffic Text %v (%d short texts read), LongText %v (%d long), Int8 %v (%d ints)", text, short, longText, long, int8s, ints)
	}
	if text.Bypasses < short/2 || longText.Bypasses < long/2 || int8s.Bypasses < ints/2 {
		t.Errorf("all-distinct columns did not back off: Text %v, LongText %v, Int8 %v", text, longText, int8s)
	}
}
