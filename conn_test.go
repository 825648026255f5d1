package pgcache_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/pgcache/pgcache"
	"github.com/pgcache/pgcache/internal/pgtest"
)

// Behaviour tests: each scenario runs once per driver and records what it
// observes (values and errors, see errShow); pgcache must record exactly what
// pgx stdlib records.

// compareDrivers runs scenario against pgx stdlib and pgcache, each with a
// *sql.DB of its own on dsn and a table name of its own, and compares the
// records.
func compareDrivers(t *testing.T, dsn, table string, scenario func(t *testing.T, db *sql.DB, table string) record) {
	t.Helper()
	compareDriverRuns(t, table, func(t *testing.T, driverName, table string) record {
		return scenario(t, openDB(t, driverName, dsn), table)
	})
}

// compareDriverRuns is compareDrivers for a run that opens (and may close)
// its *sql.DB itself: run gets the driver's name and the table name of its
// own, and returns its record.
func compareDriverRuns(t *testing.T, table string, run func(t *testing.T, driverName, table string) record) {
	t.Helper()
	var recs [2]record
	for i, name := range []string{stdDriver, pcDriver} {
		own := table + "_" + strings.ReplaceAll(name, "/", "_")
		recs[i] = run(t, name, own)
		for j, line := range recs[i] {
			recs[i][j] = strings.ReplaceAll(line, own, table)
		}
	}
	if testing.Verbose() {
		t.Logf("record:\n%s", strings.Join(recs[1], "\n"))
	}
	compareLines(t, "scenario record", recs[0], recs[1])
}

func TestTransactions(t *testing.T) {
	t.Parallel()
	compareDrivers(t, pgtest.DSN(t), "pgc_tx", txScenario)
}

func txScenario(t *testing.T, db *sql.DB, table string) record {
	ctx := context.Background()
	mustExec(t, db, fmt.Sprintf("drop table if exists %[1]s; create table %[1]s (id int primary key, n numeric(12,2))", table))
	var r record
	count := func() int {
		var n int
		if err := db.QueryRow("select count(*) from " + table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	// Commit.
	tx, err := db.BeginTx(ctx, nil)
	r.Add("begin: %s", errShow(err))
	_, err = tx.Exec("insert into "+table+" values (1, $1)", "1.50")
	r.Add("insert: %s", errShow(err))
	for pass := 0; pass < passes; pass++ {
		var s string
		var d pgcache.Decimal
		err = tx.QueryRow("select n, n from "+table+" where id = 1").Scan(&s, &d)
		r.Add("select in tx: %q %s %s", s, d, errShow(err))
	}
	r.Add("commit: %s", errShow(tx.Commit()))
	r.Add("count after commit: %d", count())
	r.Add("commit again: %s", errShow(tx.Commit()))
	r.Add("rollback after commit: %s", errShow(tx.Rollback()))

	// Rollback.
	tx, err = db.Begin()
	r.Add("begin: %s", errShow(err))
	_, err = tx.Exec("insert into " + table + " values (2, 2.50)")
	r.Add("insert: %s", errShow(err))
	r.Add("rollback: %s", errShow(tx.Rollback()))
	r.Add("count after rollback: %d", count())
	r.Add("rollback again: %s", errShow(tx.Rollback()))
	r.Add("commit after rollback: %s", errShow(tx.Commit()))

	// A failed statement aborts the transaction; Commit then rolls back.
	tx, err = db.Begin()
	r.Add("begin: %s", errShow(err))
	_, err = tx.Exec("insert into " + table + " values (1, 3.50)")
	r.Add("duplicate insert: %s", errShow(err))
	_, err = tx.Exec("select 1")
	r.Add("exec in failed tx: %s", errShow(err))
	rows, err := tx.Query("select n from " + table)
	r.Add("query in failed tx: %s", errShow(err))
	if err == nil {
		rows.Close()
	}
	var s string
	r.Add("query row in failed tx: %s", errShow(tx.QueryRow("select n from "+table).Scan(&s)))
	commitErr := tx.Commit()
	r.Add("commit of failed tx: %s", errShow(commitErr))
	if commitErr != pgx.ErrTxCommitRollback {
		t.Errorf("%s: Commit of a failed transaction returned %#v, want the pgx.ErrTxCommitRollback value itself", table, commitErr)
	}
	r.Add("rollback after failed commit: %s", errShow(tx.Rollback()))
	r.Add("count after failed commit: %d", count())

	// An error inside a query's rows.
	tx, _ = db.Begin()
	rows, err = tx.Query("select 1 / (i - 3) from generate_series(1, 5) i")
	r.Add("query: %s", errShow(err))
	if err == nil {
		for rows.Next() {
			var n int
			r.Add("row: %s %d", errShow(rows.Scan(&n)), n)
		}
		r.Add("rows.Err: %s", errShow(rows.Err()))
		r.Add("rows.Close: %s", errShow(rows.Close()))
	}
	r.Add("commit after division by zero: %s", errShow(tx.Commit()))

	// Isolation levels, including those PostgreSQL does not have.
	for _, level := range []sql.IsolationLevel{
		sql.LevelDefault, sql.LevelReadUncommitted, sql.LevelReadCommitted, sql.LevelWriteCommitted,
		sql.LevelRepeatableRead, sql.LevelSnapshot, sql.LevelSerializable, sql.LevelLinearizable,
	} {
		for _, readOnly := range []bool{false, true} {
			tx, err := db.BeginTx(ctx, &sql.TxOptions{Isolation: level, ReadOnly: readOnly})
			r.Add("begin %v read-only=%t: %s", level, readOnly, errShow(err))
			if err != nil {
				continue
			}
			var iso, ro string
			err = tx.QueryRow("select current_setting('transaction_isolation'), current_setting('transaction_read_only')").Scan(&iso, &ro)
			r.Add("  isolation %q read-only %q: %s", iso, ro, errShow(err))
			_, err = tx.Exec("insert into " + table + " values (3, 3)")
			r.Add("  insert: %s", errShow(err))
			r.Add("  rollback: %s", errShow(tx.Rollback()))
		}
	}
	return r
}

func TestPreparedStatements(t *testing.T) {
	t.Parallel()
	compareDrivers(t, pgtest.DSN(t), "pgc_prep", prepScenario)
}

func prepScenario(t *testing.T, db *sql.DB, table string) record {
	ctx := context.Background()
	mustExec(t, db, fmt.Sprintf("drop table if exists %[1]s; create table %[1]s (id int primary key, n numeric(12,2))", table))
	var r record
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()

	// Two statements with the same text share one server statement; closing
	// one leaves the other working.
	const q = "select $1::numeric(12,2) * 2 as n, $2::text as t"
	s1, err := conn.PrepareContext(ctx, q)
	r.Add("prepare 1: %s", errShow(err))
	s2, err := conn.PrepareContext(ctx, q)
	r.Add("prepare 2: %s", errShow(err))
	r.Add("close 1: %s", errShow(s1.Close()))
	for pass := 0; pass < passes; pass++ {
		for _, arg := range []any{"1.25", 7, 2.5, pgcache.Decimal{}, mustDecimal(t, "-3.005")} {
			rows, err := s2.QueryContext(ctx, arg, "x")
			if err != nil {
				r.Add("query %v: %s", arg, errShow(err))
				continue
			}
			for rows.Next() {
				var s, tt string
				var d pgcache.Decimal
				var f float64
				err := rows.Scan(&s, &tt)
				r.Add("row %v: %q %q %s", arg, s, tt, errShow(err))
				err = rows.Scan(&d, &tt)
				r.Add("  as Decimal: %s %s", d, errShow(err))
				err = rows.Scan(&f, &tt)
				r.Add("  as float64: %v %s", f, errShow(err))
			}
			r.Add("rows: %s %s", errShow(rows.Err()), errShow(rows.Close()))
		}
	}
	var s string
	r.Add("closed statement: %s", errShow(s1.QueryRowContext(ctx, "1", "x").Scan(&s, &s)))
	r.Add("wrong argument count: %s", errShow(s2.QueryRowContext(ctx, "1").Scan(&s, &s)))
	r.Add("bad argument: %s", errShow(s2.QueryRowContext(ctx, "one", "x").Scan(&s, &s)))
	r.Add("close 2: %s", errShow(s2.Close()))
	var n int
	err = conn.QueryRowContext(ctx, "select count(*) from pg_prepared_statements where name = $1", q).Scan(&n)
	r.Add("server statements left after closing both: %d %s", n, errShow(err))

	// A statement prepared on the pool, with Exec and Query.
	ins, err := db.PrepareContext(ctx, "insert into "+table+" values ($1, $2)")
	r.Add("prepare insert: %s", errShow(err))
	for i, v := range []any{"1.50", mustDecimal(t, "2.25"), pgcache.NullDecimal{}, 4, "not a number"} {
		res, err := ins.ExecContext(ctx, i, v)
		var affected int64
		if err == nil {
			affected, err = res.RowsAffected()
		}
		r.Add("insert %v: %d %s", v, affected, errShow(err))
	}
	r.Add("close insert: %s", errShow(ins.Close()))
	sel, err := db.PrepareContext(ctx, "select id, n from "+table+" where id < $1 order by id")
	r.Add("prepare select: %s", errShow(err))
	for pass := 0; pass < passes; pass++ {
		rows, err := sel.QueryContext(ctx, 10)
		r.Add("select: %s", errShow(err))
		for err == nil && rows.Next() {
			var id int
			var d pgcache.NullDecimal
			var s sql.NullString
			err := rows.Scan(&id, &d)
			r.Add("  %d %v %s %s", id, d.Valid, d.Decimal, errShow(err))
			err = rows.Scan(&id, &s)
			r.Add("  %d %v %s", id, s, errShow(err))
		}
		if err == nil {
			r.Add("  rows: %s %s", errShow(rows.Err()), errShow(rows.Close()))
		}
	}
	r.Add("close select: %s", errShow(sel.Close()))
	return r
}

func TestQueryRow(t *testing.T) {
	t.Parallel()
	compareDrivers(t, pgtest.DSN(t), "pgc_queryrow", func(t *testing.T, db *sql.DB, _ string) record {
		var r record
		for pass := 0; pass < passes; pass++ {
			var d pgcache.Decimal
			var s string
			var f float64
			err := db.QueryRow("select 12.50::numeric, 12.50::numeric, 12.50::numeric").Scan(&d, &s, &f)
			r.Add("numeric: %s %q %v %s", d, s, f, errShow(err))
		}
		var d pgcache.Decimal
		r.Add("no rows: %s", errShow(db.QueryRow("select 1.5::numeric where false").Scan(&d)))
		r.Add("syntax error: %s", errShow(db.QueryRow("selec 1").Scan(&d)))
		r.Add("null: %s", errShow(db.QueryRow("select NULL::numeric").Scan(&d)))
		r.Add("runtime error: %s", errShow(db.QueryRow("select 1/0::numeric").Scan(&d)))
		r.Add("bad argument: %s", errShow(db.QueryRow("select $1::numeric", "x").Scan(&d)))
		r.Add("too few columns: %s", errShow(db.QueryRow("select 1.5::numeric").Scan(&d, &d)))
		return r
	})
}

func TestEarlyCloseReusesConnection(t *testing.T) {
	t.Parallel()
	compareDrivers(t, pgtest.DSN(t), "pgc_early", func(t *testing.T, db *sql.DB, _ string) record {
		ctx := context.Background()
		var r record
		conn, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		var pid1, pid2 int
		if err := conn.QueryRowContext(ctx, "select pg_backend_pid()").Scan(&pid1); err != nil {
			t.Fatal(err)
		}
		for pass := 0; pass < passes; pass++ {
			rows, err := conn.QueryContext(ctx, "select (i % 3)::numeric + 0.5, 'x'::text from generate_series(1, 10000) i")
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 3 && rows.Next(); i++ {
				var s, x string
				err := rows.Scan(&s, &x)
				r.Add("row %d: %q %s", i, s, errShow(err))
			}
			r.Add("close mid-result: %s", errShow(rows.Close()))
			r.Add("next after close: %t %s", rows.Next(), errShow(rows.Err()))
			var d pgcache.Decimal
			err = conn.QueryRowContext(ctx, "select 42.5::numeric").Scan(&d)
			r.Add("next query: %s %s", d, errShow(err))
		}
		if err := conn.QueryRowContext(ctx, "select pg_backend_pid()").Scan(&pid2); err != nil {
			t.Fatal(err)
		}
		r.Add("same backend: %t", pid1 == pid2)
		return r
	})
}

func TestContextCancel(t *testing.T) {
	t.Parallel()
	compareDrivers(t, pgtest.DSN(t), "pgc_cancel", func(t *testing.T, db *sql.DB, _ string) record {
		var r record
		conn, err := db.Conn(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		rows, err := conn.QueryContext(ctx, "select pg_sleep(10)::text, 1.5::numeric")
		r.Add("query with timeout: %s", errShow(err))
		if err == nil {
			rows.Close()
		}
		var s string
		err = conn.QueryRowContext(context.Background(), "select 2.5::numeric").Scan(&s)
		r.Add("same sql.Conn afterwards: %q %s", s, errShow(err))
		r.Add("close sql.Conn: %s", errShow(conn.Close()))
		// The pool discards a broken connection and opens another.
		s = ""
		err = db.QueryRow("select 3.5::numeric").Scan(&s)
		r.Add("db afterwards: %q %s", s, errShow(err))

		ctx, cancel = context.WithCancel(context.Background())
		cancel()
		err = db.QueryRowContext(ctx, "select 4.5::numeric").Scan(&s)
		r.Add("query with a cancelled context: %s", errShow(err))
		return r
	})
}

// pgxConner is what code reaching pgx through sql.Conn.Raw asserts; it works
// with both drivers.
type pgxConner interface{ Conn() *pgx.Conn }

func TestRawConn(t *testing.T) {
	t.Parallel()
	dsn := pgtest.DSN(t)
	for _, name := range []string{stdDriver, pcDriver} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			db := openDB(t, name, dsn)
			conn, err := db.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			var first, second *pgx.Conn
			err = conn.Raw(func(dc any) error {
				first = dc.(pgxConner).Conn()
				_, err := first.Exec(ctx, "set application_name = 'pgcache_raw'")
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			if err := conn.Raw(func(dc any) error { second = dc.(pgxConner).Conn(); return nil }); err != nil {
				t.Fatal(err)
			}
			if first == nil || first != second {
				t.Errorf("Raw gave *pgx.Conn %p, then %p; want the same connection both times", first, second)
			}
			var app string
			if err := conn.QueryRowContext(ctx, "select current_setting('application_name')").Scan(&app); err != nil {
				t.Fatal(err)
			}
			if app != "pgcache_raw" {
				t.Errorf("application_name set through Raw's *pgx.Conn is %q on the sql.Conn; not the same connection", app)
			}
			if name == pcDriver {
				err := conn.Raw(func(dc any) error {
					if _, ok := dc.(*pgcache.Conn); !ok {
						return fmt.Errorf("Raw gave %T, want *pgcache.Conn", dc)
					}
					return nil
				})
				if err != nil {
					t.Error(err)
				}
			}
		})
	}
}

func TestOpenDBAfterConnect(t *testing.T) {
	t.Parallel()
	needHstore(t)
	cfg, err := pgx.ParseConfig(pgtest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	// pgcache options may travel in RuntimeParams; they must not reach the
	// server (which would reject them) nor be removed from the caller's map.
	cfg.RuntimeParams["pgcache_disable"] = "n"
	params := maps.Clone(cfg.RuntimeParams)
	var calls atomic.Int32
	hook := stdlib.OptionAfterConnect(func(ctx context.Context, c *pgx.Conn) error {
		calls.Add(1)
		_, err := c.Exec(ctx, "set application_name = 'pgcache_hook'")
		return err
	})
	db := pgcache.OpenDB(*cfg, hook)
	defer db.Close()
	if !maps.Equal(cfg.RuntimeParams, params) {
		t.Errorf("OpenDB changed the config's RuntimeParams to %v, want %v", cfg.RuntimeParams, params)
	}
	var app string
	var n, m pgcache.Decimal
	err = db.QueryRow("select current_setting('application_name'), 1.5::numeric as n, 2.5::numeric as m").Scan(&app, &n, &m)
	if err != nil {
		t.Fatal(err)
	}
	if app != "pgcache_hook" || calls.Load() == 0 {
		t.Errorf("application_name = %q after %d AfterConnect calls; want the hook to have run", app, calls.Load())
	}
	if n.String() != "1.5" || m.String() != "2.5" {
		t.Errorf("got %s, %s; want 1.5, 2.5", n, m)
	}

	bad := cfg.Copy()
	bad.RuntimeParams["pgcache_bogus"] = "1"
	db2 := pgcache.OpenDB(*bad)
	defer db2.Close()
	if err := db2.Ping(); err == nil || !strings.Contains(err.Error(), "pgcache_bogus") {
		t.Errorf("Ping with pgcache_bogus in RuntimeParams: %v; want an error naming the key", err)
	}
}

func TestRegisterConnConfig(t *testing.T) {
	t.Parallel()
	cfg, err := pgx.ParseConfig(pgtest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	cfg.RuntimeParams["application_name"] = "pgcache_registered"
	cfg.RuntimeParams["pgcache"] = "off"
	name := pgcache.RegisterConnConfig(cfg)
	defer pgcache.UnregisterConnConfig(name)
	db := openDB(t, pcDriver, name)
	for i := 0; i < 2; i++ { // the second use opens no new connection; both must work
		var app, s string
		if err := db.QueryRow("select current_setting('application_name'), 7.25::numeric").Scan(&app, &s); err != nil {
			t.Fatal(err)
		}
		if app != "pgcache_registered" || s != "7.25" {
			t.Errorf("got %q, %q; want pgcache_registered, 7.25", app, s)
		}
	}
	if cfg.RuntimeParams["pgcache"] != "off" {
		t.Errorf("the registered config's RuntimeParams were changed: %v", cfg.RuntimeParams)
	}
	if other := pgcache.RegisterConnConfig(cfg); other == name {
		t.Errorf("two registrations got the same name %q", name)
	} else {
		pgcache.UnregisterConnConfig(other)
	}
}

// catalogCounter counts pgcache's connect-time catalog queries.
type catalogCounter struct{ n atomic.Int32 }

func (c *catalogCounter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryStartData) context.Context {
	if strings.Contains(data.SQL, "pg_catalog.pg_extension") {
		c.n.Add(1)
	}
	return ctx
}

func (c *catalogCounter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func TestOpenDBFromPool(t *testing.T) {
	t.Parallel()
	needHstore(t)
	dsn := pgtest.DSN(t)
	ctx := context.Background()
	poolCfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	poolCfg.MaxConns = 2
	tracer := &catalogCounter{}
	poolCfg.ConnConfig.Tracer = tracer
	pool, err := pgxpool.NewWithConfig(ctx, poolCfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()

	db := pgcache.OpenDBFromPool(pool)
	std := stdlib.OpenDBFromPool(pool)
	defer std.Close()
	const query = "select (i % 4)::numeric(12,2) + 0.5, hstore('k', (i % 2)::text) from generate_series(1, 20) i"
	decimalText := targetOf("Decimal.String", func(p *pgcache.Decimal) string { s := p.String(); return goSyntax(&s) })
	hstoreText := targetOf("Hstore.String", func(p *pgcache.Hstore) string { s := p.String(); return goSyntax(&s) })
	want := readAll(t, std, query, nil, []target{tString, tString})
	checkReference(t, "stdlib", want)
	for use := 0; use < 20; use++ {
		compareLines(t, fmt.Sprintf("use %d", use), want, readAll(t, db, query, nil, []target{tString, tString}))
		compareLines(t, fmt.Sprintf("use %d as Decimal, Hstore", use), want, readAll(t, db, query, nil, []target{decimalText, hstoreText}))
	}
	// sql.DB keeps no idle connections over a pool, so every use above
	// "connected" again; the catalog lookup must run once per pgx connection.
	if n, conns := tracer.n.Load(), pool.Stat().TotalConns(); n < 1 || n > conns {
		t.Errorf("%d catalog lookups for %d pool connections and 20 uses; want at most one per connection", n, conns)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if err := pool.Ping(ctx); err != nil {
		t.Errorf("the pool does not work after closing the *sql.DB over it: %v", err)
	}
}

func TestDriverOpen(t *testing.T) {
	t.Parallel()
	dsn := pgtest.DSN(t)
	if _, ok := pgcache.GetDefaultDriver().(*pgcache.Driver); !ok {
		t.Errorf("GetDefaultDriver returned %T", pgcache.GetDefaultDriver())
	}
	db := openDB(t, pcDriver, dsn)
	if db.Driver() != pgcache.GetDefaultDriver() {
		t.Errorf("db.Driver() = %v, want the registered pgcache driver", db.Driver())
	}
	// The pre-context driver entry point still connects.
	c, err := pgcache.GetDefaultDriver().Open(dsn)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Error(err)
	}
	if _, err := pgcache.GetDefaultDriver().Open(withParams(t, dsn, "pgcache", "sometimes")); err == nil {
		t.Error("Open with pgcache=sometimes succeeded")
	}
	if err := db.Ping(); err != nil {
		t.Error(err)
	}
	// A DSN pgx cannot parse fails at first use, as it does with stdlib, and
	// with the same error.
	var pingErrs [2]string
	for i, name := range []string{stdDriver, pcDriver} {
		bad, err := sql.Open(name, "host=/nonexistent port=notaport")
		if err != nil {
			t.Fatalf("%s: sql.Open of an unparsable DSN failed early: %v", name, err)
		}
		pingErrs[i] = errShow(bad.Ping())
		bad.Close()
	}
	if pingErrs[0] == "<nil>" || pingErrs[0] != pingErrs[1] {
		t.Errorf("Ping with an unparsable DSN:\nstdlib:  %s\npgcache: %s", pingErrs[0], pingErrs[1])
	}
}

// TestCancelDuringIteration cancels the context while rows are being read:
// database/sql then closes the Rows from another goroutine, which must not
// race with Next (run with -race), and reports the cancellation as stdlib's
// Rows do.
func TestCancelDuringIteration(t *testing.T) {
	t.Parallel()
	compareDrivers(t, pgtest.DSN(t), "pgc_cancel_iter", func(t *testing.T, db *sql.DB, _ string) record {
		var r record
		for iter := 0; iter < 10; iter++ {
			ctx, cancel := context.WithCancel(context.Background())
			rows, err := db.QueryContext(ctx, "select (i % 7)::numeric + 0.5 from generate_series(1, 20000) i")
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for rows.Next() {
				var d pgcache.Decimal
				if err := rows.Scan(&d); err != nil {
					// database/sql may close the rows between Next and Scan.
					if !errors.Is(err, context.Canceled) && !strings.Contains(err.Error(), "sql: Rows are closed") {
						t.Errorf("Scan: %v", err)
					}
					break
				}
				if n++; n == 100 {
					cancel()
				}
			}
			if err := rows.Err(); err != nil && !errors.Is(err, context.Canceled) {
				t.Errorf("iteration %d: rows.Err() = %v, want nil or context.Canceled", iter, err)
			}
			rows.Close()
			cancel()
			if n < 100 {
				t.Errorf("iteration %d: read %d rows, want at least the 100 before the cancellation", iter, n)
			}
		}
		var s string
		err := db.QueryRow("select 6.5::numeric").Scan(&s)
		r.Add("afterwards: %q %s", s, errShow(err))
		return r
	})
}
