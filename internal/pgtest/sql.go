package pgtest

import (
	"context"
	"database/sql"
	"testing"
	"time"
)

// OpenDB opens dsn with the database/sql driver driverName, which the test
// binary registers, and closes the *sql.DB when t ends. sql.Open connects to
// nothing, so a DSN that names no reachable server fails only on first use.
func OpenDB(t testing.TB, driverName, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open(driverName, dsn)
	if err != nil {
		t.Fatalf("sql.Open(%q, %q): %v", driverName, dsn, err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// Context returns a context that is cancelled when t ends or after timeout,
// whichever comes first: a bound on how long a test may hang, not on how long
// it should take.
func Context(t testing.TB, timeout time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	return ctx
}
