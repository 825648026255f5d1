//go:build go1.27

package pgcache_test

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/shopspring/decimal"

	"github.com/pgcache/pgcache"
	"github.com/pgcache/pgcache/internal/pgtest"
)

// Go 1.27's driver.RowsColumnScanner: database/sql hands destinations to the
// driver, and pgx stdlib scans those database/sql does not know (slices,
// pgtype arrays, ranges, …) with pgx's type map. These tests hold pgcache to
// the same results, beside the differential suite, which runs unchanged on
// both toolchains.

// nativeCase is a query and destinations pgx's type map scans into.
type nativeCase struct {
	query   string
	targets []target
}

var nativeCases = []nativeCase{
	{"select array[1, 2, 3]::int8[]", []target{
		targetOf("[]int64", goSyntax[[]int64]),
		targetOf("[]int32", goSyntax[[]int32]),
		targetOf("pgtype.Array[int64]", goSyntax[pgtype.Array[int64]]),
		targetOf("pgtype.FlatArray[int64]", goSyntax[pgtype.FlatArray[int64]]),
		targetOf("[]string", goSyntax[[]string]),
		tString, tAny,
	}},
	{"select array[1.50, NULL, -3, 'NaN']::numeric[]", []target{
		targetOf("[]*string", func(p *[]*string) string {
			var b strings.Builder
			for _, s := range *p {
				b.WriteString(showStringPtr(&s) + " ")
			}
			return b.String()
		}),
		targetOf("[]string", goSyntax[[]string]), // NULL: an error from both
		targetOf("[]pgtype.Numeric", func(p *[]pgtype.Numeric) string {
			var b strings.Builder
			for i := range *p {
				b.WriteString(showPgNumeric(&(*p)[i]) + "; ")
			}
			return b.String()
		}),
		targetOf("[]pgcache.NullDecimal", func(p *[]pgcache.NullDecimal) string {
			var b strings.Builder
			for _, d := range *p {
				fmt.Fprintf(&b, "valid=%t %s; ", d.Valid, showDecimal(d.Decimal))
			}
			return b.String()
		}),
		targetOf("[]sql.NullString", goSyntax[[]sql.NullString]),
		targetOf("[]float64", goSyntax[[]float64]),
		tString,
	}},
	{"select array[array[1, 2], array[3, 4]]::int4[]", []target{
		targetOf("pgtype.Array[int32]", goSyntax[pgtype.Array[int32]]),
		targetOf("[][]int32", goSyntax[[][]int32]), // pgx refuses multi-dimensional slices
	}},
	{"select int4range(1, 10)", []target{
		targetOf("pgtype.Range[pgtype.Int4]", goSyntax[pgtype.Range[pgtype.Int4]]),
		tString,
	}},
	{"select int4multirange(int4range(1, 3), int4range(5, 8))", []target{
		targetOf("pgtype.Multirange[pgtype.Range[pgtype.Int4]]", goSyntax[pgtype.Multirange[pgtype.Range[pgtype.Int4]]]),
	}},
	{`select '\x0102ff'::bytea`, []target{
		targetOf("pgtype.FlatArray[byte]", goSyntax[pgtype.FlatArray[byte]]),
		tBytes, tRawBytes, tAny,
	}},
	{"select 12.50::numeric", []target{
		targetOf("int", goSyntax[int]),
		targetOf("uint8", goSyntax[uint8]),
		targetOf("Named float", goSyntax[namedFloat]),
		targetOf("Named string", goSyntax[namedString]),
		targetOf("**string", func(p **string) string { return showStringPtr(p) }),
		targetOf("[]string", goSyntax[[]string]),
		targetOf("struct", goSyntax[struct{ X int }]),
	}},
	{"select 7::numeric", []target{
		targetOf("int", goSyntax[int]),
		targetOf("int32", goSyntax[int32]),
		targetOf("int8", goSyntax[int8]),
		targetOf("uint64", goSyntax[uint64]),
		targetOf("sql.NullInt32", goSyntax[sql.NullInt32]),
	}},
}

type (
	namedFloat  float64
	namedString string
)

// TestRowsColumnScannerDestinations runs every native destination through
// both drivers, from an empty cache through miss, admission and hit, in every
// pgx query exec mode.
func TestRowsColumnScannerDestinations(t *testing.T) {
	dsn := pgtest.DSN(t)
	for _, mode := range execModes {
		t.Run(mode, func(t *testing.T) {
			std, pc := openDBs(t, withParams(t, dsn, "default_query_exec_mode", mode))
			for _, c := range nativeCases {
				for _, tg := range c.targets {
					want := readAll(t, std, c.query, nil, []target{tg})
					pgcache.ResetCache()
					for pass := 1; pass <= passes; pass++ {
						got := readAll(t, pc, c.query, nil, []target{tg})
						compareLines(t, fmt.Sprintf("%s into %s, pass %d", c.query, tg.name, pass), want, got)
					}
				}
			}
		})
	}
}

// TestPreallocBytes: pgtype.PreallocBytes must receive the bytes in the
// caller's own backing array, with either driver.
func TestPreallocBytes(t *testing.T) {
	std, pc := openDBs(t, pgtest.DSN(t))
	for _, db := range []*sql.DB{std, pc} {
		buf := make([]byte, 16)
		p := pgtype.PreallocBytes(buf)
		if err := db.QueryRow(`select '\x0102ff'::bytea`).Scan(&p); err != nil {
			t.Fatal(err)
		}
		if string(p) != "\x01\x02\xff" || &p[0] != &buf[0] {
			t.Errorf("%v: PreallocBytes %q, same array %t", db.Driver(), []byte(p), &p[0] == &buf[0])
		}
	}
}

// TestBadDestinationsReleaseConnection: nil, typed-nil and non-pointer
// destinations are errors, worded as pgx stdlib's, for every column kind —
// and the connection goes back to the pool (a single-connection pool must
// serve the next query).
func TestBadDestinationsReleaseConnection(t *testing.T) {
	needHstore(t)
	std, pc := openDBs(t, pgtest.DSN(t))
	std.SetMaxOpenConns(1)
	pc.SetMaxOpenConns(1)
	queries := []string{"select 42", "select 12.50::numeric", `select 'a=>1'::hstore`, "select array[1]::int8[]"}
	dests := []struct {
		name string
		dest func() any
	}{
		{"nil", func() any { return nil }},
		{"(*string)(nil)", func() any { return (*string)(nil) }},
		{"(*pgcache.Decimal)(nil)", func() any { return (*pgcache.Decimal)(nil) }},
		{"(*pgcache.Hstore)(nil)", func() any { return (*pgcache.Hstore)(nil) }},
		{"(*float64)(nil)", func() any { return (*float64)(nil) }},
		{"(*apd.Decimal)(nil)", func() any { return (*apd.Decimal)(nil) }},
		{"(*decimal.Decimal)(nil)", func() any { return (*decimal.Decimal)(nil) }},
		{"(*pgtype.Numeric)(nil)", func() any { return (*pgtype.Numeric)(nil) }},
		{"(*map[string]string)(nil)", func() any { return (*map[string]string)(nil) }},
		{"(*sql.RawBytes)(nil)", func() any { return (*sql.RawBytes)(nil) }},
		{"(*[]int64)(nil)", func() any { return (*[]int64)(nil) }},
		{"int 42", func() any { return 42 }},
		{"string", func() any { return "x" }},
	}
	scan := func(db *sql.DB, query string, dest any) string {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		err := db.QueryRowContext(ctx, query).Scan(dest)
		if ctx.Err() != nil {
			t.Fatalf("%s: scan did not return within 10 s: the connection was not released", query)
		}
		return errShow(err)
	}
	for pass := 1; pass <= passes; pass++ {
		for _, q := range queries {
			for _, d := range dests {
				want, got := scan(std, q, d.dest()), scan(pc, q, d.dest())
				if want != got {
					t.Errorf("%s into %s, pass %d:\nstdlib:  %s\npgcache: %s", q, d.name, pass, want, got)
				}
				if got == "<nil>" {
					t.Errorf("%s into %s: no error", q, d.name)
				}
			}
		}
	}
	var n int
	if err := pc.QueryRow("select 1").Scan(&n); err != nil || n != 1 {
		t.Fatalf("after the bad scans: %v, %d", err, n)
	}
	if s := pc.Stats(); s.InUse != 0 {
		t.Errorf("%d connections still in use", s.InUse)
	}
}

// TestHstoreMapsFollowTypeMap: map destinations of an hstore column scan as
// the connection's own type map scans them, as pgx stdlib's do. On a
// connection that registered pgx's hstore codec, every row — NULL, hit,
// miss, a NULL value into a map[string]string — gives what pgx stdlib with
// that codec gives, error texts included; on one that did not, a NULL gives
// a nil map and every other value pgx's refusal (cannot scan unknown type),
// whether it is cached or not: in every exec mode, with and without
// pgcache_types.
func TestHstoreMapsFollowTypeMap(t *testing.T) {
	needHstore(t)
	dsn := pgtest.DSN(t)
	ptrMap := targetOf("map[string]*string", func(p *map[string]*string) string {
		return fmt.Sprintf("nil=%t %s", *p == nil, showPgHstore(pgtype.Hstore(*p)))
	})
	strMap := targetOf("map[string]string", func(p *map[string]string) string {
		return fmt.Sprintf("nil=%t %#v", *p == nil, *p)
	})
	nullQuery := "select case when i % 2 = 0 then NULL else 'a=>1'::hstore end from generate_series(1, 6) i order by i"
	eachModeAndTypes(t, dsn, func(t *testing.T, d string, params []string) {
		typed := openPair(t, "hstore registered", d, registerHstore, params...)
		untyped := openPair(t, "hstore unknown to pgx", d, nil, params...)
		for _, tg := range []target{ptrMap, strMap} {
			want := readAll(t, typed.std, valuesQuery(hstoreExprs), nil, []target{tg})
			checkReference(t, tg.name, want)
			pgcache.ResetCache()
			for pass := 1; pass <= passes; pass++ {
				got := readAll(t, typed.pc, valuesQuery(hstoreExprs), nil, []target{tg})
				compareLines(t, fmt.Sprintf("%s, %s, pass %d", typed.name, tg.name, pass), want, got)
			}
			// Without the codec pgx scans only NULLs into maps, and
			// refuses every other value.
			for _, q := range []string{nullQuery, valuesQuery(hstoreExprs)} {
				want := readAll(t, untyped.std, q, nil, []target{tg})
				checkReference(t, tg.name, want)
				pgcache.ResetCache()
				for pass := 1; pass <= passes; pass++ {
					got := readAll(t, untyped.pc, q, nil, []target{tg})
					compareLines(t, fmt.Sprintf("%s, %s, pass %d", untyped.name, tg.name, pass), want, got)
				}
				if q == nullQuery && (!strings.Contains(want[1], "nil=true") || !strings.Contains(want[0], "cannot scan unknown type")) {
					t.Errorf("stdlib gives %q for a value and %q for a NULL; this test expects a refusal and a nil map", want[0], want[1])
				}
			}
		}
	})
}

// directRoute is a destination with a direct route from the cache, and how
// many allocations a hit may cost: 0, except where the destination must own
// fresh memory (a []byte copy; pgtype.Numeric's *big.Int, which its owner may
// modify; a new map).
type directRoute struct {
	name   string
	query  string
	dest   any
	allocs float64
}

var numericRouteQuery = "select 12.50::numeric from generate_series(1, 5000)"
var integerRouteQuery = "select 1250::numeric from generate_series(1, 5000)"
var hstoreRouteQuery = `select 'a=>1, "b c"=>NULL'::hstore from generate_series(1, 5000)`

var directRoutes = []directRoute{
	{"numeric into *string", numericRouteQuery, new(string), 0},
	{"numeric into *any", numericRouteQuery, new(any), 0},
	{"numeric into *sql.NullString", numericRouteQuery, new(sql.NullString), 0},
	{"numeric into *sql.RawBytes", numericRouteQuery, new(sql.RawBytes), 0},
	{"numeric into *[]byte", numericRouteQuery, new([]byte), 1},
	{"numeric into *float64", numericRouteQuery, new(float64), 0},
	{"numeric into *sql.NullFloat64", numericRouteQuery, new(sql.NullFloat64), 0},
	{"numeric into *int64", integerRouteQuery, new(int64), 0},
	{"numeric into *int", integerRouteQuery, new(int), 0},
	{"numeric into *int32", integerRouteQuery, new(int32), 0},
	{"numeric into *sql.NullInt64", integerRouteQuery, new(sql.NullInt64), 0},
	{"numeric into *pgcache.Decimal", numericRouteQuery, new(pgcache.Decimal), 0},
	{"numeric into *pgcache.NullDecimal", numericRouteQuery, new(pgcache.NullDecimal), 0},
	{"numeric into *apd.Decimal", numericRouteQuery, new(apd.Decimal), 0},
	{"numeric into *apd.NullDecimal", numericRouteQuery, new(apd.NullDecimal), 0},
	{"numeric into *decimal.Decimal", numericRouteQuery, new(decimal.Decimal), 0},
	{"numeric into *decimal.NullDecimal", numericRouteQuery, new(decimal.NullDecimal), 0},
	{"numeric into *pgtype.Numeric", numericRouteQuery, new(pgtype.Numeric), 1},
	{"hstore into *string", hstoreRouteQuery, new(string), 0},
	{"hstore into *any", hstoreRouteQuery, new(any), 0},
	{"hstore into *pgcache.Hstore", hstoreRouteQuery, new(pgcache.Hstore), 0},
	{"hstore into *pgcache.NullHstore", hstoreRouteQuery, new(pgcache.NullHstore), 0},
	{"hstore into *sql.RawBytes", hstoreRouteQuery, new(sql.RawBytes), 0},
	// pgcache_types kinds.
	{"text into *string", "select 'TRUCK'::text from generate_series(1, 5000)", new(string), 0},
	{"char(25) into *string", "select 'DELIVER IN PERSON'::char(25) from generate_series(1, 5000)", new(string), 0},
	{"varchar into *sql.NullString", "select 'MAIL'::varchar(10) from generate_series(1, 5000)", new(sql.NullString), 0},
	{"text into *any", "select 'TRUCK'::text from generate_series(1, 5000)", new(any), 0},
	{"int8 into *int64", "select 123456789::int8 from generate_series(1, 5000)", new(int64), 0},
	{"int8 into *any", "select 123456789::int8 from generate_series(1, 5000)", new(any), 0},
	{"int8 into *sql.NullInt64", "select 123456789::int8 from generate_series(1, 5000)", new(sql.NullInt64), 0},
	{"int4 into *int32", "select 100000::int4 from generate_series(1, 5000)", new(int32), 0},
	{"float8 into *float64", "select 2.5::float8 from generate_series(1, 5000)", new(float64), 0},
	{"date into *time.Time", "select '1995-03-15'::date from generate_series(1, 5000)", new(time.Time), 0},
	{"timestamptz into *time.Time", "select '1995-03-15 10:00+02'::timestamptz from generate_series(1, 5000)", new(time.Time), 0},
	{"timestamp into *sql.NullTime", "select '1995-03-15 10:00'::timestamp from generate_series(1, 5000)", new(sql.NullTime), 0},
}

// TestDirectRouteAllocs measures rows.Next + rows.Scan of a cached value that
// repeats on every row, for every direct route. Like TestAllocsPerRow it
// subtracts nothing: the baseline (a bool column) is asserted to be 0 too.
func TestDirectRouteAllocs(t *testing.T) {
	needHstore(t)
	pc := openDB(t, pcDriver, withParams(t, pgtest.DSN(t), "pgcache_types", "all"))
	pc.SetMaxOpenConns(1)
	if base := allocsPerRow(t, pc, "select true from generate_series(1, 5000)", new(bool)); base != 0 {
		t.Fatalf("baseline: %v allocations per row reading a bool; the routes below assume 0", base)
	}
	for _, r := range directRoutes {
		t.Run(r.name, func(t *testing.T) {
			pgcache.ResetCache()
			if got := allocsPerRow(t, pc, r.query, r.dest); got != r.allocs {
				t.Errorf("%v allocations per row on a hit, want %v", got, r.allocs)
			}
		})
	}
}
