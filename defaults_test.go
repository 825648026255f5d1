package pgcache_test

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/pgcache/pgcache"
	"github.com/pgcache/pgcache/driver"
	"github.com/pgcache/pgcache/internal/pgtest"
)

// The default: without pgcache_types a connection caches driver.DefaultTypes
// (the text kinds, and on Go 1.26 the date and time kinds), so every application
// that swaps the driver name runs those columns through the shared tables.
// These tests hold the default to pgx stdlib's values where a session
// changes under it.

// defaultSessionProfiles are session settings a connection is given one
// after the other, mid-connection (TimeZone, DateStyle, IntervalStyle,
// extra_float_digits, bytea_output): each changes what some kind's text
// looks like, and the tables, shared by every connection, must never hand
// out a value made under other settings.
var defaultSessionProfiles = [][5]string{
	{"UTC", "ISO, MDY", "postgres", "1", "hex"},
	{"America/New_York", "SQL, DMY", "iso_8601", "0", "escape"},
	{"Asia/Kolkata", "German, DMY", "sql_standard", "3", "hex"},
	{"Europe/Berlin", "Postgres, YMD", "postgres_verbose", "-2", "escape"},
	{"UTC", "ISO, MDY", "postgres", "1", "hex"},
}

var defaultSessionNames = [5]string{"TimeZone", "DateStyle", "IntervalStyle", "extra_float_digits", "bytea_output"}

// defaultColumns are the columns of TestDefaultSessionSettings' query: every
// pgcache_types kind, numeric, hstore, interval and bytea, each drawing from a
// few values so that they repeat (misses, admissions, hits), each column once
// per destination.
var defaultColumns = []struct {
	expr    string
	targets []target
}{
	{"(array['N', 'TRUCK', '', 'DELIVER IN PERSON'])[i % 4 + 1]::text", []target{tString, tAny, tNullString, tRawBytes}},
	{"(array['MAIL', 'REG AIR', 'a much longer varchar value'])[i % 3 + 1]::varchar(40)", []target{tString, tAny}},
	{"(array['N', 'O', 'ab'])[i % 3 + 1]::char(5)", []target{tString, tAny}},
	{"(array['pg_class', 'pg_type'])[i % 2 + 1]::name", []target{tString}},
	{"(array['a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '00000000-0000-0000-0000-000000000000'])[i % 2 + 1]::uuid", []target{tString, tAny, tBytes}},
	{"(array['ok', 'happy', 'sad'])[i % 3 + 1]::pgcache_mood", []target{tString, tAny}},
	{"(i % 3)::int2", []target{tInt64, tAny, tString}},
	{"(i % 5 * 1000)::int4", []target{tInt64, tInt32, tAny, tString}},
	{"(i % 4 * 123456789012)::int8", []target{tInt64, tAny, tString, tNullInt64}},
	{"(array[0.1, 1.5, 1e20, 'NaN', 5e-324, 2.0 / 3])[i % 6 + 1]::float8", []target{tFloat64, tAny, tString, tNullF64}},
	{"'1995-03-15'::date + i % 3", []target{tTime, tAnyTime, tString, tNullTime}},
	{"'1998-12-01 10:30:00.123456'::timestamp + (i % 3) * interval '1 hour'", []target{tTime, tAnyTime, tString}},
	{"'2021-03-28 01:30:00+00'::timestamptz + (i % 4) * interval '30 minutes'", []target{tTime, tAnyTime, tString, tNullTime}},
	{"(array[12.50, 0.5, -1, 1299.00])[i % 4 + 1]::numeric", []target{tString, tAny, tFloat64, tNullString}},
	{"hstore('k', (i % 3)::text)", []target{tString, tAny, tNullString}},
	{"(i % 3) * interval '1 day 2 hours 3.5 seconds'", []target{tString, tAny}},
	{"decode(md5((i % 3)::text), 'hex')", []target{tBytes, tString, tAny}},
}

// defaultSessionQuery is the query of column c of defaultColumns, the column
// once per destination.
func defaultSessionQuery(c int) string {
	exprs := make([]string, len(defaultColumns[c].targets))
	for i := range exprs {
		exprs[i] = defaultColumns[c].expr
	}
	return "select " + strings.Join(exprs, ", ") + " from generate_series(1, 40) i"
}

// TestDefaultSessionSettings reads every kind through pgcache without
// pgcache_types (and, to compare, with pgcache_types=all) and through pgx
// stdlib, one connection each, in every exec mode, changing the session's
// TimeZone, DateStyle, IntervalStyle, extra_float_digits and bytea_output
// on both connections between reads without emptying the cache: every value
// is what pgx stdlib gives under the same settings.
func TestDefaultSessionSettings(t *testing.T) {
	needHstore(t)
	dsn := pgtest.DSN(t)
	mustExec(t, openDB(t, stdDriver, dsn), "do $$ begin create type pgcache_mood as enum ('sad', 'ok', 'happy'); exception when duplicate_object then null; end $$")
	ctx := context.Background()
	for _, mode := range execModes {
		for _, types := range []string{"default", "all"} {
			t.Run(mode+"/types="+types, func(t *testing.T) {
				d := withParams(t, dsn, "default_query_exec_mode", mode)
				pcDSN := d
				if types != "default" {
					pcDSN = withParams(t, d, "pgcache_types", types)
				}
				std, pc := conn(t, openDB(t, stdDriver, d)), conn(t, openDB(t, pcDriver, pcDSN))
				pgcache.ResetCache()
				before := pgcache.Stats()
				for p, profile := range defaultSessionProfiles {
					for i, name := range defaultSessionNames {
						for _, c := range []*sql.Conn{std, pc} {
							if _, err := c.ExecContext(ctx, fmt.Sprintf("set %s = '%s'", name, profile[i])); err != nil {
								t.Fatal(err)
							}
						}
					}
					for k, c := range defaultColumns {
						query := defaultSessionQuery(k)
						want := readAll(t, std, query, nil, c.targets)
						// pgx stdlib fails a date or a timestamp in a
						// DateStyle other than ISO when it arrives as text
						// (a rows error): pgcache must fail it alike.
						if len(want) == 0 || strings.HasPrefix(want[0], "query error") {
							t.Fatalf("profile %d, %s: stdlib's reference read failed: %q", p, c.expr, want)
						}
						for pass := 1; pass <= 2; pass++ {
							compareLines(t, fmt.Sprintf("%s, settings %q, pass %d", c.expr, profile, pass), want, readAll(t, pc, query, nil, c.targets))
						}
					}
				}
				after := pgcache.Stats()
				set := driver.DefaultTypes
				if types == "all" {
					set = driver.AllTypes
				}
				// The kinds cached were: numeric and hstore, and the text
				// kinds (in every mode) when the set has them.
				for name, d := range map[string]counts{
					"Text": countsDelta(before.Text, after.Text), "Numeric": countsDelta(before.Numeric, after.Numeric),
					"Hstore": countsDelta(before.Hstore, after.Hstore),
				} {
					if (name != "Text" || set.Has(driver.TypeText)) && d.Hits == 0 {
						t.Errorf("%s table traffic %v: the cached path was not compared", name, d)
					}
				}
				binary := mode != "simple_protocol" && mode != "exec"
				if d := countsDelta(before.Date, after.Date); binary && set.Has(driver.TypeDate) != (d.Hits > 0) {
					t.Errorf("Date table traffic %v with %v cached", d, set)
				}
			})
		}
	}
}

// conn is one connection of db, closed with the test.
func conn(t *testing.T, db *sql.DB) *sql.Conn {
	t.Helper()
	c, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}
