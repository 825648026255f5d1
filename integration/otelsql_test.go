package integration

import (
	"context"
	"database/sql"
	sqldriver "database/sql/driver"
	"fmt"
	"slices"
	"testing"

	"github.com/XSAM/otelsql"
	"github.com/jackc/pgx/v5"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/pgcache/pgcache"
)

// tracing returns a tracer provider that records spans in memory.
func tracing(t testing.TB) (*sdktrace.TracerProvider, *tracetest.InMemoryExporter) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	return tp, exp
}

// pgxConnOf unwraps a driver connection that sql.Conn.Raw hands out, through
// any number of wrappers that offer Raw() driver.Conn (otelsql does), down to
// one that has Conn() *pgx.Conn (pgcache's and pgx stdlib's do).
func pgxConnOf(dc any) (*pgx.Conn, error) {
	for {
		switch c := dc.(type) {
		case interface{ Conn() *pgx.Conn }:
			return c.Conn(), nil
		case interface{ Raw() sqldriver.Conn }:
			dc = c.Raw()
		default:
			return nil, fmt.Errorf("%T is neither a pgx connection nor a wrapper of one", dc)
		}
	}
}

// otelScenario reads values, commits and rolls back transactions and
// reaches pgx through Raw, on db, which otelsql wraps.
func otelScenario(t *testing.T, db *sql.DB) record {
	var r record
	ctx := testContext(t)
	mustExec(t, db, seedSQL)
	for pass := range 2 {
		rows, err := db.QueryContext(ctx, "select id, price, discount, attrs, extra from items order by id")
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var (
				id    int64
				price pgcache.Decimal
				disc  sql.NullString
				attrs pgcache.Hstore
				extra pgcache.NullHstore
			)
			if err := rows.Scan(&id, &price, &disc, &attrs, &extra); err != nil {
				t.Fatal(err)
			}
			if pass == 1 {
				r.Add("%d %s %v %s %v", id, price, disc, attrs, extra)
			}
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
	}

	for _, commit := range []bool{true, false} {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.ExecContext(ctx, "update items set price = price + 1 where id <= 3"); err != nil {
			t.Fatal(err)
		}
		var sum string
		if err := tx.QueryRowContext(ctx, "select sum(price) from items").Scan(&sum); err != nil {
			t.Fatal(err)
		}
		if commit {
			err = tx.Commit()
		} else {
			err = tx.Rollback()
		}
		if err != nil {
			t.Fatal(err)
		}
		var after string
		if err := db.QueryRowContext(ctx, "select sum(price) from items").Scan(&after); err != nil {
			t.Fatal(err)
		}
		r.Add("tx commit=%v: inside %s, after %s", commit, sum, after)
	}

	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		if _, ok := dc.(interface{ Conn() *pgx.Conn }); ok {
			return fmt.Errorf("otelsql handed out %T, which has Conn() itself: the unwrapping is not exercised", dc)
		}
		pc, err := pgxConnOf(dc)
		if err != nil {
			return err
		}
		var n int64
		if err := pc.QueryRow(ctx, "select count(*) from items").Scan(&n); err != nil {
			return err
		}
		r.Add("raw: %d items", n)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// spanNames returns the distinct names of the recorded spans, sorted.
func spanNames(exp *tracetest.InMemoryExporter) []string {
	var names []string
	for _, s := range exp.GetSpans() {
		if !slices.Contains(names, s.Name) {
			names = append(names, s.Name)
		}
	}
	slices.Sort(names)
	return names
}

// TestOtelsql: otelsql wrapping "pgcache", by otelsql.Open and by
// otelsql.Register, returns what it returns wrapping "pgx", records the same
// spans, lets pgcache serve from its cache, and hands out a Raw connection
// that unwraps to the *pgx.Conn.
func TestOtelsql(t *testing.T) {
	for _, how := range []string{"Open", "Register"} {
		t.Run(how, func(t *testing.T) {
			spans := map[string][]string{}
			numeric, hstore := compareDrivers(t, func(t *testing.T, driverName, dsn string) record {
				tp, exp := tracing(t)
				var db *sql.DB
				var err error
				switch how {
				case "Open":
					db, err = otelsql.Open(driverName, dsn, otelsql.WithTracerProvider(tp))
				case "Register":
					var name string
					name, err = otelsql.Register(driverName, otelsql.WithTracerProvider(tp))
					if err == nil {
						db, err = sql.Open(name, dsn)
					}
				}
				if err != nil {
					t.Fatal(err)
				}
				defer db.Close()
				r := otelScenario(t, db)
				spans[driverName] = spanNames(exp)
				return r
			})
			requireHits(t, "numeric", numeric)
			requireHits(t, "hstore", hstore)
			std, pc := spans["pgx"], spans[pgcache.DriverName]
			if !slices.Equal(std, pc) || !slices.Contains(pc, "sql.conn.query") || !slices.Contains(pc, "sql.tx.commit") {
				t.Errorf("spans recorded\npgx:     %v\npgcache: %v", std, pc)
			}
		})
	}
}
