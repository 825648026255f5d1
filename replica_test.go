package pgcache_test

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pgcache/pgcache"
	"github.com/pgcache/pgcache/internal/pgtest"
)

// Read replicas: a primary and a streaming standby (pg_basebackup -R) of
// the test's own, reached through pgx's multi-host DSNs, with every value
// read from the standby compared with pgx stdlib's.

// replicaColumn is a column of the replica tests' table: its type, the
// value of row g.i as an SQL expression, and a destination fit for it.
type replicaColumn struct {
	name, typ, expr string
	target          target
}

// replicaColumns hold one column of each kind pgcache caches (numeric,
// hstore, and every pgcache_types kind), with values that repeat, and
// NULLs.
var replicaColumns = []replicaColumn{
	{"n", "numeric", "case when g.i % 17 = 0 then null else (g.i % 13) * 1.25 end", tDecimal},
	{"h", "hstore", "hstore('k', (g.i % 5)::text)", tHstore},
	{"t", "text", "case when g.i % 19 = 0 then null else 't' || g.i % 7 end", tNullString},
	{"vc", "varchar(10)", "'v' || g.i % 3", tString},
	{"bp", "char(5)", "'b' || g.i % 4", tRawBytes},
	{"nm", "name", "'n' || g.i % 3", tString},
	{"u", "uuid", "('00000000-0000-0000-0000-00000000000' || g.i % 6)::uuid", tBytes},
	{"i8", "int8", "(g.i % 9) * 1000000000", tInt64},
	{"i4", "int4", "g.i % 11", tInt32},
	{"i2", "int2", "g.i % 8", tInt64},
	{"f8", "float8", "(g.i % 5) / 4.0", tFloat64},
	{"d", "date", "date '2020-01-01' + (g.i % 10)::int", tTime},
	{"ts", "timestamp", "timestamp '2020-01-01 10:00' + (g.i % 6) * interval '1 hour'", tNullTime},
	{"tz", "timestamptz", "timestamptz '2020-01-01 10:00+00' + (g.i % 6) * interval '1 minute'", tTime},
	{"e", "pgcache_rmood", "(array['sad', 'ok', 'happy'])[1 + g.i % 3]::pgcache_rmood", tNullString},
}

// replicaSchema creates the table rep, with hstore and the enum it needs.
func replicaSchema() string {
	var b strings.Builder
	b.WriteString("create extension hstore; create type pgcache_rmood as enum ('sad', 'ok', 'happy'); create table rep (id int8 primary key")
	for _, c := range replicaColumns {
		fmt.Fprintf(&b, ", %s %s", c.name, c.typ)
	}
	b.WriteString(")")
	return b.String()
}

// replicaInsert inserts rows $1 to $2 into rep.
func replicaInsert() string {
	var names, exprs []string
	for _, c := range replicaColumns {
		names = append(names, c.name)
		exprs = append(exprs, c.expr)
	}
	return fmt.Sprintf("insert into rep (id, %s) select g.i, %s from generate_series($1::int8, $2::int8) g(i)",
		strings.Join(names, ", "), strings.Join(exprs, ", "))
}

// replicaSelect reads rep's rows up to id $1 in order.
func replicaSelect() string {
	var names []string
	for _, c := range replicaColumns {
		names = append(names, c.name)
	}
	return "select " + strings.Join(names, ", ") + " from rep where id <= $1 order by id"
}

// replicaTargets are the destination lists each read of rep is compared
// in: every column as any, as string, and in its own destination.
func replicaTargets() map[string][]target {
	own := make([]target, len(replicaColumns))
	for i, c := range replicaColumns {
		own[i] = c.target
	}
	return map[string][]target{
		"any":    repeatTarget(tAny, len(replicaColumns)),
		"string": repeatTarget(tString, len(replicaColumns)),
		"own":    own,
	}
}

// multiHost returns a keyword/value DSN naming the socket directories
// dirs in order, with more settings.
func multiHost(dirs []string, params ...string) string {
	return multiHostOn(pgtest.Port, dirs, params...)
}

// multiHostOn is multiHost with every socket on port.
func multiHostOn(port int, dirs []string, params ...string) string {
	ports := make([]string, len(dirs))
	for i := range ports {
		ports[i] = strconv.Itoa(port)
	}
	dsn, err := pgtest.WithOptions("", append([]string{"host", strings.Join(dirs, ","), "port", strings.Join(ports, ","),
		"user", "postgres", "dbname", "postgres", "sslmode", "disable"}, params...)...)
	if err != nil {
		panic(err) // only a URL can fail to parse
	}
	return dsn
}

// multiHostURL is multiHost as a postgres:// URL: the socket directories
// travel in the host query parameter, comma-separated, as pgx reads them.
func multiHostURL(dirs []string, params ...string) string {
	ports := make([]string, len(dirs))
	for i := range ports {
		ports[i] = strconv.Itoa(pgtest.Port)
	}
	q := url.Values{"host": {strings.Join(dirs, ",")}, "port": {strings.Join(ports, ",")}, "sslmode": {"disable"}}
	for i := 0; i < len(params); i += 2 {
		q.Set(params[i], params[i+1])
	}
	return "postgres://postgres@/postgres?" + strings.ReplaceAll(q.Encode(), "+", "%20")
}

// TestReplica starts a primary and a streaming standby of its own and
// tests what an application of a replicated server sees through them.
func TestReplica(t *testing.T) {
	t.Parallel()
	primary, standby := pgtest.StartPair(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	mustExec(t, openDB(t, stdDriver, primary.DSN()), replicaSchema())
	mustExec(t, openDB(t, stdDriver, primary.DSN()), replicaInsert(), 1, 400)
	if err := standby.CatchUp(ctx); err != nil {
		t.Fatal(err)
	}
	t.Run("MultiHost", func(t *testing.T) { testMultiHost(t, primary, standby) })
	t.Run("StandbyReads", func(t *testing.T) { testStandbyReads(ctx, t, primary, standby) })
	t.Run("PgBouncer", func(t *testing.T) { testReplicaPgBouncer(ctx, t, primary, standby) })
}

// testReplicaPgBouncer puts a PgBouncer (transaction pooling) in front of
// each server, as a pair is usually run, and reaches them through a
// multi-host DSN naming both PgBouncers: target_session_attrs picks the
// server behind them, and rep reads through pgcache, with its catalog
// lookup passed through PgBouncer, as through pgx stdlib.
func testReplicaPgBouncer(ctx context.Context, t *testing.T, primary, standby *pgtest.Cluster) {
	if _, err := pgtest.FindPgBouncer(); err != nil {
		if why, ok := pgtest.Required(); ok {
			t.Fatalf("%s, but PgBouncer is missing: %v", why, err)
		}
		t.Skipf("skipped: %v", err)
	}
	var dirs []string
	for _, c := range []*pgtest.Cluster{primary, standby} {
		b, err := pgtest.StartPgBouncer(ctx, c.DSN(), 2)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := b.Stop(); err != nil {
				t.Error(err)
			}
		})
		dirs = append(dirs, b.Dir())
	}
	for _, tt := range []struct{ attrs, want string }{
		{"read-write", "f"}, {"read-only", "t"}, {"primary", "f"}, {"standby", "t"}, {"prefer-standby", "t"},
	} {
		t.Run(tt.attrs, func(t *testing.T) {
			dsn := multiHostOn(pgtest.PgBouncerPort, dirs, "target_session_attrs", tt.attrs, "default_query_exec_mode", "exec")
			std := openDB(t, stdDriver, dsn)
			for _, opts := range []string{"default", "all"} {
				pc := openDB(t, pcDriver, dsn)
				if opts == "all" {
					pc = openDB(t, pcDriver, withParams(t, dsn, "pgcache_types", "all"))
				}
				var inRecovery string
				if err := pc.QueryRowContext(ctx, "select pg_is_in_recovery()::text").Scan(&inRecovery); err != nil {
					t.Fatal(err)
				}
				if inRecovery[:1] != tt.want {
					t.Errorf("pg_is_in_recovery() = %s through PgBouncer, want %s", inRecovery, tt.want)
				}
				for tname, targets := range replicaTargets() {
					want := readAll(t, std, replicaSelect(), []any{400}, targets)
					checkReference(t, tname, want)
					compareLines(t, fmt.Sprintf("%s, pgcache_types=%s", tname, opts), want, readAll(t, pc, replicaSelect(), []any{400}, targets))
				}
			}
		})
	}
}

// testMultiHost connects through multi-host DSNs, keyword/value and URL,
// with every target_session_attrs value pgx accepts and a first host that
// is down (a socket directory with no server): pgcache passes the setting
// to pgx unchanged, so both drivers reach the same server, or fail alike
// when no host qualifies, and read the same values there.
func testMultiHost(t *testing.T, primary, standby *pgtest.Cluster) {
	p, s := primary.Dir(), standby.Dir()
	down := p + "-down" // no such directory: the dial fails at once
	const (
		onPrimary = "primary"
		onStandby = "standby"
		fails     = "fails"
	)
	for _, tt := range []struct {
		attrs string
		hosts []string
		want  string
	}{
		{"any", []string{p, s}, onPrimary},
		{"any", []string{s, p}, onStandby},
		{"any", []string{down, s, p}, onStandby},
		{"read-write", []string{s, p}, onPrimary},
		{"read-write", []string{down, s, p}, onPrimary},
		{"read-write", []string{down, s}, fails},
		{"read-only", []string{p, s}, onStandby},
		{"read-only", []string{down, p, s}, onStandby},
		{"read-only", []string{down, p}, fails},
		{"primary", []string{s, p}, onPrimary},
		{"primary", []string{down, s, p}, onPrimary},
		{"standby", []string{p, s}, onStandby},
		{"standby", []string{down, p, s}, onStandby},
		{"standby", []string{down, p}, fails},
		{"prefer-standby", []string{p, s}, onStandby},
		{"prefer-standby", []string{down, p, s}, onStandby},
		// With no standby up, prefer-standby settles for the primary.
		{"prefer-standby", []string{down, p}, onPrimary},
	} {
		names := make([]string, len(tt.hosts))
		for i, h := range tt.hosts {
			names[i] = map[string]string{p: "primary", s: "standby", down: "down"}[h]
		}
		for form, dsn := range map[string]string{
			"keyword": multiHost(tt.hosts, "target_session_attrs", tt.attrs),
			"url":     multiHostURL(tt.hosts, "target_session_attrs", tt.attrs),
		} {
			t.Run(fmt.Sprintf("%s/%s/%s", tt.attrs, strings.Join(names, ","), form), func(t *testing.T) {
				const q = "select case when pg_is_in_recovery() then 'standby' else 'primary' end, 1.25::numeric, 'a=>1'::hstore::text"
				var got [2]string
				for i, drv := range []string{stdDriver, pcDriver} {
					db := openDB(t, drv, dsn)
					var server, n, h string
					if err := db.QueryRow(q).Scan(&server, &n, &h); err != nil {
						got[i] = "error: " + errShow(err)
						continue
					}
					got[i] = server + " " + n + " " + h
				}
				if got[0] != got[1] {
					t.Errorf("stdlib: %s\npgcache: %s", got[0], got[1])
				}
				if tt.want == fails {
					if !strings.HasPrefix(got[1], "error: *pgconn.ConnectError") {
						t.Errorf("pgcache: %s, want a *pgconn.ConnectError", got[1])
					}
					return
				}
				if want := tt.want + " 1.25 \"a\"=>\"1\""; got[1] != want {
					t.Errorf("pgcache: %s, want %s", got[1], want)
				}
			})
		}
	}
}

// testStandbyReads reads rep from the standby through pgx stdlib and
// through pgcache, with the default options and pgcache_types=all, while
// the primary inserts more rows, which the standby replays as it is read:
// every read must give the same values through both drivers.
func testStandbyReads(ctx context.Context, t *testing.T, primary, standby *pgtest.Cluster) {
	std := openDB(t, stdDriver, standby.DSN())
	pcs := map[string]*sql.DB{
		"default": openDB(t, pcDriver, standby.DSN()),
		"all":     openDB(t, pcDriver, withParams(t, standby.DSN(), "pgcache_types", "all")),
	}
	writer := openDB(t, stdDriver, primary.DSN())
	const batch = 40
	before := pgcache.Stats()
	seen := map[int64]bool{}
	for round := 0; round < 6 || len(seen) < 3; round++ {
		if round == 20 {
			t.Fatalf("the standby showed %d distinct row counts in 20 rounds, want rows replicated while it is read", len(seen))
		}
		// This round's rows are inserted, and replayed, while it reads.
		var wg sync.WaitGroup
		var writeErr error
		first := int64(401 + round*batch)
		wg.Go(func() {
			_, writeErr = writer.ExecContext(ctx, replicaInsert(), first, first+batch-1)
		})
		var upTo int64
		if err := std.QueryRowContext(ctx, "select max(id) from rep").Scan(&upTo); err != nil {
			t.Fatal(err)
		}
		seen[upTo] = true
		for tname, targets := range replicaTargets() {
			want := readAll(t, std, replicaSelect(), []any{upTo}, targets)
			checkReference(t, tname, want)
			for opts, pc := range pcs {
				got := readAll(t, pc, replicaSelect(), []any{upTo}, targets)
				compareLines(t, fmt.Sprintf("round %d (rows to %d), %s, pgcache_types=%s", round, upTo, tname, opts), want, got)
			}
		}
		wg.Wait()
		if writeErr != nil {
			t.Fatalf("inserting on the primary: %v", writeErr)
		}
		if t.Failed() {
			return
		}
	}
	after := pgcache.Stats()
	if d := countsDelta(before.Numeric, after.Numeric); d.Hits == 0 {
		t.Errorf("numeric traffic on the standby %v: no hits, so the cache was not compared", d)
	}
	t.Logf("the standby showed %d row counts while it was read", len(seen))
}
