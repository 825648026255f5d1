//go:build go1.27

package pgcache_test

import (
	"database/sql"
	"fmt"
	"testing"
	"time"

	"github.com/pgcache/pgcache"
	"github.com/pgcache/pgcache/internal/pgtest"
)

// scalarTargets are the destinations of the shared scalar routes
// (route_table_go127.go), each of which every entry kind offers.
var scalarTargets = []target{
	tString, tBytes, tRawBytes, tAny, tNullString, tInt64, tInt, tInt32,
	targetOf("int16", goSyntax[int16]), targetOf("int8", goSyntax[int8]),
	targetOf("uint64", goSyntax[uint64]), targetOf("uint", goSyntax[uint]), targetOf("uint32", goSyntax[uint32]),
	targetOf("uint16", goSyntax[uint16]), targetOf("uint8", goSyntax[uint8]),
	tFloat64, targetOf("float32", goSyntax[float32]), tBool,
	targetOf("time.Time", func(p *time.Time) string { return p.String() }),
	tNullInt64, targetOf("sql.NullInt32", goSyntax[sql.NullInt32]), targetOf("sql.NullInt16", goSyntax[sql.NullInt16]),
	targetOf("sql.NullByte", goSyntax[sql.NullByte]), tNullF64, targetOf("sql.NullBool", goSyntax[sql.NullBool]),
	targetOf("sql.NullTime", func(p *sql.NullTime) string { return p.Time.String() }),
}

// TestScalarRoutes: every kind scanned into every scalar destination gives
// what pgx stdlib gives — values, NULLs, range and syntax errors — with
// values at the edges of each destination's range: through the cache (a
// miss, an admission and a hit, pgcache_types=all) and through the wire
// routes of uncached columns (without it), in every exec mode (the simple
// protocol and exec mode read fixed-size kinds as text) and in a session
// whose TimeZone is not UTC.
func TestScalarRoutes(t *testing.T) {
	dsn := pgtest.DSN(t)
	mustExec(t, openDB(t, stdDriver, dsn), "do $$ begin create type pgcache_route_mood as enum ('sad', 'ok', 'happy'); exception when duplicate_object then null; end $$")
	ints := []string{"0", "1", "-1", "127", "128", "-128", "-129", "255", "256", "32767", "32768", "-32769",
		"65535", "65536", "2147483647", "2147483648", "-2147483649", "4294967295", "4294967296", "9007199254740993", "NULL"}
	cast := func(typ string, vals ...string) []string {
		var out []string
		for _, v := range vals {
			out = append(out, "("+v+")::"+typ)
		}
		return twice(out...)
	}
	cases := []struct {
		name  string
		exprs []string
	}{
		{"numeric", cast("numeric", append(ints, "12.50", "'NaN'", "'Infinity'", "0.1", "1e3", "'-0.5'", "'1e400'")...)},
		{"int8", cast("int8", append(ints, "9223372036854775807", "-9223372036854775808")...)},
		{"int4", cast("int4", ints[:15]...)},
		{"int2", cast("int2", "0", "1", "-1", "127", "128", "255", "256", "32767", "-32768", "NULL")},
		{"float8", cast("float8", "0", "1", "0.5", "'-0'", "1e20", "3.4e38", "3.5e38", "'NaN'", "'Infinity'", "'-Infinity'", "16777217", "0.1", "5e-324", "NULL")},
		{"float4", cast("float4", "0", "1", "0.1", "'-0'", "16777217", "3.4e38", "'NaN'", "'-Infinity'", "1e-45", "NULL")},
		{"bool", cast("bool", "true", "false", "NULL")},
		{"text", cast("text", "'1'", "'0'", "'t'", "'true'", "'300'", "'-129'", "'12.5'", "'abc'", "''", "'2024-05-06'", "' 1'", "NULL")},
		{"varchar", cast("varchar(10)", "'MAIL'", "'7'", "''", "NULL")},
		{"bpchar", cast("char(5)", "'ab'", "'1'", "NULL")},
		{"name", cast("name", "'pg_class'", "'0'")},
		{"uuid", cast("uuid", "'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'", "NULL")},
		{"enum", cast("pgcache_route_mood", "'ok'", "'happy'", "NULL")},
		{"date", cast("date", "'2024-05-06'", "'2000-01-01'", "'1999-12-31'", "'infinity'", "'-infinity'", "'0044-03-15 BC'", "'4713-11-24 BC'", "'5874897-12-31'", "NULL")},
		{"timestamp", cast("timestamp", "'2024-05-06 07:08:09.123456'", "'2000-01-01'", "'1999-12-31 23:59:59.999999'", "'1500-06-01 12:00'", "'infinity'", "'-infinity'", "'4713-11-24 00:00 BC'", "'294276-12-31 23:59:59.999999'", "NULL")},
		{"timestamptz", cast("timestamptz", "'2024-05-06 07:08:09.5+02'", "'2021-03-28 01:30:00 Europe/Berlin'", "'1900-01-01 00:00+00'", "'-infinity'", "'infinity'", "'4713-11-24 00:00+00 BC'", "NULL")},
	}
	for _, mode := range execModes {
		for _, tz := range []string{"UTC", "America/New_York"} {
			for _, types := range []string{"none", "", "all"} { // "": the default kinds
				t.Run(mode+"/"+tz+"/types="+types, func(t *testing.T) {
					d := withParams(t, dsn, "default_query_exec_mode", mode, "timezone", tz)
					std := openDB(t, stdDriver, d)
					pcDSN := d
					if types != "" {
						pcDSN = withParams(t, d, "pgcache_types", types)
					}
					pc := openDB(t, pcDriver, pcDSN)
					for _, c := range cases {
						t.Run(c.name, func(t *testing.T) {
							differential(t, std, pc, valuesQuery(c.exprs), scalarTargets)
						})
					}
				})
			}
		}
	}
}

// TestWireRouteAllocs: an uncached value on its wire route costs no
// allocation in the int, float, bool and time destinations and one, the
// string itself, in *string. The cache is off, so every value takes the
// route; like TestDirectRouteAllocs it subtracts nothing.
func TestWireRouteAllocs(t *testing.T) {
	off := openDB(t, pcDriver, withParams(t, pgtest.DSN(t), "pgcache", "off"))
	off.SetMaxOpenConns(1)
	series := " from generate_series(1, 5000) i"
	for _, tc := range []struct {
		name, expr string
		dest       any
		allocs     float64
	}{
		{"int8 into *int64", "i::int8 * 1000003", new(int64), 0},
		{"int8 into *int32", "i::int8", new(int32), 0},
		{"int8 into *sql.NullInt64", "i::int8 * 1000003", new(sql.NullInt64), 0},
		{"int4 into *int32", "i::int4 * 1003", new(int32), 0},
		{"int4 into *int", "i::int4 * 1003", new(int), 0},
		{"int2 into *int16", "(i % 30000)::int2", new(int16), 0},
		{"int4 into *uint32", "i::int4", new(uint32), 0},
		{"int8 into *float64", "i::int8", new(float64), 0},
		{"float8 into *float64", "i::float8 / 7", new(float64), 0},
		{"float4 into *float64", "i::float4 / 7", new(float64), 0},
		{"float8 into *sql.NullFloat64", "i::float8 / 7", new(sql.NullFloat64), 0},
		{"bool into *bool", "i % 2 = 0", new(bool), 0},
		{"bool into *sql.NullBool", "i % 2 = 0", new(sql.NullBool), 0},
		{"date into *time.Time", "'1995-03-15'::date + i", new(time.Time), 0},
		{"timestamp into *time.Time", "'1995-03-15'::timestamp + i * interval '1 second'", new(time.Time), 0},
		{"timestamptz into *sql.NullTime", "'1995-03-15 10:00+02'::timestamptz + i * interval '1 second'", new(sql.NullTime), 0},
		{"numeric into *float64", "i::numeric / 8", new(float64), 0},
		{"numeric into *int64", "i::numeric * 1000", new(int64), 0},
		{"text into *sql.RawBytes", "'code-' || i", new(sql.RawBytes), 1},
		{"text into *string", "'code-' || i", new(string), 1},
		{"varchar into *sql.NullString", "('code-' || i)::varchar", new(sql.NullString), 1},
		{"numeric into *string", "i::numeric / 8", new(string), 1},
		{"uuid into *string", "md5(i::text)::uuid", new(string), 1},
		// Header and bytes in one allocation (internal/box), not two.
		{"text into *any", "'code-' || i", new(any), 1},
		{"empty text into *any", "''::text", new(any), 0},
		// One byte: string(raw) shares the runtime's static strings.
		{"char(1) into *string", "(array['A', 'N', 'R'])[i % 3 + 1]::char(1)", new(string), 0},
		{"empty text into *string", "''::text", new(string), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := allocsPerRow(t, off, "select "+tc.expr+series, tc.dest); got != tc.allocs {
				t.Errorf("%v allocations per row, want %v", got, tc.allocs)
			}
		})
	}
}

// TestRouteDestinationChanges: a column scanned into a destination type
// other than the one before chooses its routes again. Each row's column is
// scanned twice, into the next two types of a cycle (*int64, *string,
// *int64, *any, …), so the type changes from scan to scan, within a row and
// from row to row, and every scan gives what pgx stdlib gives — range and
// syntax errors too — uncached (wire routes), and cached through miss,
// admission and hit (pgcache_types=all), in every exec mode.
func TestRouteDestinationChanges(t *testing.T) {
	dsn := pgtest.DSN(t)
	cycle := []target{tInt64, tString, tInt64, tAny, tNullInt64, tFloat64, targetOf("int8", goSyntax[int8]),
		tBytes, tNullString, targetOf("uint16", goSyntax[uint16]), tBool, tRawBytes, tInt32, tNullF64,
		targetOf("time.Time", func(p *time.Time) string { return p.String() }), tNullString}
	// Values repeat, so that the tables hold them by the later rows.
	series := func(expr string) string {
		return "select " + expr + " from generate_series(0, 59) i order by i"
	}
	queries := []string{
		series("(array[1, 300, -2, 0, 12, 127])[i % 6 + 1]::int8"),
		series("(array[1, 300, 70000, 0])[i % 4 + 1]::int4"),
		series("(array[1, 300, 32767, 0])[i % 4 + 1]::int2"),
		series("(array[1.00, 300, 2.5, 0, -7])[i % 5 + 1]::numeric"),
		series("(array['1', '300', 't', 'abc', '12.5'])[i % 5 + 1]::text"),
		series("(array['7', 'MAIL', '0'])[i % 3 + 1]::varchar(10)"),
		series("(array[1.5, 300, 0, 'NaN'])[i % 4 + 1]::float8"),
		series("(array[true, false])[i % 2 + 1]"),
		series("'1995-03-15'::date + i % 7"),
		series("'1995-03-15 10:00+02'::timestamptz + (i % 5) * interval '1 hour'"),
		series("case when i % 4 = 3 then NULL else (i % 3)::int8 end"),
	}
	read := func(db *sql.DB, query string) []string {
		rows, err := db.Query(query)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var lines []string
		for i := 0; rows.Next(); i++ {
			for k := range 2 {
				tg := cycle[(2*i+k)%len(cycle)]
				dest := tg.new()
				if err := rows.Scan(dest); err != nil {
					lines = append(lines, tg.name+": scan error: "+errShow(err))
				} else {
					lines = append(lines, tg.name+": "+tg.show(dest))
				}
			}
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return lines
	}
	eachModeAndTypes(t, dsn, func(t *testing.T, d string, params []string) {
		std := openDB(t, stdDriver, d)
		pc := openDB(t, pcDriver, withParams(t, d, params...))
		for _, q := range queries {
			want := read(std, q)
			checkReference(t, q, want)
			pgcache.ResetCache()
			for pass := 1; pass <= passes; pass++ {
				compareLines(t, fmt.Sprintf("%s, pass %d", q, pass), want, read(pc, q))
			}
		}
	})
}
