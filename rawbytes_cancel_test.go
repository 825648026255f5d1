package pgcache_test

import (
	"context"
	"database/sql"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/pgcache/pgcache/internal/pgtest"
)

// TestRawBytesCancel: a result whose context is cancelled after a Scan into
// *sql.RawBytes. database/sql keeps the Rows read-locked from such a Scan
// until the next Next or Close, and the goroutine that closes a cancelled
// result waits for that lock. Before Go 1.27 a second read lock taken
// meanwhile waits behind it, so Columns, ColumnTypes or (in a narrow
// window) Err called between the Scan and the next Next never return, with
// any driver (golang/go#64498; ARCHITECTURE.md, "Locks and waits"). This
// test pins what each driver does in the orders that are safe — Next or
// Close first — and, from Go 1.27, in the order that is not: identical
// answers from pgx stdlib and pgcache, every call returning, and the
// connection back in the pool.
func TestRawBytesCancel(t *testing.T) {
	needHstore(t)
	dsn := pgtest.DSN(t)
	reentrant := !strings.HasPrefix(runtime.Version(), "go1.26")
	type step struct {
		name string
		f    func(*sql.Rows) string
	}
	// Next is false once database/sql's closing goroutine has seen the
	// cancel, and may still be true before: either way it must return.
	next := step{"Next", func(r *sql.Rows) string {
		r.Next()
		return "returned"
	}}
	// Err's answer before the result is closed, and after a Close that
	// races database/sql's closing goroutine, is nil or the context's error
	// depending on which goroutine got there first, with either driver.
	errStep := step{"Err", func(r *sql.Rows) string {
		if err := r.Err(); err != nil && !errors.Is(err, context.Canceled) {
			return errShow(err)
		}
		return "nil or context.Canceled"
	}}
	// Close's answer is the driver's (the context's error, when the cancel
	// cut a read short) if it takes the result's lock before database/sql's
	// closing goroutine, and nil after it: that goroutine waits for the
	// lock from the cancel on, but a loaded machine may not have run it
	// yet, with either driver.
	closeStep := step{"Close", func(r *sql.Rows) string {
		if err := r.Close(); err != nil && !errors.Is(err, context.Canceled) {
			return errShow(err)
		}
		return "nil or context.Canceled"
	}}
	columns := step{"Columns", func(r *sql.Rows) string {
		cols, err := r.Columns()
		return strings.Join(cols, ",") + " " + errShow(err)
	}}
	orders := [][]step{{next, errStep, closeStep}, {closeStep, errStep}}
	if reentrant {
		orders = append(orders, []step{columns, errStep, next, errStep, closeStep})
	}
	queries := []string{
		"select 12.5::numeric, 'a=>1'::hstore, 'N'::text from generate_series(1, 3)",
		"select 12.5::numeric, 'a=>1'::hstore, 'N'::text from generate_series(1, 100000)",
	}
	read := func(db *sql.DB, query string, order []step) []string {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		rows, err := db.QueryContext(ctx, query)
		if err != nil {
			t.Fatal(err)
		}
		rows.Next()
		var raws [3]sql.RawBytes
		if err := rows.Scan(&raws[0], &raws[1], &raws[2]); err != nil {
			t.Fatal(err)
		}
		got := []string{string(raws[0]) + " " + string(raws[1]) + " " + string(raws[2])}
		cancel()
		time.Sleep(20 * time.Millisecond) // database/sql's closing goroutine waits for the lock
		for _, s := range order {
			done := make(chan string, 1)
			go func() { done <- s.f(rows) }()
			select {
			case r := <-done:
				got = append(got, s.name+": "+r)
			case <-time.After(30 * time.Second):
				t.Fatalf("%s after a Scan into *sql.RawBytes and a cancel did not return", s.name)
			}
		}
		return got
	}
	for _, query := range queries {
		for _, order := range orders {
			var names []string
			for _, s := range order {
				names = append(names, s.name)
			}
			std, pc := openDB(t, stdDriver, dsn), openDB(t, pcDriver, withParams(t, dsn, "pgcache_types", "all"))
			want, got := read(std, query, order), read(pc, query, order)
			if strings.Join(want, "\n") != strings.Join(got, "\n") {
				t.Errorf("%s, %s:\nstdlib:  %q\npgcache: %q", query, strings.Join(names, ", "), want, got)
			}
			for _, db := range []*sql.DB{std, pc} {
				var n int
				if err := db.QueryRow("select 1").Scan(&n); err != nil || n != 1 {
					t.Errorf("after the cancel: %d, %v", n, err)
				}
				if s := db.Stats(); s.InUse != 0 {
					t.Errorf("%d connections in use after the cancelled result", s.InUse)
				}
			}
		}
	}
}
