package integration

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/pgcache/pgcache"
	"github.com/pgcache/pgcache/internal/pgtest"
)

// readItems records the items table, read through db.
func readItems(t *testing.T, db *sql.DB) record {
	t.Helper()
	var r record
	rows, err := db.QueryContext(testContext(t), "select id, price, discount, attrs from items order by id")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			id    int64
			price pgcache.Decimal
			disc  pgcache.NullDecimal
			attrs sql.NullString
		)
		if err := rows.Scan(&id, &price, &disc, &attrs); err != nil {
			t.Fatal(err)
		}
		r.Add("%d %s %v %v", id, price, disc, attrs)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestRegisteredConfigs: a config registered with stdlib.RegisterConnConfig
// opens with "pgcache" as with "pgx", and so does one registered with
// pgcache.RegisterConnConfig, with the registered settings applied.
func TestRegisteredConfigs(t *testing.T) {
	numeric, _ := compareDrivers(t, func(t *testing.T, driverName, dsn string) record {
		cfg, err := pgx.ParseConfig(dsn)
		if err != nil {
			t.Fatal(err)
		}
		cfg.RuntimeParams["application_name"] = "registered-" + driverName
		reg, unreg := stdlib.RegisterConnConfig, stdlib.UnregisterConnConfig
		names := []string{reg(cfg)}
		defer unreg(names[0])
		if driverName == pgcache.DriverName {
			names = append(names, pgcache.RegisterConnConfig(cfg))
			defer pgcache.UnregisterConnConfig(names[1])
		}
		mustExec(t, openDB(t, driverName, dsn), seedSQL)
		var r record
		for _, name := range names {
			db := openDB(t, driverName, name)
			var app string
			if err := db.QueryRowContext(testContext(t), "select current_setting('application_name')").Scan(&app); err != nil {
				t.Fatal(err)
			}
			if app != cfg.RuntimeParams["application_name"] {
				t.Errorf("%s: application_name %q, want the registered one", name, app)
			}
			readItems(t, db)
			r = readItems(t, db)
		}
		return r
	})
	requireHits(t, "numeric", numeric)
}

// TestPool: a *sql.DB over a pgxpool (pgcache.OpenDBFromPool, and
// pgcache.NewPool from one DSN with a pgcache option) reads what stdlib's
// OpenDBFromPool reads.
func TestPool(t *testing.T) {
	dsn := hstoreDatabase(t)
	ctx := testContext(t)
	mustExec(t, openDB(t, "pgx", dsn), seedSQL)

	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	std := stdlib.OpenDBFromPool(pool)
	defer std.Close()
	want := readItems(t, std)

	pc := pgcache.OpenDBFromPool(pool)
	defer pc.Close()
	num, _ := traffic(func() {
		for range 2 {
			if got := readItems(t, pc); !slices.Equal(got, want) {
				t.Fatalf("OpenDBFromPool\npgx:     %v\npgcache: %v", want, got)
			}
		}
	})
	requireHits(t, "OpenDBFromPool", num)

	pool2, db, err := pgcache.NewPool(ctx, pgtest.MustWithOptions(t, dsn, "pool_max_conns", "2", "pgcache_disable", "items.discount"))
	if err != nil {
		t.Fatal(err)
	}
	defer pool2.Close()
	defer db.Close()
	if got := readItems(t, db); !slices.Equal(got, want) {
		t.Fatalf("NewPool\npgx:     %v\npgcache: %v", want, got)
	}
}

// TestRawCopyFrom: pgx's CopyFrom through sql.Conn.Raw, with the interface
// assertion that works for both drivers, loads what both read back alike.
func TestRawCopyFrom(t *testing.T) {
	compareDrivers(t, func(t *testing.T, driverName, dsn string) record {
		db := openDB(t, driverName, dsn)
		ctx := testContext(t)
		// attrs is text here: pgx's CopyFrom encodes in binary and its type map
		// knows no hstore unless the application registers it.
		mustExec(t, db, "create table items (id bigint, price numeric(10, 2), discount numeric(4, 2), attrs text)")
		conn, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		var n int64
		err = conn.Raw(func(dc any) error {
			pc := dc.(interface{ Conn() *pgx.Conn }).Conn()
			src := make([][]any, 50)
			for i := range src {
				price := mustDecimal(t, []string{"1.10", "22.00", "0.05"}[i%3])
				var disc any
				if i%2 == 0 {
					disc = "0.25"
				}
				src[i] = []any{int64(i), price, disc, fmt.Sprint("row ", i)}
			}
			var err error
			n, err = pc.CopyFrom(ctx, pgx.Identifier{"items"}, []string{"id", "price", "discount", "attrs"},
				pgx.CopyFromRows(src))
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return append(record{fmt.Sprintf("copied %d rows", n)}, readItems(t, db)...)
	})
}

// TestListenNotify: LISTEN on a connection reached through Raw, NOTIFY from
// another, WaitForNotification on the first: pgx's notifications work the
// same under both drivers.
func TestListenNotify(t *testing.T) {
	compareDrivers(t, func(t *testing.T, driverName, dsn string) record {
		db := openDB(t, driverName, dsn)
		ctx := testContext(t)
		listener, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer listener.Close()
		if _, err := listener.ExecContext(ctx, "listen pgcache_events"); err != nil {
			t.Fatal(err)
		}
		var r record
		for i, payload := range []string{"first", "12.50"} {
			if _, err := db.ExecContext(ctx, "select pg_notify('pgcache_events', $1)", payload); err != nil {
				t.Fatal(err)
			}
			err := listener.Raw(func(dc any) error {
				pc := dc.(interface{ Conn() *pgx.Conn }).Conn()
				wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
				defer cancel()
				n, err := pc.WaitForNotification(wctx)
				if err != nil {
					return err
				}
				r.Add("notification %d: %s %s", i, n.Channel, n.Payload)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		return r
	})
}
