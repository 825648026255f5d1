package integration

import (
	"database/sql"
	"fmt"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"

	"github.com/pgcache/pgcache"
	"github.com/pgcache/pgcache/internal/pgtest"
)

// execModes are pgx's query exec modes, as default_query_exec_mode spells
// them in a DSN.
var execModes = []string{"cache_statement", "cache_describe", "describe_exec", "exec", "simple_protocol"}

// bouncerDSN returns a DSN that reaches the database of dsn through bouncer
// (a DSN from pgtest.PgBouncerDSN), with extra keyword=value settings.
func bouncerDSN(t testing.TB, bouncer, dsn string, settings ...string) string {
	t.Helper()
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	s := bouncer + " dbname=" + cfg.Database
	for _, kv := range settings {
		s += " " + kv
	}
	return s
}

// bouncerLoop runs a loop of queries and transactions over three client
// connections of one *sql.DB, taking turns, through PgBouncer with two
// server connections: consecutive statements of one client land on
// different server connections. It records every value, and stops at the
// first error, which it records by SQLSTATE.
func bouncerLoop(t *testing.T, db *sql.DB) (r record, err error) {
	ctx := testContext(t)
	db.SetMaxOpenConns(3)
	var conns []*sql.Conn
	for range 3 {
		c, err := db.Conn(ctx)
		if err != nil {
			return r, err
		}
		defer c.Close()
		conns = append(conns, c)
	}
	for i := range 30 {
		c := conns[i%len(conns)]
		var (
			n     int64
			price string
			dec   pgcache.Decimal
			attrs pgcache.Hstore
		)
		q := "select $1::int8, ($1::int8 % 4 * 1.25)::numeric(6, 2), ($1::int8 % 3 * 0.5)::numeric(6, 2), " +
			"hstore('k', ($1::int8 % 3)::text)"
		if err := c.QueryRowContext(ctx, q, i).Scan(&n, &price, &dec, &attrs); err != nil {
			return r, err
		}
		r.add("%d %s %s %s", n, price, dec, attrs)
		if i%5 == 0 {
			tx, err := c.BeginTx(ctx, nil)
			if err != nil {
				return r, err
			}
			var sum string
			if err := tx.QueryRowContext(ctx, "select sum(x) from (values ($1::numeric), (2.50)) v(x)", "1.25").Scan(&sum); err != nil {
				tx.Rollback()
				return r, err
			}
			if err := tx.Commit(); err != nil {
				return r, err
			}
			r.add("tx %s", sum)
		}
	}
	return r, nil
}

// TestPgBouncer: behind a real PgBouncer in transaction pooling mode, every
// exec mode that works with "pgx" works with "pgcache", with the same
// values. Modes that keep named prepared statements on a server connection
// (cache_statement, pgx's default) cannot work there with either driver:
// PgBouncer 1.18 does not track prepared statements.
func TestPgBouncer(t *testing.T) {
	bouncer := pgtest.PgBouncerDSN(t, 2)
	dsn := hstoreDatabase(t)
	var working []string
	for _, mode := range execModes {
		t.Run(mode, func(t *testing.T) {
			var results [2]record
			var errs [2]error
			for i, name := range drivers {
				db := openDB(t, name, bouncerDSN(t, bouncer, dsn, "default_query_exec_mode="+mode))
				num, _ := traffic(func() { results[i], errs[i] = bouncerLoop(t, db) })
				if name == pgcache.DriverName && errs[i] == nil {
					requireHits(t, "numeric", num)
				}
			}
			if errs[0] != nil {
				t.Logf("pgx: %s fails behind PgBouncer (transaction mode): %v", mode, errs[0])
				if errs[1] == nil {
					t.Logf("pgcache: works")
				} else {
					t.Logf("pgcache: %v", errs[1])
				}
				return
			}
			if errs[1] != nil {
				t.Fatalf("works with pgx, but pgcache fails after %d values: %v", len(results[1]), errs[1])
			}
			if !slices.Equal(results[0], results[1]) {
				t.Fatalf("values differ\npgx:     %v\npgcache: %v", results[0], results[1])
			}
			working = append(working, mode)
		})
	}
	// The modes PgBouncer's documentation promises: no named statements.
	for _, mode := range []string{"describe_exec", "exec", "simple_protocol"} {
		if !slices.Contains(working, mode) {
			t.Errorf("%s did not work behind PgBouncer (working: %v)", mode, working)
		}
	}
	t.Logf("exec modes working behind PgBouncer in transaction pooling mode: %v", working)
}

// TestPgBouncerGORM: GORM with DriverName ignores PreferSimpleProtocol, so
// behind PgBouncer the exec mode goes in the DSN; with it, GORM's CRUD works
// through both drivers.
func TestPgBouncerGORM(t *testing.T) {
	bouncer := pgtest.PgBouncerDSN(t, 2)
	compareDrivers(t, func(t *testing.T, driverName, dsn string) record {
		var r record
		gdb, err := gorm.Open(postgres.New(postgres.Config{
			DriverName: driverName,
			DSN:        bouncerDSN(t, bouncer, dsn, "default_query_exec_mode=simple_protocol"),
		}), &gorm.Config{Logger: &sqlLog{}})
		if err != nil {
			t.Fatal(err)
		}
		sqlDB, err := gdb.DB()
		if err != nil {
			t.Fatal(err)
		}
		defer sqlDB.Close()
		gdb = gdb.WithContext(testContext(t))
		if err := gdb.AutoMigrate(&Product{}); err != nil {
			t.Fatal(err)
		}
		for i := range 10 {
			p := Product{Name: fmt.Sprint(i), Price: mustDecimal(t, []string{"1.10", "2.20"}[i%2]), Attrs: mustHstore(t, `"a"=>"b"`)}
			if err := gdb.Create(&p).Error; err != nil {
				t.Fatal(err)
			}
		}
		for range 3 {
			var ps []Product
			if err := gdb.Where("price > ?", mustDecimal(t, "1.5")).Order("id").Find(&ps).Error; err != nil {
				t.Fatal(err)
			}
			for _, p := range ps {
				r.add("%s", p)
			}
		}
		return r
	})
}
