package pgtest_test

import (
	"context"
	"database/sql"
	"errors"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers "pgx"

	"github.com/pgcache/pgcache/internal/pgtest"
)

// TestOpenDB: the *sql.DB reaches the server and is closed once the test
// that opened it has ended.
func TestOpenDB(t *testing.T) {
	t.Parallel()
	dsn := pgtest.DSN(t)
	var db *sql.DB
	t.Run("open", func(t *testing.T) {
		db = pgtest.OpenDB(t, "pgx", dsn)
		var one int
		if err := db.QueryRowContext(pgtest.Context(t, time.Minute), "select 1").Scan(&one); err != nil || one != 1 {
			t.Fatalf("select 1 = %d, %v", one, err)
		}
	})
	if db == nil {
		t.FailNow()
	}
	if err := db.Ping(); err == nil || err.Error() != "sql: database is closed" {
		t.Errorf("Ping after the subtest ended = %v, want sql: database is closed", err)
	}
}

// TestContext: the context ends at its timeout, or when the test ends.
func TestContext(t *testing.T) {
	t.Parallel()
	ctx := pgtest.Context(t, time.Nanosecond)
	<-ctx.Done()
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Errorf("Err after the timeout = %v, want context.DeadlineExceeded", ctx.Err())
	}
	var long context.Context
	t.Run("sub", func(t *testing.T) {
		long = pgtest.Context(t, time.Hour)
		if long.Err() != nil {
			t.Errorf("Err while the test runs = %v", long.Err())
		}
	})
	if !errors.Is(long.Err(), context.Canceled) {
		t.Errorf("Err after the test ended = %v, want context.Canceled", long.Err())
	}
}
