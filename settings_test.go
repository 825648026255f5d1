package pgcache_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgcache/pgcache"
	"github.com/pgcache/pgcache/internal/pgtest"
)

// Server settings that change how SQL text is read or sent. Before the fix,
// every pgcache connection failed under each of them with "pgcache: catalog
// lookup at connect: simple protocol queries must be run with
// standard_conforming_strings=on" (or "…client_encoding=UTF8"), because the
// connect-time catalog query went through pgx's simple protocol with
// arguments, while pgx stdlib connected fine.
var serverSettings = []struct {
	name     string
	settings []string // name, value, ...
	encoding string   // the client encoding, for spelling queries
}{
	{"standard_conforming_strings=off", []string{"standard_conforming_strings", "off"}, "UTF8"},
	{"client_encoding=LATIN1", []string{"client_encoding", "LATIN1"}, "LATIN1"},
	{"client_encoding=SQL_ASCII", []string{"client_encoding", "SQL_ASCII"}, "SQL_ASCII"},
	{"client_encoding=WIN1252", []string{"client_encoding", "WIN1252"}, "LATIN1"}, // é is 0xE9 in both
	{"both", []string{"standard_conforming_strings", "off", "client_encoding", "LATIN1"}, "LATIN1"},
}

// inEncoding spells s (UTF-8) as a client using encoding sends it. Only the
// characters the tests use are handled: ASCII and Latin-1 letters.
func inEncoding(t testing.TB, s, encoding string) string {
	t.Helper()
	if encoding != "LATIN1" {
		return s // UTF8, and SQL_ASCII passes the UTF-8 bytes through
	}
	b := make([]byte, 0, len(s))
	for _, r := range s {
		if r > 0xff {
			t.Fatalf("%q has no LATIN1 spelling", s)
		}
		b = append(b, byte(r))
	}
	return string(b)
}

// TestConnectUnderServerSettings connects under each of serverSettings, set
// in the DSN (both forms), on the role (ALTER ROLE … IN DATABASE … SET) and on
// the database (ALTER DATABASE … SET), and checks that pgcache connects, reads
// what pgx stdlib reads, and applies pgcache_disable entries with non-ASCII
// names — which under LATIN1 the server reports in LATIN1 — by column name and
// by table column.
func TestConnectUnderServerSettings(t *testing.T) {
	needHstore(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// The test logs in as a role of its own, which a server authenticating
	// by peer or password would refuse: OwnServer is a cluster that trusts
	// local logins, the one TestMain started or, with $PGCACHE_TEST_DSN, one
	// started for such tests.
	dsn := pgtest.DatabaseOn(t, pgtest.OwnServer(t))
	dbName := dbNameOf(t, dsn)
	admin := openDB(t, stdDriver, dsn)
	mustExec(t, admin, `create extension if not exists hstore;
		create table "tarifs_été" (id int, "prix_été" numeric(12,2), h hstore, note text);
		insert into "tarifs_été" select i, 3.50, 'k=>v', 'café' from generate_series(1, 5) i`)
	// A role of this test binary's own (roles are cluster-wide and test
	// binaries may share a server through $PGCACHE_TEST_DSN). Superuser, so no
	// grants tie it to the database; DROP ROLE also drops its settings.
	role := fmt.Sprintf("pgc_settings_%d", os.Getpid())
	mustExec(t, admin, "drop role if exists "+role)
	mustExec(t, admin, "create role "+role+" login superuser")
	t.Cleanup(func() {
		// The database must be gone (or at least not in use) first; the
		// *sql.DBs opened below are closed by their own cleanups, which run
		// before this one.
		if _, err := admin.ExecContext(context.Background(), "drop role if exists "+role); err != nil {
			t.Logf("drop role %s: %v", role, err)
		}
	})

	// where a setting is made: in the DSN (apply nil: the settings are
	// added to the DSN), on the role or on the database.
	type where struct {
		name  string
		form  int // index into dsnForms, for the DSN cases
		dsn   string
		apply func(settings []string)
		reset func()
	}
	var wheres []where
	roleDSN := withParams(t, dsn, "user", role)
	for i, form := range dsnForms {
		wheres = append(wheres, where{name: "dsn/" + form.name, form: i})
	}
	wheres = append(wheres,
		where{name: "role", dsn: roleDSN,
			apply: func(settings []string) {
				for i := 0; i < len(settings); i += 2 {
					mustExec(t, admin, fmt.Sprintf("alter role %s in database %s set %s = '%s'", role, pgx.Identifier{dbName}.Sanitize(), settings[i], settings[i+1]))
				}
			},
			reset: func() {
				mustExec(t, admin, fmt.Sprintf("alter role %s in database %s reset all", role, pgx.Identifier{dbName}.Sanitize()))
			}},
		where{name: "database", dsn: dsn,
			apply: func(settings []string) {
				for i := 0; i < len(settings); i += 2 {
					mustExec(t, admin, fmt.Sprintf("alter database %s set %s = '%s'", pgx.Identifier{dbName}.Sanitize(), settings[i], settings[i+1]))
				}
			},
			reset: func() {
				mustExec(t, admin, fmt.Sprintf("alter database %s reset all", pgx.Identifier{dbName}.Sanitize()))
			}},
	)

	for _, set := range serverSettings {
		for _, w := range wheres {
			t.Run(set.name+"/"+w.name, func(t *testing.T) {
				connDSN := w.dsn
				if w.apply == nil {
					connDSN = dsnForms[w.form].make(t, dsn, set.settings...)
				} else {
					w.apply(set.settings)
					defer w.reset()
				}
				checkUnderSettings(ctx, t, connDSN, set.settings, set.encoding)
			})
		}
	}
}

// checkUnderSettings is one case of TestConnectUnderServerSettings.
func checkUnderSettings(ctx context.Context, t *testing.T, dsn string, settings []string, encoding string) {
	std := openDB(t, stdDriver, dsn)
	// The setting must really be in effect, or the test proves nothing.
	for i := 0; i < len(settings); i += 2 {
		var got string
		if err := std.QueryRowContext(ctx, "select current_setting($1)", settings[i]).Scan(&got); err != nil {
			t.Fatalf("pgx stdlib: %v", err)
		}
		if !strings.EqualFold(got, settings[i+1]) {
			t.Fatalf("%s is %q on the connection, want %q", settings[i], got, settings[i+1])
		}
	}
	query := inEncoding(t, `select "prix_été", h, note, 'a\\b'::text from "tarifs_été" order by id`, encoding)
	targets := []target{tString, tString, tString, tString}
	want := readAll(t, std, query, nil, targets)
	checkReference(t, "stdlib", want)
	for _, tc := range []struct {
		disable         string
		numeric, hstore counts
	}{
		{"", fiveSame, fiveSame},
		{"prix_été", counts{}, fiveSame},
		{`"tarifs_été".prix_été`, counts{}, fiveSame},
		{"public.tarifs_été.h", fiveSame, counts{}},
	} {
		pcDSN := dsn
		if tc.disable != "" {
			pcDSN = withParams(t, dsn, "pgcache_disable", tc.disable)
		}
		pc := openDB(t, pcDriver, pcDSN)
		if err := pc.PingContext(ctx); err != nil {
			t.Fatalf("pgcache_disable=%q: connecting: %v", tc.disable, err)
		}
		pgcache.ResetCache()
		var got []string
		num, hs := traffic(func() { got = readAll(t, pc, query, nil, targets) })
		compareLines(t, "pgcache_disable="+tc.disable, want, got)
		if num != tc.numeric || hs != tc.hstore {
			t.Errorf("pgcache_disable=%q: traffic numeric %v, hstore %v; want %v, %v", tc.disable, num, hs, tc.numeric, tc.hstore)
		}
		pc.Close()
	}
}

// dbNameOf returns the database a DSN connects to.
func dbNameOf(t testing.TB, dsn string) string {
	t.Helper()
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	return cfg.Database
}

// TestCatalogLookupBehindPgBouncer: the connect-time catalog query works
// through PgBouncer in transaction pooling mode, under the settings of
// serverSettings that PgBouncer forwards, with four client connections
// sharing one server connection: it prepares nothing (a named statement would
// collide on the shared server connection) and takes one round trip. The
// user's own queries use pgx's exec mode, which transaction pooling needs.
func TestCatalogLookupBehindPgBouncer(t *testing.T) {
	needHstore(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// PgBouncer fronts a server of the test binary's own: with
	// $PGCACHE_TEST_DSN, one started for such tests (see pgtest.OwnServer).
	bouncer, serverDSN := pgtest.PgBouncerDSN(t, 1)
	server := openDB(t, stdDriver, serverDSN)
	mustExec(t, server, `drop table if exists "pgc_bouncer_é";
		create table "pgc_bouncer_é" (id int, a numeric(12,2), "b_é" numeric(12,2));
		insert into "pgc_bouncer_é" select i, 3.50, 4.50 from generate_series(1, 5) i`)
	for _, set := range []struct {
		name     string
		settings []string
		encoding string
	}{
		{"default", nil, "UTF8"},
		serverSettings[0], // standard_conforming_strings=off
		serverSettings[1], // client_encoding=LATIN1
		serverSettings[4], // both
	} {
		t.Run(set.name, func(t *testing.T) {
			params := append([]string{"default_query_exec_mode", "exec",
				"pgcache_disable", `"pgc_bouncer_é".a, "b_é"`}, set.settings...)
			pc := openDB(t, pcDriver, withParams(t, bouncer, params...))
			pc.SetMaxOpenConns(4)
			query := inEncoding(t, `select a, "b_é" from "pgc_bouncer_é" order by id`, set.encoding)
			// Four client connections at once, each opened (and resolved)
			// while the others hold theirs.
			var conns []*sql.Conn
			for range 4 {
				c, err := pc.Conn(ctx)
				if err != nil {
					t.Fatalf("connection %d through PgBouncer: %v", len(conns)+1, err)
				}
				conns = append(conns, c)
			}
			want := []string{}
			for range 5 {
				want = append(want, `string "3.50" | string "4.50"`)
			}
			pgcache.ResetCache()
			num, _ := traffic(func() {
				for i, c := range conns {
					got := readAll(t, c, query, nil, []target{tString, tString})
					compareLines(t, fmt.Sprintf("connection %d", i+1), want, got)
				}
			})
			if num != (counts{}) {
				t.Errorf("numeric traffic %v, want none: both columns are disabled", num)
			}
			for _, c := range conns {
				c.Close()
			}
		})
	}
}

// TestCatalogLookupNonUTF8Database: in a database whose encoding is LATIN1,
// identifiers are converted from the DSN's UTF-8 by the server and truncated
// in LATIN1, where é is one byte: a 40-character name of é is 40 bytes there
// and is not cut, where in a UTF-8 database it would be cut to 31 characters.
// A name LATIN1 cannot represent (名前) can name no column; the connection
// must still open, and the ASCII entries still apply. In a SQL_ASCII
// database names are bytes, cut at byte 63 even inside a character, as the
// server cuts them. Tried with the client encoding the database's (pgx sends
// none) and UTF8.
func TestCatalogLookupNonUTF8Database(t *testing.T) {
	for _, encoding := range []string{"LATIN1", "SQL_ASCII"} {
		t.Run(encoding, func(t *testing.T) { catalogLookupInDatabase(t, encoding) })
	}
}

func catalogLookupInDatabase(t *testing.T, encoding string) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dsn := pgtest.DSN(t)
	admin := openDB(t, stdDriver, dsn)
	name := fmt.Sprintf("pgc_%s_%d", strings.ToLower(encoding), os.Getpid())
	mustExec(t, admin, "drop database if exists "+name+" with (force)")
	mustExec(t, admin, "create database "+name+" encoding '"+encoding+"' template template0 lc_collate 'C' lc_ctype 'C'")
	t.Cleanup(func() {
		if _, err := admin.ExecContext(context.Background(), "drop database if exists "+name+" with (force)"); err != nil {
			t.Error(err)
		}
	})
	latinDSN := withParams(t, dsn, "dbname", name)
	long := strings.Repeat("é", 40)
	// A SQL_ASCII database cuts the 80-byte name inside a character, which
	// a UTF8 client cannot even be told about (the server fails converting
	// its own notice): there, the client encoding is SQL_ASCII throughout.
	clients := []string{encoding, "UTF8"}
	setupDSN := withParams(t, latinDSN, "client_encoding", "UTF8")
	if encoding == "SQL_ASCII" {
		clients, setupDSN = clients[:1], latinDSN
	}
	setup := openDB(t, stdDriver, setupDSN)
	mustExec(t, setup, fmt.Sprintf(`create extension hstore;
		create table "tarifs_été" (id int, "prix_été" numeric(12,2), "%s" numeric(12,2), plain numeric(12,2), h hstore);
		insert into "tarifs_été" select i, 3.50, 4.50, 5.50, 'k=>v' from generate_series(1, 5) i`, long))
	setup.Close()

	for _, enc := range clients {
		connDSN := latinDSN
		if enc == "UTF8" {
			connDSN = withParams(t, latinDSN, "client_encoding", "UTF8")
		}
		query := inEncoding(t, fmt.Sprintf(`select "prix_été", "%s", plain, h from "tarifs_été" order by id`, long), enc)
		targets := []target{tString, tString, tString, tString}
		std := openDB(t, stdDriver, connDSN)
		var got string
		if err := std.QueryRowContext(ctx, "select current_setting('client_encoding') || ' ' || current_setting('server_encoding')").Scan(&got); err != nil {
			t.Fatal(err)
		}
		if want := enc + " " + encoding; got != want {
			t.Fatalf("client and server encoding %q, want %q", got, want)
		}
		want := readAll(t, std, query, nil, targets)
		checkReference(t, "stdlib", want)
		three := counts{Misses: 3, Admissions: 3, Hits: 9}
		two := counts{Misses: 2, Admissions: 2, Hits: 6}
		for _, tc := range []struct {
			disable string
			numeric counts
		}{
			{"", three},
			{"prix_été", two},
			{`"` + long + `"`, two},
			{`"tarifs_été"."` + long + `"`, two},
			{`public."tarifs_été".prix_été, plain`, fiveSame},
			// 名前 cannot be converted to LATIN1; the lookup is repeated
			// without the non-ASCII entries, and plain still applies. In
			// SQL_ASCII it is just bytes, and matches no column.
			{"名前, plain", two},
			{"t.名前, plain", two},
		} {
			t.Run(enc+"/"+tc.disable, func(t *testing.T) {
				pc := openDB(t, pcDriver, withParams(t, connDSN, "pgcache_disable", tc.disable))
				if err := pc.PingContext(ctx); err != nil {
					t.Fatalf("connecting: %v", err)
				}
				pgcache.ResetCache()
				var got []string
				num, _ := traffic(func() { got = readAll(t, pc, query, nil, targets) })
				compareLines(t, "values", want, got)
				if num != tc.numeric {
					t.Errorf("numeric traffic %v, want %v", num, tc.numeric)
				}
			})
		}
		std.Close()
	}
}
