package pgcache_test

import (
	"context"
	"database/sql"
	sqldriver "database/sql/driver"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgcache/pgcache"
	"github.com/pgcache/pgcache/internal/pgtest"
)

// The hang hunt: TestSoakFaults runs every pgcache_types kind, numeric and
// hstore into their destinations, in all five exec modes, from many
// goroutines sharing one *sql.DB, while another goroutine alters and
// recreates a table they read, changes the session settings of pooled
// connections, empties the cache and terminates backends, and the readers
// cancel their own contexts mid-result. Every read of an expression query is
// compared, row for row and error for error, with pgx stdlib reading the same
// query under the same session settings on a connection of its own.
//
// Every query has a deadline (soakQueryTimeout); a watchdog fails the test
// with every goroutine's stack when a worker makes no progress for
// soakStallAfter, so a hang shows where everything waits.
//
// It runs for 30 s (5 s with -short), half through a *sql.DB of its own
// connections and half through one over a pgxpool; PGCACHE_SOAK=10m (any
// time.Duration) runs it longer.

const (
	soakQueryTimeout = 30 * time.Second
	soakStallAfter   = 3 * soakQueryTimeout
	soakApp          = "pgcache_soak" // the pgcache pool's application_name, whose backends are terminated
)

// soakKind is a column kind: an expression of i, NULL on every eleventh row
// and repeating so that the tables miss, admit and hit, and the destinations
// it is scanned into.
type soakKind struct {
	name    string
	expr    string
	targets []target
}

// soakKinds are every pgcache_types kind (driver.Kinds), numeric, hstore,
// and interval and bytea, whose texts IntervalStyle and bytea_output change.
func soakKinds() []soakKind {
	targets := make(map[string][]target)
	for _, c := range typeCases {
		targets[c.name] = c.targets
	}
	return []soakKind{
		{"text", "(array['N', 'TRUCK', '', 'DELIVER IN PERSON', repeat('x', 70), 'héllo ☃'])[1 + i % 6]", targets["text"]},
		{"varchar", "('v' || (i % 13))::varchar(10)", targets["varchar"]},
		{"bpchar", "('c' || (i % 9))::char(4)", targets["bpchar"]},
		{"name", "('n' || (i % 5))::name", targets["name"]},
		{"enum", "(array['sad', 'ok', 'happy'])[1 + i % 3]::pgcache_mood", []target{tString, tAny, tNullString, tRawBytes}},
		{"uuid", "md5((i % 17)::text)::uuid", targets["uuid"]},
		{"int2", "(i % 300 - 150)::int2", targets["int2"]},
		{"int4", "(i % 1000 * 7919)::int4", targets["int4"]},
		{"int8", "(i % 500)::int8 * 1000000007", targets["int8"]},
		{"float8", "(i % 100)::float8 / 7", targets["float8"]},
		{"date", "'2000-01-01'::date + (i % 400)", targets["date"]},
		{"timestamp", "'2000-01-01'::timestamp + (i % 300) * interval '37 minutes 1.5 seconds'", targets["timestamp"]},
		{"timestamptz", "'2000-01-01 00:00+00'::timestamptz + (i % 300) * interval '1 hour 13 minutes'", targets["timestamptz"]},
		{"numeric", "((i % 200)::numeric / 8)::numeric(10,3)", numericTargets},
		{"hstore", "hstore('k', (i % 40)::text) || hstore('n', NULL)", hstoreTargets},
		{"interval", "(i % 50) * interval '1 day 2 hours 3.5 seconds'", []target{tString, tAny, tBytes}},
		{"bytea", "decode(md5((i % 9)::text), 'hex')", []target{tBytes, tString, tAny, tRawBytes}},
	}
}

// soakSettings are the session settings the disturber gives pooled
// connections, one profile at a time: each changes what some kind's text
// looks like (TimeZone: timestamptz; DateStyle: date and timestamps as text;
// IntervalStyle; extra_float_digits: float8 as text; bytea_output).
var soakSettings = [][5]string{
	{"UTC", "ISO, MDY", "postgres", "1", "hex"},
	{"America/New_York", "SQL, DMY", "iso_8601", "0", "escape"},
	{"Asia/Kolkata", "German, DMY", "sql_standard", "3", "hex"},
	{"Europe/Berlin", "Postgres, YMD", "postgres_verbose", "-2", "escape"},
}

// soakSettingNames are the settings' names, in soakSettings' order.
var soakSettingNames = [5]string{"TimeZone", "DateStyle", "IntervalStyle", "extra_float_digits", "bytea_output"}

// soakSessionCol is the column that says which settings the row was made under.
const soakSessionCol = `current_setting('TimeZone') || '|' || current_setting('DateStyle') || '|' ||
	current_setting('IntervalStyle') || '|' || current_setting('extra_float_digits') || '|' || current_setting('bytea_output')`

// soakKindsQuery selects n rows of two kinds' values, with the row number and the
// session's settings.
func soakKindsQuery(a, b soakKind) string {
	return fmt.Sprintf(`select i, %s,
	case when i %% 11 = 0 then NULL else %s end,
	case when i %% 7 = 3 then NULL else %s end
from generate_series(1, $1::int) i`, soakSessionCol, a.expr, b.expr)
}

var soakModes = []pgx.QueryExecMode{
	pgx.QueryExecModeCacheStatement, pgx.QueryExecModeCacheDescribe, pgx.QueryExecModeDescribeExec,
	pgx.QueryExecModeExec, pgx.QueryExecModeSimpleProtocol,
}

// soakDDLTypes are the types the disturber gives hang_ddl's column v, whose
// value id*7 reads as the same string under each.
var soakDDLTypes = []string{"int4", "int8", "numeric", "text", "float8", "varchar(20)"}

// soakDuration is how long TestSoakFaults runs.
func soakDuration(t *testing.T) time.Duration {
	if s := os.Getenv("PGCACHE_SOAK"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil {
			t.Fatalf("PGCACHE_SOAK=%q: %v", s, err)
		}
		return d
	}
	if testing.Short() {
		return 5 * time.Second
	}
	return 30 * time.Second
}

// soakStats counts what the soak did.
type soakStats struct {
	queries, clean, faulted, rows, compared, uncompared atomic.Int64
	resets, settings, ddl, killed, cancels              atomic.Int64
}

func TestSoakFaults(t *testing.T) {
	needHstore(t)
	dsn := pgtest.DSN(t)
	d := soakDuration(t)
	admin := openDB(t, stdDriver, withParams(t, dsn, "lock_timeout", "2s"))
	admin.SetMaxOpenConns(2)
	mustExec(t, admin, "do $$ begin create type pgcache_mood as enum ('sad', 'ok', 'happy'); exception when duplicate_object then null; end $$")
	mustExec(t, admin, "drop table if exists hang_ddl")
	mustExec(t, admin, "create table hang_ddl as select id, id * 7 as v from generate_series(1, 50) id")

	// Half the time through a *sql.DB of its own connections, half through
	// one that borrows them from a pgxpool (NewPool), whose 6 connections
	// the 16 workers wait for in the pool's Acquire.
	t.Run("sql.DB", func(t *testing.T) {
		pc := openDB(t, pcDriver, withParams(t, dsn, "pgcache_types", "all", "application_name", soakApp))
		pc.SetMaxOpenConns(6)
		soakRun(t, pc, admin, dsn, d/2)
	})
	t.Run("pgxpool", func(t *testing.T) {
		pool, pc, err := pgcache.NewPool(context.Background(),
			withParams(t, dsn, "pgcache_types", "all", "application_name", soakApp, "pool_max_conns", "6"))
		if err != nil {
			t.Fatal(err)
		}
		defer pool.Close()
		defer pc.Close()
		soakRun(t, pc, admin, dsn, d-d/2)
	})
}

// soakRun runs the soak for d on pgcache's pc, admin doing the DDL and the
// terminations.
func soakRun(t *testing.T, pc, admin *sql.DB, dsn string, d time.Duration) {
	const workers = 16
	std := openDB(t, stdDriver, dsn)
	std.SetMaxOpenConns(workers)

	kinds := soakKinds()
	var st soakStats
	stop := time.Now().Add(d)
	progress := make([]atomic.Int64, workers)
	stalled := make(chan struct{})
	var stallOnce sync.Once
	done := make(chan struct{})

	// The watchdog: a worker that made no progress for soakStallAfter means
	// something waits that no deadline ends.
	go func() {
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			for w := range progress {
				if since := time.Since(time.Unix(0, progress[w].Load())); progress[w].Load() != math.MaxInt64 && since > soakStallAfter {
					stallOnce.Do(func() {
						var b strings.Builder
						pprof.Lookup("goroutine").WriteTo(&b, 2)
						fmt.Fprintf(os.Stderr, "TestSoakFaults: worker %d made no progress for %s; every goroutine:\n%s\n", w, since, b.String())
						close(stalled)
					})
				}
			}
		}
	}()

	var wg sync.WaitGroup
	errs := make(chan error, workers+1)
	for w := range workers {
		progress[w].Store(time.Now().UnixNano())
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 28))
			ctx := context.Background()
			conn, err := std.Conn(ctx)
			if err != nil {
				errs <- err
				return
			}
			defer conn.Close()
			// A worker that stops (at its first error) is no stall.
			defer progress[w].Store(math.MaxInt64)
			ref := &soakRef{conn: conn}
			for iter := 0; iter == 0 || time.Now().Before(stop); iter++ {
				progress[w].Store(time.Now().UnixNano())
				if err := soakIteration(pc, ref, kinds, rng, &st, func() { progress[w].Store(time.Now().UnixNano()) }); err != nil {
					err = fmt.Errorf("worker %d, iteration %d: %w", w, iter, err)
					fmt.Fprintln(os.Stderr, "TestSoakFaults:", err) // now, in case a stall follows
					errs <- err
					return
				}
			}
		})
	}
	var disturbing sync.WaitGroup
	disturbing.Go(func() {
		rng := rand.New(rand.NewPCG(99, 28))
		for {
			select {
			case <-done:
				return
			case <-time.After(time.Duration(2+rng.IntN(20)) * time.Millisecond):
			}
			if err := soakDisturb(pc, admin, rng, &st); err != nil {
				errs <- fmt.Errorf("disturber: %w", err)
				return
			}
		}
	})
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	select {
	case <-finished:
	case <-stalled:
		for len(errs) > 0 {
			t.Error(<-errs)
		}
		t.Fatalf("a worker stalled for %s; every goroutine's stack is on stderr", soakStallAfter)
	}
	close(done)
	disturbing.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	// database/sql counts as in use the connections its own goroutine is
	// still opening (DB.connectionOpener, woken by requests whose
	// contexts ended while they waited, or by connections the disturber's
	// terminations dropped), which a busy machine may still be dialing
	// when the last worker returns: wait for those, but not for one that
	// is never given back.
	for wait := time.Now(); pc.Stats().InUse != 0; time.Sleep(10 * time.Millisecond) {
		if time.Since(wait) > 10*time.Second {
			t.Errorf("%d pgcache connections still in use 10s after the soak", pc.Stats().InUse)
			break
		}
	}
	// The pool still reads right. Its idle connections may include some
	// whose backends the disturber terminated after their last query: each
	// fails its next query (57P01, or driver.ErrBadConn over a pgxpool),
	// with pgx stdlib too, and is dropped.
	var n int
	for attempt := 0; ; attempt++ {
		err := pc.QueryRow("select count(*) from generate_series(1, 10)").Scan(&n)
		if err != nil && attempt < 2*workers && soakFault(err.Error()) {
			continue
		}
		if err != nil || n != 10 {
			t.Errorf("after the soak: %d, %v", n, err)
		}
		break
	}
	t.Logf("%s, %d workers: %d queries (%d clean, %d ended by a fault), %d rows, %d reads compared with pgx stdlib (%d not: no settings known); "+
		"%d cache resets, %d settings changes, %d DDL statements, %d backends terminated, %d cancelled reads",
		d, workers, st.queries.Load(), st.clean.Load(), st.faulted.Load(), st.rows.Load(), st.compared.Load(), st.uncompared.Load(),
		st.resets.Load(), st.settings.Load(), st.ddl.Load(), st.killed.Load(), st.cancels.Load())
	if st.compared.Load() == 0 || st.faulted.Load() == 0 {
		t.Errorf("the soak compared %d reads and saw %d faults: it exercised nothing", st.compared.Load(), st.faulted.Load())
	}
}

// soakRef is a worker's pgx stdlib connection and the settings it was last
// given.
type soakRef struct {
	conn     *sql.Conn
	settings string
}

// read reads query through pgx stdlib under the settings session (as
// soakSessionCol spells them).
func (r *soakRef) read(query string, prepared bool, args []any, targets []target) ([]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), soakQueryTimeout)
	defer cancel()
	if r.settings == "" {
		return nil, nil
	}
	parts := strings.Split(r.settings, "|")
	if len(parts) != len(soakSettingNames) {
		return nil, fmt.Errorf("settings %q", r.settings)
	}
	var q strings.Builder
	q.WriteString("select ")
	cargs := make([]any, 0, 2*len(parts))
	for i, p := range parts {
		if i > 0 {
			q.WriteString(", ")
		}
		fmt.Fprintf(&q, "set_config($%d, $%d, false)", 2*i+1, 2*i+2)
		cargs = append(cargs, soakSettingNames[i], p)
	}
	if _, err := r.conn.ExecContext(ctx, q.String(), cargs...); err != nil {
		return nil, fmt.Errorf("setting %q: %w", r.settings, err)
	}
	lines, err := soakLines(ctx, r.conn, query, prepared, args, targets, -1, nil)
	if err != nil {
		return nil, err
	}
	return lines, nil
}

// soakLines reads query into targets as readAll does, each error a line.
// After cancelAt rows (when cancelAt >= 0) it calls cancel and reads on.
// onRow is called after each row.
func soakLines(ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
	PrepareContext(context.Context, string) (*sql.Stmt, error)
}, query string, prepared bool, args []any, targets []target, cancelAt int, cancel func()) ([]string, error) {
	var rows *sql.Rows
	var err error
	if prepared {
		stmt, perr := q.PrepareContext(ctx, query)
		if perr != nil {
			return []string{"prepare error: " + errShow(perr)}, nil
		}
		defer stmt.Close()
		rows, err = stmt.QueryContext(ctx, args...)
	} else {
		rows, err = q.QueryContext(ctx, query, args...)
	}
	if err != nil {
		return []string{"query error: " + errShow(err)}, nil
	}
	defer rows.Close()
	var lines []string
	n := 0
	for rows.Next() {
		if n == cancelAt {
			cancel()
		}
		n++
		dest := newDests(targets)
		if err := rows.Scan(dest...); err != nil {
			// Scanned again, into destinations that take anything, for the
			// settings the row was made under (scanned into no
			// *sql.RawBytes, a failed Scan holds no lock).
			line := "scan error: " + errShow(err)
			var i int64
			var settings string
			if err := rows.Scan(&i, &settings, new(any), new(any)); err == nil {
				line += " @ " + strconv.Quote(settings)
			} else {
				line += " @! " + errShow(err)
			}
			lines = append(lines, line)
			continue
		}
		lines = append(lines, showRow(targets, dest))
	}
	// (Err only once Next returned false: on Go 1.26 Err and Columns
	// after a Scan into *sql.RawBytes can deadlock with the goroutine
	// database/sql closes a cancelled result with; see ARCHITECTURE.md.)
	return endLines(lines, rows), nil
}

// soakIteration is one read of a worker: mostly two kinds' expression query
// compared with pgx stdlib, sometimes the table the disturber alters.
func soakIteration(pc *sql.DB, ref *soakRef, kinds []soakKind, rng *rand.Rand, st *soakStats, onRow func()) error {
	st.queries.Add(1)
	if rng.IntN(10) == 0 {
		return soakReadDDL(pc, rng, st)
	}
	a, b := kinds[rng.IntN(len(kinds))], kinds[rng.IntN(len(kinds))]
	targets := []target{tInt64, tString, a.targets[rng.IntN(len(a.targets))], b.targets[rng.IntN(len(b.targets))]}
	query := soakKindsQuery(a, b)
	n := []int{1, 2, 20, 300, 3000}[rng.IntN(5)]
	args := []any{soakModes[rng.IntN(len(soakModes))], n}
	prepared := rng.IntN(8) == 0
	if prepared {
		args = args[1:] // a prepared statement has its own
		// A text of its own: pgx runs a query whose text its connection
		// has prepared as that statement, whatever exec mode it is given
		// (binary dates then, where exec mode reads text). Another
		// worker's statement, open on a pooled connection between its
		// read and its Close, would otherwise change an unprepared read's
		// formats on that connection and not on the reference's.
		query = "/* prepared */ " + query
	}

	ctx, cancel := context.WithTimeout(context.Background(), soakQueryTimeout)
	defer cancel()
	cancelAt := -1
	switch rng.IntN(12) {
	case 0:
		cancelAt = rng.IntN(n + 1)
		st.cancels.Add(1)
	case 1:
		var c2 context.CancelFunc
		ctx, c2 = context.WithTimeout(ctx, time.Duration(rng.IntN(20000))*time.Microsecond)
		defer c2()
		st.cancels.Add(1)
	}
	var got []string
	var settings string // the session's settings, when read before the query
	if rng.IntN(3) == 0 {
		// On a connection of its own, whose settings are read first: a
		// result whose first row fails has no settings column to show.
		conn, err := pc.Conn(ctx)
		if err == nil {
			err = conn.QueryRowContext(ctx, "select "+soakSessionCol).Scan(&settings)
			if err == nil {
				got, _ = soakLines(ctx, conn, query, prepared, args, targets, cancelAt, cancel)
			}
			conn.Close()
		}
		if err != nil {
			if !soakFault(errShow(err)) {
				return fmt.Errorf("session settings: %v", errShow(err))
			}
			st.faulted.Add(1)
			return nil
		}
	} else {
		got, _ = soakLines(ctx, pc, query, prepared, args, targets, cancelAt, cancel)
	}
	faulted := false
	var rowsGot []string
	for _, l := range got {
		if isErrLine(l) && soakFault(l) {
			faulted = true
			break
		}
		rowsGot = append(rowsGot, l) // a value, or an error pgx stdlib must give too
	}
	st.rows.Add(int64(len(rowsGot)))
	onRow()
	if faulted {
		st.faulted.Add(1)
	} else {
		st.clean.Add(1)
	}
	if len(rowsGot) == 0 {
		return nil
	}
	// The settings the rows were made under, as the second column shows them.
	if s, ok := soakRowSettings(rowsGot[0]); ok {
		if settings != "" && s != settings {
			return fmt.Errorf("%s %v: rows made under %q on a connection set to %q", query, args, s, settings)
		}
		settings = s
	}
	if settings == "" {
		st.uncompared.Add(1)
		return nil // the first row failed on a connection of the pool's choosing
	}
	ref.settings = settings
	want, err := ref.read(query, prepared, args, targets)
	if err != nil {
		return fmt.Errorf("pgx stdlib's reference read of %s: %w", query, err)
	}
	for _, l := range want {
		if isErrLine(l) && soakFault(l) {
			return fmt.Errorf("pgx stdlib's reference read of %s %v failed: %s", query, args, l)
		}
	}
	if !faulted && len(want) != len(rowsGot) {
		return fmt.Errorf("%s %v: pgcache read %d rows, pgx stdlib %d", query, args, len(rowsGot), len(want))
	}
	for i, l := range rowsGot {
		if i >= len(want) || l != want[i] {
			w := "<none>"
			if i < len(want) {
				w = want[i]
			}
			return fmt.Errorf("%s %v into %s, %s, row %d:\nstdlib:  %.400s\npgcache: %.400s", query, args, targets[2].name, targets[3].name, i, w, l)
		}
	}
	st.compared.Add(1)
	return nil
}

// soakRowSettings returns the settings column of a row's line.
func soakRowSettings(line string) (string, bool) {
	if strings.HasPrefix(line, "scan error") {
		_, q, ok := strings.Cut(line, " @ ")
		if !ok {
			return "", false
		}
		s, err := strconv.Unquote(q)
		return s, err == nil
	}
	parts := strings.SplitN(line, " | ", 3)
	if len(parts) < 2 {
		return "", false
	}
	s, err := strconv.Unquote(strings.TrimPrefix(parts[1], "string "))
	return s, err == nil
}

// isErrLine reports whether a line of soakLines is an error.
func isErrLine(l string) bool {
	for _, p := range []string{"prepare error", "query error", "scan error", "rows error", "close error"} {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
}

// soakFault reports whether an error line is one of the faults the soak
// causes: a cancelled or expired context, a terminated backend, a
// connection closed under a read, and the errors of reading a table being
// altered or recreated. Every other error is compared with pgx stdlib's.
func soakFault(l string) bool {
	for _, s := range []string{
		"is context.Canceled", "is context.DeadlineExceeded", "is driver.ErrBadConn", "is sql.ErrConnDone",
		"SQLSTATE 57P01", "SQLSTATE 57014", // terminated, cancelled
		"SQLSTATE 42P01", "SQLSTATE 0A000", "SQLSTATE 55P03", "SQLSTATE 40P01", "SQLSTATE XX000", // DDL
		"unexpected EOF", "conn closed", "use of closed network connection", "connection reset", "broken pipe",
		"timeout", "context canceled", "context deadline exceeded", "failed to deallocate", "sql: Rows are closed",
	} {
		if strings.Contains(l, s) {
			return true
		}
	}
	return false
}

// soakReadDDL reads hang_ddl, whose column v the disturber alters and whose
// table it recreates: v is id*7 under every type it is given.
func soakReadDDL(pc *sql.DB, rng *rand.Rand, st *soakStats) error {
	ctx, cancel := context.WithTimeout(context.Background(), soakQueryTimeout)
	defer cancel()
	mode := soakModes[rng.IntN(len(soakModes))]
	rows, err := pc.QueryContext(ctx, "select id, v from hang_ddl where id <= $1 order by id", mode, 1+rng.IntN(50))
	if err != nil {
		if soakDDLFault(err) {
			st.faulted.Add(1)
			return nil
		}
		return fmt.Errorf("hang_ddl: %v", errShow(err))
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var id int
		var v string
		var a any
		dest := []any{&id, &v}
		if rng.IntN(2) == 0 {
			dest[1] = &a
		}
		if err := rows.Scan(dest...); err != nil {
			return fmt.Errorf("hang_ddl row %d: %v", n, errShow(err))
		}
		if dest[1] == &a {
			v = fmt.Sprint(a)
			if b, ok := a.([]byte); ok {
				v = string(b)
			}
		}
		if want := strconv.Itoa(id * 7); v != want {
			return fmt.Errorf("hang_ddl row %d (mode %v): v = %q, want %q", id, mode, v, want)
		}
		n++
	}
	st.rows.Add(int64(n))
	if err := rows.Err(); err != nil {
		if soakDDLFault(err) {
			st.faulted.Add(1)
			return nil
		}
		return fmt.Errorf("hang_ddl: %v", errShow(err))
	}
	st.clean.Add(1)
	return nil
}

// soakDDLFault is soakFault for an error value.
func soakDDLFault(err error) bool {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, sqldriver.ErrBadConn) {
		return true
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "42804" {
		// "structure of query does not match function result type" and the
		// like, while a column changes type: only under a recreated table.
		return true
	}
	return soakFault(errShow(err))
}

// soakDisturb does one of the disturber's things.
func soakDisturb(pc, admin *sql.DB, rng *rand.Rand, st *soakStats) error {
	ctx, cancel := context.WithTimeout(context.Background(), soakQueryTimeout)
	defer cancel()
	switch k := rng.IntN(20); {
	case k < 6:
		pgcache.ResetCache()
		st.resets.Add(1)
	case k < 12:
		// A pooled connection's settings, which its next reads run under.
		conn, err := pc.Conn(ctx)
		if err != nil {
			return nil // a terminated connection, say; the pool recovers
		}
		defer conn.Close()
		p := soakSettings[rng.IntN(len(soakSettings))]
		for i, name := range soakSettingNames {
			if _, err := conn.ExecContext(ctx, "select set_config($1, $2, false)", name, p[i]); err != nil {
				if soakDDLFault(err) {
					return nil
				}
				return fmt.Errorf("set %s: %v", name, errShow(err))
			}
		}
		st.settings.Add(1)
	case k < 16:
		typ := soakDDLTypes[rng.IntN(len(soakDDLTypes))]
		var stmt string
		if rng.IntN(2) == 0 {
			stmt = fmt.Sprintf("alter table hang_ddl alter column v type %s using v::%[1]s", typ)
		} else {
			stmt = fmt.Sprintf("begin; drop table hang_ddl; create table hang_ddl as select id, (id * 7)::%s as v from generate_series(1, 50) id; commit", typ)
		}
		if _, err := admin.ExecContext(ctx, stmt); err != nil {
			var pgErr *pgconn.PgError
			if errors.As(err, &pgErr) && (pgErr.Code == "55P03" || pgErr.Code == "40P01") {
				return nil // lock_timeout: readers held the table
			}
			return fmt.Errorf("%s: %v", stmt, errShow(err))
		}
		st.ddl.Add(1)
	default:
		var n int
		err := admin.QueryRowContext(ctx, `select count(pg_terminate_backend(pid)) from (select pid from pg_stat_activity
			where application_name = $1 order by random() limit 1) p`, soakApp).Scan(&n)
		if err != nil {
			return fmt.Errorf("pg_terminate_backend: %v", errShow(err))
		}
		st.killed.Add(int64(n))
	}
	return nil
}
