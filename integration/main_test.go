package integration

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	_ "github.com/jackc/pgx/v5/stdlib" // registers "pgx"

	"github.com/pgcache/pgcache"
	"github.com/pgcache/pgcache/cache"
	"github.com/pgcache/pgcache/internal/pgtest"
)

// TestMain runs the tests against one throwaway PostgreSQL cluster (or the
// server $PGCACHE_TEST_DSN names). Go's internal rule is by import path, and
// this module's path is below the root's, so it may use internal/pgtest.
func TestMain(m *testing.M) { pgtest.Main(m) }

// drivers are the database/sql drivers every scenario runs through; pgx
// stdlib is the reference.
var drivers = []string{"pgx", pgcache.DriverName}

// record collects what a scenario observed, one line per value or event, so
// that two drivers' runs compare as a whole.
type record []string

func (r *record) add(format string, args ...any) { *r = append(*r, fmt.Sprintf(format, args...)) }

// scenario runs once per driver. dsn names a database of its own, with the
// hstore extension, created for this run.
type scenario func(t *testing.T, driverName, dsn string) record

// compareDrivers runs s through pgx stdlib and pgcache, each on a fresh
// database, and fails unless both recorded the same lines. It returns the
// cache traffic of the pgcache run.
func compareDrivers(t *testing.T, s scenario) (numeric, hstore counts) {
	t.Helper()
	return compareDriversOn(t, pgtest.DSN(t), s)
}

// compareDriversOn is [compareDrivers] with the databases created on the
// server server points at, such as the one a PgBouncer fronts.
func compareDriversOn(t *testing.T, server string, s scenario) (numeric, hstore counts) {
	t.Helper()
	var got [2]record
	for i, name := range drivers {
		dsn := hstoreDatabaseOn(t, server)
		t.Run(name, func(t *testing.T) {
			n, h := traffic(func() { got[i] = s(t, name, dsn) })
			if name == pgcache.DriverName {
				numeric, hstore = n, h
			}
		})
	}
	if t.Failed() {
		return numeric, hstore
	}
	if len(got[0]) == 0 {
		t.Fatal("the scenario recorded nothing")
	}
	if a, b := strings.Join(got[0], "\n"), strings.Join(got[1], "\n"); a != b {
		t.Fatalf("drivers disagree\n--- pgx stdlib ---\n%s\n--- pgcache ---\n%s", a, b)
	}
	return numeric, hstore
}

// hstoreDatabase creates a database with the hstore extension, dropped when
// t ends. The extension exists before anyone connects, so pgcache's
// connections know the hstore type.
func hstoreDatabase(t testing.TB) string {
	t.Helper()
	return hstoreDatabaseOn(t, pgtest.DSN(t))
}

// hstoreDatabaseOn is [hstoreDatabase] on the server server points at, such
// as the one a PgBouncer fronts.
func hstoreDatabaseOn(t testing.TB, server string) string {
	t.Helper()
	dsn := pgtest.DatabaseOn(t, server)
	ctx := testContext(t)
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "create extension hstore"); err != nil {
		t.Fatal(err)
	}
	return dsn
}

// testContext returns a context that ends with t, or after two minutes: no
// test may hang.
func testContext(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// openDB opens dsn with the named driver and closes it when t ends.
func openDB(t testing.TB, driverName, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open(driverName, dsn)
	if err != nil {
		t.Fatalf("sql.Open(%q): %v", driverName, err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func mustExec(t testing.TB, db interface {
	ExecContext(context.Context, string, ...any) (sql.Result, error)
}, query string, args ...any) {
	t.Helper()
	if _, err := db.ExecContext(testContext(t), query, args...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

// counts is the traffic part of a cache.Stats.
type counts struct{ Hits, Misses, Admissions, Bypasses uint64 }

func (c counts) String() string {
	return fmt.Sprintf("{hits %d, misses %d, admissions %d, bypasses %d}", c.Hits, c.Misses, c.Admissions, c.Bypasses)
}

func delta(before, after cache.Stats) counts {
	return counts{after.Hits - before.Hits, after.Misses - before.Misses,
		after.Admissions - before.Admissions, after.Bypasses - before.Bypasses}
}

// traffic runs f and returns the cache traffic it caused. Tests of this
// package run sequentially, so nothing else reads through the cache
// meanwhile.
func traffic(f func()) (numeric, hstore counts) {
	before := pgcache.Stats()
	f()
	after := pgcache.Stats()
	return delta(before.Numeric, after.Numeric), delta(before.Hstore, after.Hstore)
}

// requireHits fails t unless the pgcache run served values from the cache.
func requireHits(t *testing.T, what string, c counts) {
	t.Helper()
	if c.Hits == 0 {
		t.Errorf("%s: cache traffic %v, want hits", what, c)
	}
}

// seedSQL creates and fills the items table most scenarios read: prices
// that repeat (so the cache hits), a nullable discount and hstore attributes.
const seedSQL = `
create table items (
	id       bigint primary key,
	name     text not null,
	price    numeric(10, 2) not null,
	discount numeric(4, 2),
	attrs    hstore not null,
	extra    hstore
);
insert into items
select i, 'item ' || i, ((i % 6) * 2.25 + 0.99)::numeric(10, 2),
	case when i % 3 = 0 then null else ((i % 4) * 0.05)::numeric(4, 2) end,
	hstore(array['color', 'size'], array[(array['red', 'green', 'blue'])[i % 3 + 1], (i % 2)::text]),
	case when i % 5 = 0 then null else hstore('k', i % 4 || '') end
from generate_series(1, 60) i`
