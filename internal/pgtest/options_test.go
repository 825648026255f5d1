package pgtest_test

import (
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgcache/pgcache/internal/pgtest"
)

// TestWithOptions: options added to either DSN form reach pgx's parser as
// given, spaces, quotes and '+' included. Appending " pgcache_types=all" to
// a URL by hand made it unparsable.
func TestWithOptions(t *testing.T) {
	for _, dsn := range []string{
		"host=/tmp/x port=5432 user=postgres dbname=postgres",
		"postgres:///root?host=/tmp/extpg&port=5499",
		"postgres://u:p%20w@127.0.0.1:5499/db?sslmode=disable",
		"",
	} {
		got, err := pgtest.WithOptions(dsn, "application_name", `a b'c+d\e`, "search_path", "public")
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := pgconn.ParseConfig(got)
		if err != nil {
			t.Fatalf("%q: %v", got, err)
		}
		if v := cfg.RuntimeParams["application_name"]; v != `a b'c+d\e` {
			t.Errorf("%q: application_name = %q", got, v)
		}
		if v := cfg.RuntimeParams["search_path"]; v != "public" {
			t.Errorf("%q: search_path = %q", got, v)
		}
	}
}
