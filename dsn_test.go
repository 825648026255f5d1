package pgcache_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/tracelog"

	"github.com/pgcache/pgcache"
	"github.com/pgcache/pgcache/driver"
	"github.com/pgcache/pgcache/internal/pgtest"
)

// dsnForms builds a DSN with pgcache options in each of pgx's two forms,
// from the test server's DSN in either form.
var dsnForms = []struct {
	name string
	make func(t testing.TB, dsn string, params ...string) string
}{
	{"keyword", keywordDSN},
	{"url", urlDSN},
}

func TestDSNBadOption(t *testing.T) {
	t.Parallel()
	dsn := pgtest.DSN(t)
	for _, form := range dsnForms {
		for _, tc := range []struct {
			key, value string
			want       error
		}{
			{"pgcache_foo", "1", driver.ErrUnknownOption},
			{"pgcache_numeric", "on", driver.ErrUnknownOption},
			{"PGCACHE_DISABLE", "a", driver.ErrUnknownOption},
			{"pgcache_disabel", "a", driver.ErrUnknownOption},
			{"pgcahce_types", "all", driver.ErrUnknownOption},
			{"pgcache", "maybe", driver.ErrInvalidValue},
			{"pgcache", "", driver.ErrInvalidValue},
			{"pgcache_disable", "a..b", driver.ErrInvalidValue},
			{"pgcache_disable", "a.b.c.d", driver.ErrInvalidValue},
			{"pgcache_disable", `"unterminated`, driver.ErrInvalidValue},
			{"pgcache_disable", "a,,b", driver.ErrInvalidValue},
		} {
			t.Run(form.name+"/"+tc.key+"="+tc.value, func(t *testing.T) {
				bad := form.make(t, dsn, tc.key, tc.value)
				db, err := sql.Open(pcDriver, bad)
				if err == nil {
					// The option must fail sql.Open or, at the latest, the first use.
					err = db.Ping()
					db.Close()
				}
				if err == nil {
					t.Fatalf("%s: no error", bad)
				}
				if !strings.Contains(err.Error(), tc.key) {
					t.Errorf("error %q does not name the key %s", err, tc.key)
				}
				if !errors.Is(err, tc.want) {
					t.Errorf("error %q is not %v", err, tc.want)
				}
				optErr, ok := errors.AsType[*driver.OptionError](err)
				if !ok || optErr.Key != tc.key {
					t.Errorf("error %#v: want a *driver.OptionError for key %s", err, tc.key)
				}
			})
		}
	}
}

func TestDSNOptionsNeverReachServer(t *testing.T) {
	t.Parallel()
	dsn := pgtest.DSN(t)
	for _, form := range dsnForms {
		for _, params := range [][]string{
			{"pgcache", "off"},
			{"pgcache", "on"},
			{"pgcache", "TRUE"},
			{"pgcache_disable", "a, public.t.b , s.t.\"Odd, Name\""},
			{"pgcache", "1", "pgcache_disable", ""},
		} {
			t.Run(form.name+"/"+strings.Join(params, "="), func(t *testing.T) {
				d := form.make(t, dsn, params...)
				// pgx alone sends unknown keys to the server, which refuses
				// the connection: that is what pgcache must prevent.
				std := openDB(t, stdDriver, d)
				if err := std.Ping(); err == nil || !strings.Contains(err.Error(), "unrecognized configuration parameter") {
					t.Errorf("pgx stdlib with %s: %v; want the server to reject the parameter", d, err)
				}
				pc := openDB(t, pcDriver, d)
				var n int
				var s string
				if err := pc.QueryRow("select count(*), 1.25::numeric from pg_settings where name like 'pgcache%'").Scan(&n, &s); err != nil {
					t.Fatalf("pgcache with %s: %v", d, err)
				}
				if n != 0 || s != "1.25" {
					t.Errorf("got %d pgcache settings on the server and %q; want 0 and 1.25", n, s)
				}
			})
		}
	}
}

// TestDSNCustomServerParameter: a dotted key is a PostgreSQL custom
// parameter, sent to the server as pgx sends it, even one that starts with
// "pgcache".
func TestDSNCustomServerParameter(t *testing.T) {
	t.Parallel()
	dsn := pgtest.DSN(t)
	for _, form := range dsnForms {
		t.Run(form.name, func(t *testing.T) {
			d := form.make(t, dsn, "pgcache.foo", "bar", "myapp.mode", "fast", "pgcache_types", "int8")
			for _, drv := range []string{stdDriver, pcDriver} {
				db := openDB(t, drv, form.make(t, dsn, "pgcache.foo", "bar", "myapp.mode", "fast"))
				if drv == pcDriver {
					db = openDB(t, drv, d)
				}
				var foo, mode string
				if err := db.QueryRow("select current_setting('pgcache.foo'), current_setting('myapp.mode')").Scan(&foo, &mode); err != nil {
					t.Fatalf("%s: %v", drv, err)
				}
				if foo != "bar" || mode != "fast" {
					t.Errorf("%s: pgcache.foo=%q myapp.mode=%q on the server, want bar and fast", drv, foo, mode)
				}
			}
		})
	}
}

// dsnTables creates two tables named pgc_dsn_t, in public and in schema
// pgc_dsn_s, and one whose names need quoting, each with five rows holding
// the same numeric and hstore values.
func dsnTables(t *testing.T, db *sql.DB) {
	t.Helper()
	mustExec(t, db, `
		create schema if not exists pgc_dsn_s;
		drop table if exists public.pgc_dsn_t, pgc_dsn_s.pgc_dsn_t;
		create table public.pgc_dsn_t (id int, a numeric(12,2), h hstore);
		create table pgc_dsn_s.pgc_dsn_t (id int, a numeric(12,2), h hstore);
		insert into public.pgc_dsn_t select i, 3.50, 'k=>v' from generate_series(1, 5) i;
		insert into pgc_dsn_s.pgc_dsn_t select i, 3.50, 'k=>v' from generate_series(1, 5) i;
		drop table if exists "pgc_dsn_Odd";
		create table "pgc_dsn_Odd" (id int, "Odd, ""Na.me""" numeric(12,2), h hstore);
		insert into "pgc_dsn_Odd" select i, 3.50, 'k=>v' from generate_series(1, 5) i`)
}

// fiveSame is the traffic of one read of five rows holding the same value,
// from an empty cache: a miss, an admission and three hits.
var fiveSame = counts{Misses: 1, Admissions: 1, Hits: 3}

// TestDSNDisable checks through Stats which columns pgcache=off and
// pgcache_disable keep out of the cache, and that values stay identical to
// stdlib's. Each query has one numeric and one hstore column; the tables are
// separate, so one column's traffic cannot disturb the other's.
func TestDSNDisable(t *testing.T) {
	needHstore(t)
	dsn := pgtest.DSN(t)
	std := openDB(t, stdDriver, dsn)
	dsnTables(t, std)
	const (
		public = "select a, h from pgc_dsn_t order by id"
		other  = "select a, h from pgc_dsn_s.pgc_dsn_t order by id"
		alias  = "select a as x, h from pgc_dsn_t order by id"
		expr   = "select a + 0 as a, h from pgc_dsn_t order by id"
		odd    = `select "Odd, ""Na.me""", h from "pgc_dsn_Odd" order by id`
	)
	none := counts{}
	for _, tc := range []struct {
		params          []string
		query           string
		numeric, hstore counts
		bothForms       bool // also as a URL
	}{
		{nil, public, fiveSame, fiveSame, true},
		{[]string{"pgcache", "on"}, public, fiveSame, fiveSame, false},
		{[]string{"pgcache", "off"}, public, none, none, true},
		{[]string{"pgcache", "off", "pgcache_disable", "h"}, public, none, none, false},
		// A result column name.
		{[]string{"pgcache_disable", "a"}, public, none, fiveSame, true},
		{[]string{"pgcache_disable", "a"}, other, none, fiveSame, false},
		{[]string{"pgcache_disable", "a"}, alias, fiveSame, fiveSame, false},
		{[]string{"pgcache_disable", "x"}, alias, none, fiveSame, false},
		{[]string{"pgcache_disable", "a"}, expr, none, fiveSame, false},
		{[]string{"pgcache_disable", "h"}, public, fiveSame, none, false},
		{[]string{"pgcache_disable", "A"}, public, none, fiveSame, false}, // folded, as PostgreSQL folds
		{[]string{"pgcache_disable", `"A"`}, public, fiveSame, fiveSame, false},
		// A table column, found through the search path, wherever it appears.
		{[]string{"pgcache_disable", "pgc_dsn_t.a"}, public, none, fiveSame, false},
		{[]string{"pgcache_disable", "pgc_dsn_t.a"}, alias, none, fiveSame, false},
		{[]string{"pgcache_disable", "PGC_DSN_T.A"}, alias, none, fiveSame, false},
		{[]string{"pgcache_disable", "pgc_dsn_t.a"}, other, fiveSame, fiveSame, false},
		{[]string{"pgcache_disable", "pgc_dsn_t.a"}, expr, fiveSame, fiveSame, false},
		{[]string{"pgcache_disable", "pgc_dsn_t.id"}, public, fiveSame, fiveSame, false},
		{[]string{"pgcache_disable", "pgc_dsn_t.h, pgc_dsn_t.a"}, public, none, none, true},
		// A schema-qualified table column.
		{[]string{"pgcache_disable", "public.pgc_dsn_t.a"}, public, none, fiveSame, false},
		{[]string{"pgcache_disable", "public.pgc_dsn_t.a"}, other, fiveSame, fiveSame, false},
		{[]string{"pgcache_disable", "pgc_dsn_s.pgc_dsn_t.a"}, public, fiveSame, fiveSame, false},
		{[]string{"pgcache_disable", "pgc_dsn_s.pgc_dsn_t.a"}, other, none, fiveSame, true},
		{[]string{"pgcache_disable", "pgc_dsn_s.pgc_dsn_t.h"}, other, fiveSame, none, false},
		// Quoted identifiers holding a comma, a space, a dot and a quote.
		{[]string{"pgcache_disable", `"pgc_dsn_Odd"."Odd, ""Na.me"""`}, odd, none, fiveSame, true},
		{[]string{"pgcache_disable", `public."pgc_dsn_Odd"."Odd, ""Na.me""", h`}, odd, none, none, false},
		{[]string{"pgcache_disable", `"Odd, ""Na.me"""`}, odd, none, fiveSame, false},
		{[]string{"pgcache_disable", `pgc_dsn_odd."Odd, ""Na.me"""`}, odd, fiveSame, fiveSame, false},
		// Names that match nothing.
		{[]string{"pgcache_disable", "pgc_no_such_table.a"}, public, fiveSame, fiveSame, false},
		{[]string{"pgcache_disable", "no_such_schema.pgc_dsn_t.a"}, public, fiveSame, fiveSame, false},
		{[]string{"pgcache_disable", "pgc_dsn_t.no_such_column"}, public, fiveSame, fiveSame, false},
	} {
		forms := dsnForms[:1]
		if tc.bothForms {
			forms = dsnForms
		}
		for _, form := range forms {
			name := form.name + "/" + strings.Join(tc.params, "=") + "/" + tc.query
			t.Run(name, func(t *testing.T) {
				pc := openDB(t, pcDriver, form.make(t, dsn, tc.params...))
				if err := pc.Ping(); err != nil { // connect (and resolve) before measuring
					t.Fatal(err)
				}
				want := readAll(t, std, tc.query, nil, []target{tString, tString})
				checkReference(t, "stdlib", want)
				pgcache.ResetCache()
				var got []string
				num, hs := traffic(func() { got = readAll(t, pc, tc.query, nil, []target{tString, tString}) })
				compareLines(t, "values", want, got)
				if num != tc.numeric || hs != tc.hstore {
					t.Errorf("traffic: numeric %v, hstore %v; want %v, %v", num, hs, tc.numeric, tc.hstore)
				}
				// Scanning into pgcache's types changes nothing either.
				compareLines(t, "values as Decimal and Hstore", want, readAll(t, pc, tc.query, nil, []target{
					targetOf("Decimal.String", func(p *pgcache.Decimal) string { s := p.String(); return goSyntax(&s) }),
					targetOf("Hstore.String", func(p *pgcache.Hstore) string { s := p.String(); return goSyntax(&s) }),
				}))
			})
		}
	}
}

// TestDSNDisableTableCreatedLater: an entry naming a table that does not
// exist when a connection opens matches nothing on that connection; a
// connection opened after the table exists honours it.
func TestDSNDisableTableCreatedLater(t *testing.T) {
	needHstore(t)
	dsn := pgtest.DSN(t)
	ctx := context.Background()
	std := openDB(t, stdDriver, dsn)
	mustExec(t, std, "drop table if exists pgc_dsn_later")
	pcDSN := withParams(t, dsn, "pgcache_disable", "pgc_dsn_later.a")
	early, err := openDB(t, pcDriver, pcDSN).Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer early.Close()
	mustExec(t, std, `create table pgc_dsn_later (id int, a numeric(12,2));
		insert into pgc_dsn_later select i, 9.75 from generate_series(1, 5) i`)
	const query = "select a from pgc_dsn_later order by id"
	want := readAll(t, std, query, nil, []target{tString})
	checkReference(t, "stdlib", want)

	pgcache.ResetCache()
	var got []string
	num, _ := traffic(func() { got = readAll(t, early, query, nil, []target{tString}) })
	compareLines(t, "connection opened before the table", want, got)
	if num != fiveSame {
		t.Errorf("connection opened before the table: traffic %v, want %v (the entry matched nothing)", num, fiveSame)
	}

	late := openDB(t, pcDriver, pcDSN)
	if err := late.Ping(); err != nil {
		t.Fatal(err)
	}
	pgcache.ResetCache()
	num, _ = traffic(func() { got = readAll(t, late, query, nil, []target{tString}) })
	compareLines(t, "connection opened after the table", want, got)
	if num != (counts{}) {
		t.Errorf("connection opened after the table: traffic %v, want none", num)
	}
}

// TestPoolConnectorOptions: a pool cannot carry pgcache options in its DSN
// (its RuntimeParams go to the server), so GetPoolConnectorWithOptions takes
// them as driver.Options.
func TestPoolConnectorOptions(t *testing.T) {
	needHstore(t)
	dsn := pgtest.DSN(t)
	std := openDB(t, stdDriver, dsn)
	dsnTables(t, std)
	pool, err := pgxpool.New(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	const query = "select a, h from pgc_dsn_t order by id"
	want := readAll(t, std, query, nil, []target{tString, tString})
	checkReference(t, "stdlib", want)
	for _, tc := range []struct {
		name            string
		opts            driver.Options
		numeric, hstore counts
	}{
		{"default", driver.DefaultOptions(), fiveSame, fiveSame},
		{"off", driver.Options{Cache: false}, counts{}, counts{}},
		{"disable a", driver.Options{Cache: true, Disable: []driver.Column{{Table: "pgc_dsn_t", Name: "a"}}}, counts{}, fiveSame},
		{"disable h", driver.Options{Cache: true, Disable: []driver.Column{{Name: "h"}}}, fiveSame, counts{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := sql.OpenDB(pgcache.GetPoolConnectorWithOptions(pool, tc.opts))
			db.SetMaxIdleConns(0)
			defer db.Close()
			if err := db.Ping(); err != nil {
				t.Fatal(err)
			}
			pgcache.ResetCache()
			var got []string
			num, hs := traffic(func() { got = readAll(t, db, query, nil, []target{tString, tString}) })
			compareLines(t, "values", want, got)
			if num != tc.numeric || hs != tc.hstore {
				t.Errorf("traffic: numeric %v, hstore %v; want %v, %v", num, hs, tc.numeric, tc.hstore)
			}
		})
	}
}

// TestDSNDisableLongIdentifiers: PostgreSQL truncates identifiers to 63
// bytes (NAMEDATALEN-1, on a character boundary), so a table or column
// created with a longer name is known by its first 63 bytes. Before the fix a
// pgcache_disable entry spelled in full, as the CREATE TABLE spelled it,
// matched nothing; it must match, as bare column name and as table column,
// and so must the truncated spelling.
func TestDSNDisableLongIdentifiers(t *testing.T) {
	dsn := pgtest.DSN(t)
	std := openDB(t, stdDriver, dsn)
	table := "pgc_long_" + strings.Repeat("t", 70)         // 79 bytes
	col := "long_" + strings.Repeat("c", 70)               // 75 bytes
	acc := strings.Repeat("é", 40)                         // 80 bytes, kept: 31 characters
	schema := "pgc_long_schema_" + strings.Repeat("s", 60) // 76 bytes
	mustExec(t, std, fmt.Sprintf(`drop table if exists %[1]s;
		create table %[1]s (id int, %[2]s numeric(12,2), "%[3]s" numeric(12,2));
		insert into %[1]s select i, 3.50, 4.50 from generate_series(1, 5) i;
		drop schema if exists %[4]s cascade;
		create schema %[4]s;
		create table %[4]s.%[1]s (id int, %[2]s numeric(12,2), "%[3]s" numeric(12,2));
		insert into %[4]s.%[1]s select i, 3.50, 4.50 from generate_series(1, 5) i`, table, col, acc, schema))
	var stored []string
	rows, err := std.Query(`select attname from pg_attribute where attrelid = $1::regclass and attnum > 0 order by attnum`, table)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		stored = append(stored, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if want := []string{"id", col[:63], strings.Repeat("é", 31)}; !slices.Equal(stored, want) {
		t.Fatalf("the server stored the columns as %q, want %q", stored, want)
	}

	// The first query reports the columns under their names, the second
	// under aliases, so only a table-column entry can match them there.
	byName := fmt.Sprintf(`select %s, "%s" from %s order by id`, col, acc, table)
	byAlias := fmt.Sprintf(`select %s as x, "%s" as y from %s order by id`, col, acc, table)
	inSchema := fmt.Sprintf(`select %s as x, "%s" as y from %s.%s order by id`, col, acc, schema, table)
	both := counts{Misses: 2, Admissions: 2, Hits: 6}
	for _, form := range dsnForms {
		for _, tc := range []struct {
			disable string
			query   string
			numeric counts
		}{
			{"", byName, both},
			{col, byName, fiveSame},
			{col[:63], byName, fiveSame},
			{`"` + acc + `"`, byName, fiveSame},
			{col + `, "` + acc + `"`, byName, counts{}},
			{col, byAlias, both},
			{table + "." + col, byAlias, fiveSame},
			{table[:63] + "." + col[:63], byAlias, fiveSame},
			{"public." + table + `."` + acc + `"`, byAlias, fiveSame},
			{table + "." + col + ", " + table + `."` + acc + `"`, byAlias, counts{}},
			// The schema part is truncated too.
			{schema + "." + table + "." + col, inSchema, fiveSame},
			{schema[:63] + "." + table + "." + col, inSchema, fiveSame},
			{schema + "." + table + "." + col, byAlias, both},
			{table + "." + col, inSchema, both}, // not on the search path
		} {
			t.Run(form.name+"/"+tc.disable+"/"+tc.query[len(tc.query)-40:], func(t *testing.T) {
				pc := openDB(t, pcDriver, form.make(t, dsn, "pgcache_disable", tc.disable))
				if err := pc.Ping(); err != nil {
					t.Fatal(err)
				}
				want := readAll(t, std, tc.query, nil, []target{tString, tString})
				checkReference(t, "stdlib", want)
				pgcache.ResetCache()
				var got []string
				num, _ := traffic(func() { got = readAll(t, pc, tc.query, nil, []target{tString, tString}) })
				compareLines(t, "values", want, got)
				if num != tc.numeric {
					t.Errorf("pgcache_disable=%s: numeric traffic %v, want %v", tc.disable, num, tc.numeric)
				}
			})
		}
	}
}

// logRecorder is a tracelog.Logger that keeps what it is given.
type logRecorder struct {
	mu   sync.Mutex
	msgs []string
}

func (l *logRecorder) Log(_ context.Context, level tracelog.LogLevel, msg string, data map[string]any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if entry, ok := data["entry"]; ok {
		l.msgs = append(l.msgs, fmt.Sprintf("%s %s %v", level, msg, entry))
	}
}

func (l *logRecorder) lines() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.msgs)
}

// TestDSNDisableUnmatched: pgcache_disable entries that match nothing — a
// bare name no table has, a column missing from an existing table, a table
// that does not exist yet — are accepted, listed by name in
// Stats().UnmatchedDisable and logged once through a tracelog tracer; an
// entry leaves the list once a connection finds it (the table created
// later).
func TestDSNDisableUnmatched(t *testing.T) {
	dsn := pgtest.DSN(t)
	std := openDB(t, stdDriver, dsn)
	mustExec(t, std, `drop table if exists pgc_unm_later; drop table if exists pgc_unm_items;
		create table pgc_unm_items (id int, price numeric(10,2))`)
	entries := "pgc_unm_nosuchcolumn, pgc_unm_items.nosuchcolumn, pgc_unm_later.price, pgc_unm_items.price, price"
	open := func() (*sql.DB, *logRecorder) {
		cfg, err := pgx.ParseConfig(withParams(t, dsn, "pgcache_disable", entries))
		if err != nil {
			t.Fatal(err)
		}
		rec := &logRecorder{}
		cfg.Tracer = &tracelog.TraceLog{Logger: rec, LogLevel: tracelog.LogLevelWarn}
		db := pgcache.OpenDB(*cfg)
		t.Cleanup(func() { db.Close() })
		if err := db.Ping(); err != nil {
			t.Fatalf("a pgcache_disable entry that matches nothing must not fail the connection: %v", err)
		}
		return db, rec
	}
	unmatched := func() []string {
		var out []string
		for _, e := range pgcache.Stats().UnmatchedDisable {
			if strings.HasPrefix(e, "pgc_unm_") {
				out = append(out, e)
			}
		}
		return out
	}

	db, rec := open()
	want := []string{"pgc_unm_items.nosuchcolumn", "pgc_unm_later.price", "pgc_unm_nosuchcolumn"}
	if got := unmatched(); !slices.Equal(got, want) {
		t.Errorf("Stats().UnmatchedDisable = %q, want %q", got, want)
	}
	if got := rec.lines(); len(got) != 3 || !strings.Contains(strings.Join(got, "\n"), "warn pgcache: pgcache_disable entry matches no column pgc_unm_later.price") {
		t.Errorf("logged %q; want one warning per unmatched entry", got)
	}
	// A second connection of the same pool does not log them again.
	db.SetMaxIdleConns(0)
	if err := db.Ping(); err != nil {
		t.Fatal(err)
	}
	if got := rec.lines(); len(got) != 3 {
		t.Errorf("logged %d lines after a second connection, want the same 3", len(got))
	}

	mustExec(t, std, "create table pgc_unm_later (price numeric(10,2))")
	open()
	want = []string{"pgc_unm_items.nosuchcolumn", "pgc_unm_nosuchcolumn"}
	if got := unmatched(); !slices.Equal(got, want) {
		t.Errorf("after creating the table: Stats().UnmatchedDisable = %q, want %q", got, want)
	}
}

// TestDSNDisableUnmatchedBy: Stats().UnmatchedDisableBy names the database
// each unmatched pgcache_disable entry was reported for (host, port,
// database, user; never the password), a database opened without the
// entry neither shows nor clears it, and closing the sql.DB that reported
// it clears it, database by database. Before, one list served the whole
// process: an entry a DSN misspelt stayed after every database opened
// without it, with nothing to say where it came from.
func TestDSNDisableUnmatchedBy(t *testing.T) {
	const entry = "pgc_unb_typo.price"
	dbX, dbY := pgtest.Database(t), pgtest.Database(t)
	open := func(dsn string, params ...string) *sql.DB {
		t.Helper()
		db, err := sql.Open(pcDriver, withParams(t, dsn, params...))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		if err := db.Ping(); err != nil {
			t.Fatal(err)
		}
		return db
	}
	reported := func() (entries []string, by []pgcache.UnmatchedEntry) {
		t.Helper()
		s := pgcache.Stats()
		for _, e := range s.UnmatchedDisable {
			if e == entry {
				entries = append(entries, e)
			}
		}
		for _, e := range s.UnmatchedDisableBy {
			if strings.Contains(e.Database, "secret") || strings.Contains(e.Database, "password") {
				t.Errorf("UnmatchedDisableBy %+v shows the password", e)
			}
			if e.Entry == entry {
				by = append(by, e)
			}
		}
		return entries, by
	}
	database := func(dsn string) string {
		t.Helper()
		cfg, err := pgx.ParseConfig(dsn)
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("host=%s port=%d dbname=%s user=%s", cfg.Host, cfg.Port, cfg.Database, cfg.User)
	}
	check := func(when string, want ...string) {
		t.Helper()
		entries, by := reported()
		var got []string
		for _, e := range by {
			got = append(got, e.Database)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: UnmatchedDisableBy for %s lists %q, want %q", when, entry, got, want)
		}
		if len(entries) != min(len(want), 1) {
			t.Errorf("%s: UnmatchedDisable lists %s %d times, want %d", when, entry, len(entries), min(len(want), 1))
		}
	}

	// password= is ignored by the test server's trust authentication.
	a := open(dbX, "pgcache_disable", entry, "password", "secret")
	check("X opened with the entry", database(dbX))
	open(dbY)
	check("Y opened without it", database(dbX))
	c := open(dbY, "pgcache_disable", entry)
	want := []string{database(dbX), database(dbY)}
	slices.Sort(want)
	check("Y opened with it too", want...)
	a.Close()
	check("X's sql.DB closed", database(dbY))
	c.Close()
	check("Y's closed too")
}
