package integration

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	_ "github.com/jackc/pgx/v5/stdlib" // registers "pgx"

	"github.com/pgcache/pgcache"
	"github.com/pgcache/pgcache/cache"
	"github.com/pgcache/pgcache/internal/difftest"
	"github.com/pgcache/pgcache/internal/pgtest"
)

// TestMain runs the tests against one throwaway PostgreSQL cluster (or the
// server $PGCACHE_TEST_DSN names). Go's internal rule is by import path, and
// this module's path is below the root's, so it may use internal/pgtest.
func TestMain(m *testing.M) { pgtest.Main(m) }

// drivers are the database/sql drivers every scenario runs through; pgx
// stdlib is the reference.
var drivers = difftest.Drivers

// record collects what a scenario observed, one line per value or event, so
// that two drivers' runs compare as a whole.
type record = difftest.Record

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
func testContext(t testing.TB) context.Context { return pgtest.Context(t, 2*time.Minute) }

// openDB opens dsn with the named driver and closes it when t ends.
var openDB = pgtest.OpenDB

func mustExec(t testing.TB, db interface {
	ExecContext(context.Context, string, ...any) (sql.Result, error)
}, query string, args ...any) {
	t.Helper()
	if _, err := db.ExecContext(testContext(t), query, args...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

// mustDecimal and mustHstore parse a value a test needs, failing it if the
// text does not parse.
var (
	mustDecimal = difftest.MustDecimal
	mustHstore  = difftest.MustHstore
)

// counts is the traffic part of a cache.Stats.
type counts = cache.Counts

// traffic runs f and returns the cache traffic it caused. Tests of this
// package run sequentially, so nothing else reads through the cache
// meanwhile.
var traffic = difftest.Traffic

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
