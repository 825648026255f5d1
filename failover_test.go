package pgcache_test

import (
	"bytes"
	"context"
	sqldriver "database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime/pprof"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgcache/pgcache/internal/pgtest"
)

// Failover under load: goroutines write and read through one *sql.DB whose
// multi-host DSN names a primary and its standby, while the primary is
// stopped and the standby promoted.

// failoverError classifies an error an application sees while its primary
// fails over, and says whether it can retry the operation: the operation
// did not happen, or (for a write) may have happened only if the error came
// after the statement was sent — which is why every write here carries a
// key of its own and a retry uses a new one.
//
//   - driver.ErrBadConn: database/sql retries these itself, twice on
//     pooled connections and once on a new one; the app sees one only when
//     all failed.
//   - *pgconn.ConnectError: no host of the DSN accepted a connection of
//     the target_session_attrs asked for (the old primary is gone and the
//     standby not yet promoted): retry after a pause.
//   - SQLSTATE 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03
//     cannot_connect_now: the server is shutting down or starting; the
//     connection is closed, and the next one goes to another host.
//   - io.EOF, io.ErrUnexpectedEOF, a net.Error, ECONNRESET or EPIPE, or
//     pgconn's "conn closed": the connection died under the statement.
//   - SQLSTATE 25006 read_only_sql_transaction: a write reached a server in
//     recovery, which target_session_attrs=read-write (used here) prevents;
//     with any or prefer-standby an app may see it, and retries on a new
//     connection.
//
// Anything else (a timeout, a syntax error, a wrong value) is not a
// failover's doing and is not retryable.
func failoverError(err error) (kind string, retryable bool) {
	if connErr, ok := errors.AsType[*pgconn.ConnectError](err); ok {
		// A ConnectError wraps every host's error; the last is the one
		// nearest the end of the DSN's list.
		kind := "*pgconn.ConnectError"
		if pgErr, ok := errors.AsType[*pgconn.PgError](connErr); ok {
			kind += " (SQLSTATE " + pgErr.Code + ")"
		}
		return kind, true
	}
	if pgErr, ok := errors.AsType[*pgconn.PgError](err); ok {
		switch pgErr.Code {
		case "57P01", "57P02", "57P03", "25006":
			return "SQLSTATE " + pgErr.Code, true
		}
		return "SQLSTATE " + pgErr.Code, false
	}
	var netErr net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled):
		return "timeout", false
	case errors.Is(err, sqldriver.ErrBadConn):
		return "driver.ErrBadConn", true
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return "EOF", true
	case errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE):
		return "connection reset", true
	case errors.As(err, &netErr):
		return "net.Error", true
	case strings.Contains(err.Error(), "conn closed"):
		return "conn closed", true
	}
	return fmt.Sprintf("%T", err), false
}

// failoverRow is what worker w writes as row id, in the text PostgreSQL
// prints it in.
func failoverRow(w int, id int64) (n, h, s string) {
	return fmt.Sprintf("%d.%02d", id%13, id%7), fmt.Sprintf(`"g"=>"%d", "m"=>"%d"`, w, id%5), fmt.Sprintf("t%d", id%9)
}

// failoverDeadline bounds the whole load: a run takes a few seconds; past
// this, a goroutine hangs, and the test dumps every goroutine and fails.
const failoverDeadline = 90 * time.Second

// TestFailoverUnderLoad: 8 goroutines write rows (insert … returning,
// read back through pgcache) and read their latest rows through one
// *sql.DB with a multi-host DSN (target_session_attrs=read-write) while the
// primary is stopped (pg_ctl stop -m fast) and the standby promoted
// (pg_promote). Every error must be a retryable connection error, every
// acknowledged write must be on the promoted server afterwards, every value
// read must be the one written, and after the failover every row must read
// through pgcache as through pgx stdlib. Not parallel: the failover's
// timing should not depend on other tests' load.
func TestFailoverUnderLoad(t *testing.T) {
	primary, standby := pgtest.StartPair(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	mustExec(t, openDB(t, stdDriver, primary.DSN()),
		"create extension hstore; create table fo (id int8 primary key, g int4, n numeric, h hstore, t text)")
	if err := standby.CatchUp(ctx); err != nil {
		t.Fatal(err)
	}
	dsn := multiHost([]string{primary.Dir(), standby.Dir()}, "target_session_attrs", "read-write", "connect_timeout", "5")
	db := openDB(t, pcDriver, dsn)
	const workers = 8
	db.SetMaxOpenConns(workers)
	db.SetMaxIdleConns(workers)

	const (
		warmWrites  = 10 // per worker before the failover starts
		afterWrites = 20 // per worker after the standby is promoted
		opTimeout   = 20 * time.Second
	)
	var (
		phase     atomic.Int32 // 0 before, 1 failing over, 2 promoted
		warm      sync.WaitGroup
		mu        sync.Mutex
		acked     = map[int64]int{} // acknowledged writes: id -> worker
		unsure    = map[int64]int{} // writes that failed: they may have committed
		errKinds  = map[string]int{}
		fatal     []string // errors no app can retry, wrong values
		firstOK   []time.Time
		failStart time.Time
		writes    [3]int // acknowledged writes by phase
	)
	firstOK = make([]time.Time, workers)
	warm.Add(workers)
	note := func(w int, what string, err error) {
		kind, retry := failoverError(err)
		mu.Lock()
		defer mu.Unlock()
		errKinds[what+": "+kind]++
		if !retry {
			fatal = append(fatal, fmt.Sprintf("worker %d, %s: %s (not retryable)", w, what, errShow(err)))
		}
	}
	worker := func(w int) {
		warmDone, after := false, 0
		var mine []int64
		for i := int64(0); ; i++ {
			if ctx.Err() != nil {
				return
			}
			ph := phase.Load()
			id := int64(w)*1_000_000 + i
			n, h, s := failoverRow(w, id)
			opCtx, opCancel := context.WithTimeout(ctx, opTimeout)
			var gn, gh, gs string
			err := db.QueryRowContext(opCtx, "insert into fo values ($1, $2, $3::numeric, $4::hstore, $5) returning n, h, t",
				id, w, n, h, s).Scan(&gn, &gh, &gs)
			opCancel()
			if err != nil {
				mu.Lock()
				unsure[id] = w
				mu.Unlock()
				note(w, "write", err)
				time.Sleep(10 * time.Millisecond)
				continue
			}
			mu.Lock()
			acked[id] = w
			writes[ph]++
			if ph > 0 && firstOK[w].IsZero() && phase.Load() == 2 {
				firstOK[w] = time.Now()
			}
			if gn != n || gh != h || gs != s {
				fatal = append(fatal, fmt.Sprintf("worker %d: insert of row %d returned %q %q %q, want %q %q %q", w, id, gn, gh, gs, n, h, s))
			}
			mu.Unlock()
			mine = append(mine, id)
			if !warmDone && len(mine) >= warmWrites {
				warmDone = true
				warm.Done()
			}
			if ph == 2 {
				if after++; after >= afterWrites {
					return
				}
			}

			// Read back this worker's latest acknowledged rows.
			since := mine[max(0, len(mine)-10)]
			opCtx, opCancel = context.WithTimeout(ctx, opTimeout)
			rows, err := db.QueryContext(opCtx, "select id, n, h, t from fo where g = $1 and id >= $2 order by id", w, since)
			if err != nil {
				opCancel()
				note(w, "read", err)
				time.Sleep(10 * time.Millisecond)
				continue
			}
			var got []int64
			for rows.Next() {
				var rid int64
				if err := rows.Scan(&rid, &gn, &gh, &gs); err != nil {
					note(w, "scan", err)
					break
				}
				got = append(got, rid)
				if n, h, s := failoverRow(w, rid); gn != n || gh != h || gs != s {
					mu.Lock()
					fatal = append(fatal, fmt.Sprintf("worker %d: row %d reads %q %q %q, want %q %q %q", w, rid, gn, gh, gs, n, h, s))
					mu.Unlock()
				}
			}
			if err := rows.Err(); err != nil {
				note(w, "read", err)
			}
			rows.Close()
			opCancel()
			if rows.Err() == nil {
				for _, id := range mine[max(0, len(mine)-10):] {
					if !slices.Contains(got, id) {
						mu.Lock()
						fatal = append(fatal, fmt.Sprintf("worker %d: acknowledged row %d missing from a read (phase %d)", w, id, phase.Load()))
						mu.Unlock()
					}
				}
			}
		}
	}

	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() { worker(w) })
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	watchdog := time.NewTimer(failoverDeadline)
	defer watchdog.Stop()
	dump := func(why string) {
		var b bytes.Buffer
		pprof.Lookup("goroutine").WriteTo(&b, 2)
		cancel()
		t.Fatalf("%s after %v; every goroutine:\n%s", why, failoverDeadline, b.String())
	}

	warmed := make(chan struct{})
	go func() { warm.Wait(); close(warmed) }()
	select {
	case <-warmed:
	case <-done:
		t.Fatalf("the workers stopped before the failover: %q", fatal)
	case <-watchdog.C:
		dump("the workers did not warm up")
	}
	mu.Lock()
	failStart = time.Now()
	mu.Unlock()
	phase.Store(1)
	if err := primary.Shutdown(ctx, "fast"); err != nil {
		t.Fatal(err)
	}
	stopped := time.Since(failStart)
	if err := standby.Promote(ctx); err != nil {
		t.Fatal(err)
	}
	promoted := time.Since(failStart)
	phase.Store(2)
	select {
	case <-done:
	case <-watchdog.C:
		dump("the workers still run")
	}

	mu.Lock()
	defer mu.Unlock()
	for _, f := range fatal {
		t.Error(f)
	}
	var recovered time.Duration
	for w, at := range firstOK {
		if at.IsZero() {
			t.Errorf("worker %d wrote nothing after the promotion", w)
			continue
		}
		recovered = max(recovered, at.Sub(failStart))
	}

	// Every acknowledged write is on the promoted server, and nothing else
	// but writes that failed (and may have committed before their reply
	// was lost).
	var ids []int64
	check := openDB(t, stdDriver, standby.DSN())
	rows, err := check.QueryContext(ctx, "select id from fo")
	if err != nil {
		t.Fatal(err)
	}
	present := map[int64]bool{}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		present[id] = true
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	for id := range acked {
		if !present[id] {
			ids = append(ids, id)
		}
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	if len(ids) > 0 {
		t.Errorf("%d acknowledged writes are lost after the failover: %v", len(ids), ids)
	}
	committedUnacked := 0
	for id := range present {
		if _, ok := acked[id]; ok {
			continue
		}
		if _, ok := unsure[id]; ok {
			committedUnacked++
			continue
		}
		t.Errorf("row %d is on the promoted server, but no worker wrote it", id)
	}

	// After the failover every row reads through pgcache, on the DB that
	// lived through it and on a fresh one with pgcache_types=all, as
	// through pgx stdlib.
	std := openDB(t, stdDriver, dsn)
	all := openDB(t, pcDriver, withParams(t, dsn, "pgcache_types", "all"))
	const q = "select id, g, n, h, t from fo order by id"
	for tname, targets := range map[string][]target{
		"any":    repeatTarget(tAny, 5),
		"string": repeatTarget(tString, 5),
		"own":    {tInt64, tInt64, tDecimal, tHstore, tNullString},
	} {
		want := readAll(t, std, q, nil, targets)
		checkReference(t, tname, want)
		compareLines(t, "after the failover, "+tname, want, readAll(t, db, q, nil, targets))
		compareLines(t, "after the failover, pgcache_types=all, "+tname, want, readAll(t, all, q, nil, targets))
	}

	var kinds []string
	for k, n := range errKinds {
		kinds = append(kinds, fmt.Sprintf("%s ×%d", k, n))
	}
	sort.Strings(kinds)
	t.Logf("%d workers: %d writes acknowledged (%d before the failover, %d while the primary stopped, %d after the promotion), "+
		"%d failed writes committed all the same, all read back; primary stopped after %v, standby promoted after %v, "+
		"every worker writing again after %v; errors: %s",
		workers, len(acked), writes[0], writes[1], writes[2], committedUnacked,
		stopped.Round(time.Millisecond), promoted.Round(time.Millisecond), recovered.Round(time.Millisecond),
		strings.Join(kinds, ", "))
}
