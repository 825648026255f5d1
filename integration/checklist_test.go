package integration

import (
	"database/sql"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/jmoiron/sqlx"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"

	"github.com/pgcache/pgcache"
	"github.com/pgcache/pgcache/internal/pgtest"
)

// The tests in this file are the README's "Migrating from pgx stdlib"
// checklist, one spelling each.

// TestSQLXBindStyles: sqlx picks its placeholder style by driver name and
// knows "pgx" and "postgres" but not "pgcache". Both checklist spellings,
// sqlx.BindDriver("pgcache", sqlx.DOLLAR) (this package's init) and
// sqlx.NewDb(db, "postgres"), make Rebind, In and the Named* functions send
// $1-style placeholders; a name sqlx does not know leaves '?' in the query,
// and the server answers with a bare syntax error.
func TestSQLXBindStyles(t *testing.T) {
	dsn := hstoreDatabase(t)
	sqlDB := openDB(t, pgcache.DriverName, dsn)
	mustExec(t, sqlDB, seedSQL)
	for _, tc := range []struct{ name, bindName string }{
		{"BindDriver", pgcache.DriverName},
		{"NewDb-postgres", "postgres"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := testContext(t)
			db := sqlx.NewDb(sqlDB, tc.bindName)
			if got := sqlx.BindType(db.DriverName()); got != sqlx.DOLLAR {
				t.Fatalf("sqlx.BindType(%q) = %d, want DOLLAR", db.DriverName(), got)
			}
			q, args, err := sqlx.In("select price from items where id in (?) order by id", []int64{1, 2, 3})
			if err != nil {
				t.Fatal(err)
			}
			var prices []pgcache.Decimal
			if err := db.SelectContext(ctx, &prices, db.Rebind(q), args...); err != nil {
				t.Fatal(err)
			}
			if len(prices) != 3 {
				t.Fatalf("In + Rebind read %d prices, want 3", len(prices))
			}
			rows, err := db.NamedQueryContext(ctx, "select id from items where price = :p order by id", map[string]any{"p": prices[0]})
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for rows.Next() {
				n++
			}
			rows.Close()
			if err := rows.Err(); err != nil || n == 0 {
				t.Fatalf("NamedQuery read %d rows (%v), want some", n, err)
			}
		})
	}
	t.Run("unbound", func(t *testing.T) {
		db := sqlx.NewDb(sqlDB, "pgcache-not-bound")
		var prices []string
		err := db.SelectContext(testContext(t), &prices, db.Rebind("select price from items where id = ?"), 1)
		if err == nil || !strings.Contains(err.Error(), "syntax error") {
			t.Fatalf("an unbound driver name: err = %v, want the server's syntax error at '?'", err)
		}
		t.Logf("without BindDriver or NewDb(db, \"postgres\"): %v", err)
	})
}

// preparedStatements counts the named prepared statements on the one
// server connection gdb uses (its pool is limited to one connection).
func preparedStatements(t *testing.T, gdb *gorm.DB) int {
	t.Helper()
	var n int
	if err := gdb.Raw("select count(*) from pg_prepared_statements").Scan(&n).Error; err != nil {
		t.Fatal(err)
	}
	return n
}

// TestGORMPreferSimpleProtocol: gorm.io/driver/postgres applies
// PreferSimpleProtocol only to the pgx connector it builds itself. With
// DriverName set it calls sql.Open(DriverName, DSN) and the flag is
// ignored: pgx's default exec mode, cache_statement, prepares named
// statements on the server, which PgBouncer in transaction pooling mode
// cannot keep. The checklist's spellings, the exec mode in the DSN or
// Conn: pgcache.OpenDB(cfg) with cfg.DefaultQueryExecMode set, prepare
// nothing.
func TestGORMPreferSimpleProtocol(t *testing.T) {
	dsn := hstoreDatabase(t)
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	for _, tc := range []struct {
		name     string
		dialect  postgres.Config
		prepared bool // whether named statements are prepared
	}{
		{"gorm's own pgx connector, PreferSimpleProtocol", postgres.Config{DSN: dsn, PreferSimpleProtocol: true}, false},
		{"DriverName, PreferSimpleProtocol (ignored)", postgres.Config{DriverName: pgcache.DriverName, DSN: dsn, PreferSimpleProtocol: true}, true},
		{"DriverName, exec mode simple_protocol in the DSN", postgres.Config{DriverName: pgcache.DriverName, DSN: pgtest.MustWithOptions(t, dsn, "default_query_exec_mode", "simple_protocol")}, false},
		{"DriverName, exec mode exec in the DSN", postgres.Config{DriverName: pgcache.DriverName, DSN: pgtest.MustWithOptions(t, dsn, "default_query_exec_mode", "exec")}, false},
		{"Conn: pgcache.OpenDB", postgres.Config{Conn: pgcache.OpenDB(*cfg)}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gdb, err := gorm.Open(postgres.New(tc.dialect), &gorm.Config{Logger: &sqlLog{}})
			if err != nil {
				t.Fatal(err)
			}
			sqlDB, err := gdb.DB()
			if err != nil {
				t.Fatal(err)
			}
			defer sqlDB.Close()
			sqlDB.SetMaxOpenConns(1)
			gdb = gdb.WithContext(testContext(t))
			var n int
			for i := range 3 {
				if err := gdb.Raw("select ?::int4 + 1", i).Scan(&n).Error; err != nil {
					t.Fatal(err)
				}
			}
			if got := preparedStatements(t, gdb) > 0; got != tc.prepared {
				t.Errorf("named prepared statements on the server: %v, want %v", got, tc.prepared)
			}
		})
	}
}

// gormBouncerScenario migrates Product, creates rows, and then reads them
// with bouncerClients goroutines at once, each several queries with
// parameters, through gdb. It records what the reads return, sorted: the
// goroutines' order is not the drivers'.
func gormBouncerScenario(t *testing.T, gdb *gorm.DB) record {
	t.Helper()
	sqlDB, err := gdb.DB()
	if err != nil {
		t.Fatal(err)
	}
	sqlDB.SetMaxOpenConns(bouncerClients)
	gdb = gdb.WithContext(testContext(t))
	if err := gdb.AutoMigrate(&Product{}); err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		p := Product{Name: fmt.Sprint(i), Price: mustDecimal(t, []string{"1.10", "2.20", "3.30"}[i%3]), Attrs: mustHstore(t, `"a"=>"b"`)}
		if err := gdb.Create(&p).Error; err != nil {
			t.Fatal(err)
		}
	}
	var (
		mu    sync.Mutex
		r     record
		errs  []string
		wg    sync.WaitGroup
		start = make(chan struct{})
	)
	for c := range bouncerClients {
		wg.Go(func() {
			<-start
			for q := range 10 {
				var ps []Product
				lo := []string{"1.5", "2.5", "0.5"}[(c+q)%3]
				err := gdb.Where("price > ? and id > ?", mustDecimal(t, lo), q).Order("id").Find(&ps).Error
				mu.Lock()
				if err != nil {
					errs = append(errs, fmt.Sprintf("client %d, query %d: %v", c, q, err))
				} else {
					r.Add("client %d query %d: %d rows, first %s", c, q, len(ps), ps[0])
				}
				mu.Unlock()
			}
		})
	}
	close(start)
	wg.Wait()
	if len(errs) > 0 {
		t.Fatalf("%d of %d concurrent GORM queries failed through PgBouncer; first: %s", len(errs), bouncerClients*10, errs[0])
	}
	sort.Strings(r)
	return r
}

// TestGORMBehindPgBouncer: both GORM checklist spellings work behind a real
// PgBouncer in transaction pooling mode with concurrent queries, through pgx
// stdlib and pgcache alike, with the same results: DriverName with the exec
// mode in the DSN (simple_protocol and exec), and Conn: pgcache.OpenDB (or
// stdlib.OpenDB for "pgx") of a config with the exec mode set.
func TestGORMBehindPgBouncer(t *testing.T) {
	bouncer, server := pgtest.PgBouncerDSN(t, bouncerServerConns)
	for _, mode := range []string{"simple_protocol", "exec"} {
		t.Run("DriverName/"+mode, func(t *testing.T) {
			compareDriversOn(t, server, func(t *testing.T, driverName, dsn string) record {
				gdb, err := gorm.Open(postgres.New(postgres.Config{
					DriverName: driverName,
					DSN:        bouncerDSN(t, bouncer, dsn, "default_query_exec_mode="+mode),
				}), &gorm.Config{Logger: &sqlLog{}})
				if err != nil {
					t.Fatal(err)
				}
				if sqlDB, err := gdb.DB(); err == nil {
					defer sqlDB.Close()
				}
				return gormBouncerScenario(t, gdb)
			})
		})
	}
	t.Run("Conn", func(t *testing.T) {
		compareDriversOn(t, server, func(t *testing.T, driverName, dsn string) record {
			cfg, err := pgx.ParseConfig(bouncerDSN(t, bouncer, dsn))
			if err != nil {
				t.Fatal(err)
			}
			cfg.DefaultQueryExecMode = pgx.QueryExecModeExec
			var sqlDB *sql.DB
			if driverName == pgcache.DriverName {
				sqlDB = pgcache.OpenDB(*cfg)
			} else {
				sqlDB = stdlib.OpenDB(*cfg)
			}
			defer sqlDB.Close()
			gdb, err := gorm.Open(postgres.New(postgres.Config{Conn: sqlDB}), &gorm.Config{Logger: &sqlLog{}})
			if err != nil {
				t.Fatal(err)
			}
			return gormBouncerScenario(t, gdb)
		})
	})
}
