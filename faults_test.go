package pgcache_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgcache/pgcache"
	"github.com/pgcache/pgcache/internal/pgtest"
)

// Faults: each test runs a scenario once with pgx stdlib and once with
// pgcache, each on a *sql.DB of its own, records what the application sees
// (values, and errors as errShow describes them: type, text, SQLSTATE and the
// sentinels they match) and requires pgcache's record to equal stdlib's. So
// an error is pgx's own exactly when stdlib gives the same. On top of that,
// for each driver:
//
//   - the *sql.DB recovers: the scenario ends with a read checked value by
//     value (recovered);
//   - db.Stats().InUse is back to 0 when the scenario has closed what it
//     opened;
//   - no goroutine outlives the *sql.DB (counted before Open and after Close,
//     with a settle loop);
//   - the failed result admits nothing to the cache: its values are all
//     distinct, so a correct reader never admits any of them, and an admission
//     would mean a value was admitted from a result that failed.
//
// These tests assert Stats deltas and one restarts the server, so none runs
// in parallel (see TestMain).

// faultStream streams (numeric, hstore) rows with distinct values, row i
// holding i + 0.5 and k=>i, for as long as it is read: the set-returning
// function in the select list streams, where one in FROM would be
// materialized first.
const faultStream = `select i::numeric + 0.5, hstore('k', i::text) from (select generate_series(1, 1000000000) i) s`

// streamWant is what row i of faultStream and its variants holds.
func streamWant(i int) (num, hs string) {
	return fmt.Sprintf("%d.5", i), fmt.Sprintf(`"k"=>"%d"`, i)
}

// streamResult is what readStream saw.
type streamResult struct {
	rows                      int
	queryErr, rowsErr, closed error
}

// addTo records res's errors, the query's and, described by desc (errDesc, or
// lostDesc after a lost connection), rows.Err's and rows.Close's.
func (res streamResult) addTo(r *record, desc func(error) string) {
	r.Add("query: %s", errDesc(res.queryErr))
	r.Add("rows.Err: %s", desc(res.rowsErr))
	r.Add("rows.Close: %s", desc(res.closed))
}

// readStream runs query (a faultStream variant) on q and reads it to the end,
// the first error or until at (called after each row with the number of rows
// read so far; it may be nil) returns true, checking every value, and closes
// the rows. A wrong
// value fails t: that is never acceptable, fault or not.
func readStream(ctx context.Context, t *testing.T, q querier, query string, at func(n int) (stop bool)) streamResult {
	t.Helper()
	var res streamResult
	rows, err := q.QueryContext(ctx, query)
	if err != nil {
		res.queryErr = err
		return res
	}
	for rows.Next() {
		var num, hs string
		if err := rows.Scan(&num, &hs); err != nil {
			// database/sql may close the rows between Next and Scan when
			// a context ends.
			if !strings.Contains(err.Error(), "sql: Rows are closed") && !errors.Is(err, context.Canceled) {
				t.Errorf("row %d: Scan: %v", res.rows+1, err)
			}
			break
		}
		res.rows++
		if wantNum, wantHs := streamWant(res.rows); num != wantNum || hs != wantHs {
			t.Fatalf("row %d: got %q, %q; want %q, %q", res.rows, num, hs, wantNum, wantHs)
		}
		if at != nil && at(res.rows) {
			break
		}
		if res.rows > 50_000_000 {
			t.Fatal("the fault never came")
		}
	}
	res.rowsErr = rows.Err()
	res.closed = rows.Close()
	return res
}

// addRecovery records whether conn still reads after a fault, how closing it
// goes, and whether db reads afterwards.
func addRecovery(ctx context.Context, t *testing.T, r *record, conn *sql.Conn, db *sql.DB) {
	t.Helper()
	r.Add("same sql.Conn: %s", recovered(ctx, t, conn))
	r.Add("close sql.Conn: %s", errDesc(conn.Close()))
	r.Add("db afterwards: %s", recovered(ctx, t, db))
}

// recovered reads a small repeating result twice, so that with pgcache it is
// missed, admitted and hit, checks every value and describes the outcome.
func recovered(ctx context.Context, t *testing.T, q querier) string {
	t.Helper()
	const query = `select (i % 4)::numeric + 0.75, hstore('r', (i % 3)::text) from generate_series(1, 20) i`
	for pass := 0; pass < 2; pass++ {
		rows, err := q.QueryContext(ctx, query)
		if err != nil {
			return "query: " + errShow(err)
		}
		i := 0
		for rows.Next() {
			i++
			var num, hs string
			if err := rows.Scan(&num, &hs); err != nil {
				rows.Close()
				return "scan: " + errShow(err)
			}
			if want := fmt.Sprintf("%d.75", i%4); num != want {
				t.Errorf("recovery read, row %d: %q, want %q", i, num, want)
			}
			if want := fmt.Sprintf(`"r"=>"%d"`, i%3); hs != want {
				t.Errorf("recovery read, row %d: %q, want %q", i, hs, want)
			}
		}
		if err := rows.Err(); err != nil {
			return "rows: " + errShow(err)
		}
		rows.Close()
		if i != 20 {
			return fmt.Sprintf("%d rows, want 20", i)
		}
	}
	return "ok"
}

// pidPattern and addrPattern hide process IDs and socket addresses (a TCP
// connection's local port), which differ between the two runs.
var (
	pidPattern  = regexp.MustCompile(`(pid|PID|process) \d+`)
	addrPattern = regexp.MustCompile(`(tcp|tcp4|tcp6|unix) \S*->\S*:`)
)

// errDesc is errShow without process IDs and socket addresses.
func errDesc(err error) string {
	return addrPattern.ReplaceAllString(pidPattern.ReplaceAllString(errShow(err), "$1 N"), "$1 ADDR:")
}

// lostDesc describes the error of a result whose server process was
// terminated while it streamed. pgx reports it in one of two ways, depending
// on timing, and pgx stdlib shows both: the server's FATAL 57P01
// (admin_shutdown) when the backend could still send it, or io.ErrUnexpectedEOF
// when the backend, blocked writing rows to a full socket, died without
// sending it. Either is accepted, as long as it is pgx's error unwrapped;
// anything else is described in full and so fails the comparison.
func lostDesc(err error) string {
	if pgErr, ok := errors.AsType[*pgconn.PgError](err); ok && pgErr == err && pgErr.Code == "57P01" {
		return "connection lost (pgx's FATAL 57P01 or io.ErrUnexpectedEOF)"
	}
	if err == io.ErrUnexpectedEOF || errors.Is(err, syscall.ECONNRESET) { // the latter over TCP
		return "connection lost (pgx's FATAL 57P01 or io.ErrUnexpectedEOF)"
	}
	return errDesc(err)
}

// faultEnv is what a fault scenario gets besides its *sql.DB: an admin
// connection of its own to terminate backends from, and a table name of its
// own.
type faultEnv struct {
	admin *sql.DB
	table string
}

// terminate kills the backend pid from the admin connection. With wait it
// waits (up to 10 s) until the process is gone, which suits an idle backend;
// a backend streaming rows to a client that is not reading may sit blocked on
// its socket until the client reads, so then do not wait.
func (e faultEnv) terminate(ctx context.Context, t *testing.T, pid int, wait bool) {
	t.Helper()
	query := "select pg_terminate_backend($1)"
	if wait {
		query = "select pg_terminate_backend($1, 10000)"
	}
	var ok bool
	if err := e.admin.QueryRowContext(ctx, query, pid).Scan(&ok); err != nil || !ok {
		t.Fatalf("%s with %d: %t, %v", query, pid, ok, err)
	}
}

// backendPID returns the backend process of c.
func backendPID(ctx context.Context, t *testing.T, c querier) int {
	t.Helper()
	rows, err := c.QueryContext(ctx, "select pg_backend_pid()")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var pid int
	if !rows.Next() {
		t.Fatal("select pg_backend_pid(): no row")
	}
	if err := rows.Scan(&pid); err != nil {
		t.Fatal(err)
	}
	return pid
}

// runFault runs scenario with each driver and checks what the comment at the
// top of this file says; the records are compared by compareDriverRuns.
// scenario returns its record and the traffic of the result that failed
// (measured with traffic).
func runFault(t *testing.T, table string, scenario func(ctx context.Context, t *testing.T, db *sql.DB, env faultEnv) (record, counts, counts)) {
	t.Helper()
	dsn := pgtest.DSN(t)
	needHstore(t)
	admin := openDB(t, stdDriver, dsn)
	if err := admin.Ping(); err != nil {
		t.Fatal(err)
	}
	compareDriverRuns(t, table, func(t *testing.T, name, table string) record {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		goroutines := runtime.NumGoroutine()
		db, err := sql.Open(name, dsn)
		if err != nil {
			t.Fatal(err)
		}
		// Earlier reads of the same texts would make admissions legitimate.
		pgcache.ResetCache()
		rec, num, hs := scenario(ctx, t, db, faultEnv{admin: admin, table: table})
		// Both drivers failing to recover would compare equal: require it.
		if len(rec) == 0 || rec[len(rec)-1] != "db afterwards: ok" {
			t.Errorf("%s: the scenario did not end with a good read: %q", name, rec)
		}
		if num.Admissions != 0 || hs.Admissions != 0 {
			t.Errorf("%s: the failed result admitted values: numeric %v, hstore %v", name, num, hs)
		}
		if inUse := db.Stats().InUse; inUse != 0 {
			t.Errorf("%s: db.Stats().InUse = %d after the scenario, want 0", name, inUse)
		}
		db.Close()
		cancel()
		checkGoroutines(t, name, goroutines)
		return rec
	})
}

// checkGoroutines waits up to 10 s for the number of goroutines to fall back
// to before, and fails t with every goroutine's stack if it does not.
func checkGoroutines(t *testing.T, name string, before int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		n := runtime.NumGoroutine()
		if n <= before {
			return
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			buf = buf[:runtime.Stack(buf, true)]
			t.Errorf("%s: %d goroutines after closing the *sql.DB, %d before:\n%s", name, n, before, buf)
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestFaultBackendKilledMidResult: the server process of a connection is
// terminated (pg_terminate_backend from another connection) while a result
// streams.
func TestFaultBackendKilledMidResult(t *testing.T) {
	runFault(t, "pgc_fault_kill", func(ctx context.Context, t *testing.T, db *sql.DB, env faultEnv) (record, counts, counts) {
		var r record
		conn, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		pid := backendPID(ctx, t, conn)
		var res streamResult
		num, hs := traffic(func() {
			res = readStream(ctx, t, conn, faultStream, func(n int) bool {
				if n == 100 {
					env.terminate(ctx, t, pid, false)
				}
				return false
			})
		})
		res.addTo(&r, lostDesc)
		r.Add("read past the kill: %t", res.rows >= 100)
		var one int
		r.Add("same sql.Conn: %s", errDesc(conn.QueryRowContext(ctx, "select 1").Scan(&one)))
		r.Add("close sql.Conn: %s", errDesc(conn.Close()))
		r.Add("db afterwards: %s", recovered(ctx, t, db))
		return r, num, hs
	})
}

// TestFaultBackendKilledIdle: the server process of an idle pooled
// connection is terminated; the next query must not fail for it.
func TestFaultBackendKilledIdle(t *testing.T) {
	runFault(t, "pgc_fault_idle", func(ctx context.Context, t *testing.T, db *sql.DB, env faultEnv) (record, counts, counts) {
		var r record
		db.SetMaxIdleConns(1)
		pid := backendPID(ctx, t, db) // and the connection goes back to the pool
		env.terminate(ctx, t, pid, true)
		var res streamResult
		num, hs := traffic(func() {
			res = readStream(ctx, t, db, faultStream+" limit 300", nil)
		})
		r.Add("first query after the kill: %d rows, %s %s %s", res.rows, errDesc(res.queryErr), errDesc(res.rowsErr), errDesc(res.closed))
		r.Add("new backend: %t", backendPID(ctx, t, db) != pid)
		r.Add("db afterwards: %s", recovered(ctx, t, db))
		return r, num, hs
	})
}

// TestFaultRestartIdle: the whole cluster restarts while connections sit
// idle in the pool.
func TestFaultRestartIdle(t *testing.T) {
	cluster := pgtest.OwnCluster(t)
	runFault(t, "pgc_fault_restart_idle", func(ctx context.Context, t *testing.T, db *sql.DB, env faultEnv) (record, counts, counts) {
		var r record
		db.SetMaxIdleConns(2)
		if got := recovered(ctx, t, db); got != "ok" {
			t.Fatalf("before the restart: %s", got)
		}
		if err := cluster.Restart(ctx); err != nil {
			t.Fatal(err)
		}
		var res streamResult
		num, hs := traffic(func() {
			res = readStream(ctx, t, db, faultStream+" limit 300", nil)
		})
		r.Add("first query after the restart: %d rows, %s %s %s", res.rows, errDesc(res.queryErr), errDesc(res.rowsErr), errDesc(res.closed))
		r.Add("db afterwards: %s", recovered(ctx, t, db))
		return r, num, hs
	})
}

// TestFaultRestartMidQuery: the whole cluster restarts while a result
// streams.
func TestFaultRestartMidQuery(t *testing.T) {
	cluster := pgtest.OwnCluster(t)
	runFault(t, "pgc_fault_restart_query", func(ctx context.Context, t *testing.T, db *sql.DB, env faultEnv) (record, counts, counts) {
		var r record
		var wg sync.WaitGroup
		var restartErr error
		var res streamResult
		num, hs := traffic(func() {
			res = readStream(ctx, t, db, faultStream, func(n int) bool {
				if n == 100 {
					wg.Go(func() { restartErr = cluster.Restart(ctx) })
				}
				return false
			})
		})
		wg.Wait()
		if restartErr != nil {
			t.Fatal(restartErr)
		}
		res.addTo(&r, lostDesc)
		r.Add("db afterwards: %s", recovered(ctx, t, db))
		return r, num, hs
	})
}

// TestFaultStatementTimeout: statement_timeout fires while a result streams;
// the rows before it arrive, then the server's error, and the connection
// stays usable.
func TestFaultStatementTimeout(t *testing.T) {
	runFault(t, "pgc_fault_timeout", func(ctx context.Context, t *testing.T, db *sql.DB, env faultEnv) (record, counts, counts) {
		var r record
		conn, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := conn.ExecContext(ctx, "set statement_timeout = '1s'"); err != nil {
			t.Fatal(err)
		}
		// Row 3000 sleeps past the timeout. The 2999 rows before it take
		// milliseconds; on a very slow machine the timeout could fire
		// before all of them are sent, so their number is not recorded,
		// only that none comes after the sleeping one.
		const query = `select i::numeric + 0.5, hstore('k', i::text || (select '' from pg_sleep(case when i = 3000 then 30 else 0 end)))
			from generate_series(1, 5000) i`
		var res streamResult
		num, hs := traffic(func() { res = readStream(ctx, t, conn, query, nil) })
		if res.rows != 2999 {
			t.Logf("%d rows arrived before the timeout, not 2999: a slow machine?", res.rows)
		}
		r.Add("rows before the timeout, none after row 2999: %t", res.rows <= 2999)
		res.addTo(&r, errDesc)
		addRecovery(ctx, t, &r, conn, db)
		return r, num, hs
	})
}

// TestFaultErrorAtRowN: the server raises an error (division by zero) at row
// 500 of a result.
func TestFaultErrorAtRowN(t *testing.T) {
	runFault(t, "pgc_fault_rown", func(ctx context.Context, t *testing.T, db *sql.DB, env faultEnv) (record, counts, counts) {
		var r record
		conn, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		const query = `select i::numeric + 0.5 + 0 * (1 / (i - 500)), hstore('k', i::text) from generate_series(1, 1000) i`
		var res streamResult
		num, hs := traffic(func() { res = readStream(ctx, t, conn, query, nil) })
		r.Add("rows before the error: %d", res.rows)
		res.addTo(&r, errDesc)
		addRecovery(ctx, t, &r, conn, db)
		return r, num, hs
	})
}

// TestFaultContextCancelled: the context is cancelled mid-scan, before the
// first row arrives, and before the query starts.
func TestFaultContextCancelled(t *testing.T) {
	runFault(t, "pgc_fault_ctx", func(ctx context.Context, t *testing.T, db *sql.DB, env faultEnv) (record, counts, counts) {
		var r record
		var num, hs counts
		for iter := 0; iter < 5; iter++ {
			pgcache.ResetCache()
			qctx, cancel := context.WithCancel(ctx)
			var res streamResult
			n, h := traffic(func() {
				res = readStream(qctx, t, db, faultStream, func(n int) bool {
					if n == 100 {
						cancel()
					}
					return false
				})
			})
			cancel()
			num.Admissions += n.Admissions
			hs.Admissions += h.Admissions
			// The rows read after the cancellation depend on timing, and so
			// does Close, with pgx stdlib as with pgcache: nil when
			// database/sql had already closed the rows on seeing the context
			// end, the context's error when Close got there first. rows.Err
			// is always the context's error.
			closed := errDesc(res.closed)
			if res.closed == nil || res.closed == context.Canceled {
				closed = "nil or context.Canceled"
			}
			r.Add("mid-scan %d: read at least 100 rows: %t; rows.Err: %s; rows.Close: %s",
				iter, res.rows >= 100, errDesc(res.rowsErr), closed)
		}

		// An idle connection ready, so that the deadline cannot expire
		// while a new one connects (another error).
		if err := db.PingContext(ctx); err != nil {
			t.Fatal(err)
		}
		qctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
		res := readStream(qctx, t, db, `select i::numeric + 0.5, hstore('k', i::text) from generate_series(1, 10) i, pg_sleep(10)`, nil)
		cancel()
		r.Add("before the first row: %d rows; query: %s; rows.Err: %s", res.rows, errDesc(res.queryErr), errDesc(res.rowsErr))

		qctx, cancel = context.WithCancel(ctx)
		cancel()
		res = readStream(qctx, t, db, faultStream, nil)
		r.Add("already cancelled: %d rows; query: %s", res.rows, errDesc(res.queryErr))
		r.Add("db afterwards: %s", recovered(ctx, t, db))
		return r, num, hs
	})
}

// TestFaultRowsClosedEarlyConcurrently: many goroutines read results over a
// few connections and close them early; one result is closed by many
// goroutines at once while another reads it. Run with -race.
func TestFaultRowsClosedEarlyConcurrently(t *testing.T) {
	runFault(t, "pgc_fault_close", func(ctx context.Context, t *testing.T, db *sql.DB, env faultEnv) (record, counts, counts) {
		var r record
		db.SetMaxOpenConns(4)
		// The workers read overlapping values and close their results
		// early, which is no failure: admissions are legitimate here, and the
		// check is that every value read is right.
		func() {
			var wg sync.WaitGroup
			for w := 0; w < 16; w++ {
				wg.Go(func() {
					for iter := 0; iter < 5; iter++ {
						stop := 1 + (w*7+iter*13)%200
						res := readStream(ctx, t, db, faultStream+" limit 5000", func(n int) bool { return n == stop })
						if res.queryErr != nil || res.rowsErr != nil || res.closed != nil || res.rows != stop {
							t.Errorf("worker %d: closing after %d rows: %d rows, %v, %v, %v", w, stop, res.rows, res.queryErr, res.rowsErr, res.closed)
						}
					}
				})
			}
			wg.Wait()
		}()

		func() {
			rows, err := db.QueryContext(ctx, faultStream+" limit 100000")
			if err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			start := make(chan struct{})
			wg.Go(func() {
				i := 0
				for rows.Next() {
					var num, hs string
					if err := rows.Scan(&num, &hs); err != nil {
						return // closed under us
					}
					i++
					if wantNum, wantHs := streamWant(i); num != wantNum || hs != wantHs {
						t.Errorf("row %d: %q, %q; want %q, %q", i, num, hs, wantNum, wantHs)
						return
					}
					if i == 50 {
						close(start)
					}
				}
			})
			<-start
			for range 8 {
				wg.Go(func() { rows.Close() })
			}
			wg.Wait()
			r.Add("shared rows closed: %s", errDesc(rows.Close()))
		}()
		r.Add("db afterwards: %s", recovered(ctx, t, db))
		return r, counts{}, counts{}
	})
}

// TestFaultFailedCommit: COMMIT fails with a serialization failure (write
// skew between two serializable transactions) and with a deferred unique
// constraint; the transaction is over, the error is the server's, and the
// connections go on.
func TestFaultFailedCommit(t *testing.T) {
	runFault(t, "pgc_fault_commit", func(ctx context.Context, t *testing.T, db *sql.DB, env faultEnv) (record, counts, counts) {
		var r record
		tbl := env.table
		if _, err := db.ExecContext(ctx, fmt.Sprintf(`drop table if exists %[1]s, %[1]s_d;
			create table %[1]s (k int, v numeric(12,2));
			insert into %[1]s values (1, 1.50), (2, 2.50);
			create table %[1]s_d (id int primary key deferrable initially deferred)`, tbl)); err != nil {
			t.Fatal(err)
		}
		serializable := &sql.TxOptions{Isolation: sql.LevelSerializable}
		tx1, err := db.BeginTx(ctx, serializable)
		if err != nil {
			t.Fatal(err)
		}
		tx2, err := db.BeginTx(ctx, serializable)
		if err != nil {
			t.Fatal(err)
		}
		var s1, s2 string
		var num, hs counts
		n, h := traffic(func() {
			r.Add("tx1 read: %s", errDesc(tx1.QueryRowContext(ctx, fmt.Sprintf("select sum(v) from %s where k = 1", tbl)).Scan(&s1)))
			r.Add("tx2 read: %s", errDesc(tx2.QueryRowContext(ctx, fmt.Sprintf("select sum(v) from %s where k = 2", tbl)).Scan(&s2)))
		})
		num.Admissions += n.Admissions
		hs.Admissions += h.Admissions
		r.Add("sums %s %s", s1, s2)
		_, err = tx1.ExecContext(ctx, fmt.Sprintf("insert into %s values (2, %s)", tbl, s1))
		r.Add("tx1 insert: %s", errDesc(err))
		_, err = tx2.ExecContext(ctx, fmt.Sprintf("insert into %s values (1, %s)", tbl, s2))
		r.Add("tx2 insert: %s", errDesc(err))
		r.Add("tx1 commit: %s", errDesc(tx1.Commit()))
		r.Add("tx2 commit: %s", errDesc(tx2.Commit()))
		r.Add("tx2 rollback after the failed commit: %s", errDesc(tx2.Rollback()))

		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = tx.ExecContext(ctx, fmt.Sprintf("insert into %[1]s_d values (1), (1)", tbl))
		r.Add("duplicate insert, deferred: %s", errDesc(err))
		n, h = traffic(func() {
			res := readStream(ctx, t, tx, faultStream+" limit 50", nil)
			r.Add("read in the transaction: %d rows %s", res.rows, errDesc(res.rowsErr))
		})
		num.Admissions += n.Admissions
		hs.Admissions += h.Admissions
		r.Add("commit with the deferred constraint: %s", errDesc(tx.Commit()))
		r.Add("rollback after: %s", errDesc(tx.Rollback()))
		var count int
		r.Add("rows kept: %s %d", errDesc(db.QueryRowContext(ctx, fmt.Sprintf("select count(*) from %s_d", tbl)).Scan(&count)), count)
		r.Add("db afterwards: %s", recovered(ctx, t, db))
		if _, err := db.ExecContext(ctx, fmt.Sprintf("drop table %[1]s, %[1]s_d", tbl)); err != nil {
			t.Error(err)
		}
		return r, num, hs
	})
}

// TestFaultPreparedStatementAfterConnectionDied: a prepared statement is
// used after the only connection it was prepared on was terminated.
func TestFaultPreparedStatementAfterConnectionDied(t *testing.T) {
	runFault(t, "pgc_fault_stmt", func(ctx context.Context, t *testing.T, db *sql.DB, env faultEnv) (record, counts, counts) {
		var r record
		db.SetMaxOpenConns(1)
		stmt, err := db.PrepareContext(ctx, "select $1::int + 0.5, hstore('k', $1::text)")
		if err != nil {
			t.Fatal(err)
		}
		read := func(i int) string {
			var num, hs string
			if err := stmt.QueryRowContext(ctx, i).Scan(&num, &hs); err != nil {
				return errDesc(err)
			}
			if wantNum, wantHs := streamWant(i); num != wantNum || hs != wantHs {
				t.Errorf("statement with %d: %q, %q; want %q, %q", i, num, hs, wantNum, wantHs)
			}
			return "ok"
		}
		r.Add("before: %s", read(1))
		pid := backendPID(ctx, t, db)
		env.terminate(ctx, t, pid, true)
		var num, hs counts
		num, hs = traffic(func() {
			r.Add("first use after the kill: %s", read(2))
			r.Add("second use: %s", read(3))
		})
		r.Add("new backend: %t", backendPID(ctx, t, db) != pid)
		r.Add("close statement: %s", errDesc(stmt.Close()))
		r.Add("db afterwards: %s", recovered(ctx, t, db))
		return r, num, hs
	})
}
