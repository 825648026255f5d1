package pgtest

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// CreateDatabase creates the database name on the server dsn points at and
// returns dsn changed to connect to it. dsn may be keyword/value or a URL.
func CreateDatabase(ctx context.Context, dsn, name string) (string, error) {
	newDSN, err := withDBName(dsn, name)
	if err != nil {
		return "", err
	}
	if err := execSQL(ctx, dsn, "create database "+pgx.Identifier{name}.Sanitize()); err != nil {
		return "", err
	}
	return newDSN, nil
}

// DropDatabase drops the database name, closing any connections to it.
func DropDatabase(ctx context.Context, dsn, name string) error {
	return execSQL(ctx, dsn, "drop database if exists "+pgx.Identifier{name}.Sanitize()+" with (force)")
}

func execSQL(ctx context.Context, dsn, sql string) error {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return fmt.Errorf("pgtest: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, sql); err != nil {
		return fmt.Errorf("pgtest: %s: %w", sql, err)
	}
	return nil
}

var databaseSeq atomic.Int64

// Database creates a new, empty database on the server [DSN] returns and
// drops it when t ends. Use it for tests that change a database for good,
// such as by CREATE EXTENSION hstore, so they see the same state however the
// other tests run. Close connections to it before t's cleanups run.
func Database(t testing.TB) string {
	t.Helper()
	return DatabaseOn(t, DSN(t))
}

// DatabaseOn is [Database] on the server dsn points at, such as the one
// [OwnServer] returns.
func DatabaseOn(t testing.TB, dsn string) string {
	t.Helper()
	// The PID keeps names apart when test binaries share a server through
	// $PGCACHE_TEST_DSN.
	name := fmt.Sprintf("pgtest_%d_%d", os.Getpid(), databaseSeq.Add(1))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	newDSN, err := CreateDatabase(ctx, dsn, name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := DropDatabase(ctx, dsn, name); err != nil {
			t.Error(err)
		}
	})
	return newDSN
}

// withDBName returns dsn with its database replaced by name.
func withDBName(dsn, name string) (string, error) {
	if isURL(dsn) {
		u, err := url.Parse(dsn)
		if err != nil {
			return "", fmt.Errorf("pgtest: %w", err)
		}
		q := u.Query()
		if q.Has("dbname") {
			q.Set("dbname", name)
			// pgx reads '+' as itself, not as a space; Encode has
			// escaped every literal '+' as %2B.
			u.RawQuery = strings.ReplaceAll(q.Encode(), "+", "%20")
		} else {
			u.Path, u.RawPath = "/"+name, ""
		}
		return u.String(), nil
	}
	// In keyword/value form a later keyword overrides an earlier one.
	return strings.TrimSpace(dsn) + " dbname=" + quoteValue(name), nil
}
