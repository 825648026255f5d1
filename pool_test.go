package pgcache_test

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/pgcache/pgcache"
	"github.com/pgcache/pgcache/driver"
	"github.com/pgcache/pgcache/internal/pgtest"
)

// TestParsePoolConfig checks that one DSN configures pgxpool, pgx and pgcache
// at once, and that pgcache's keys are taken out of what reaches the server.
func TestParsePoolConfig(t *testing.T) {
	for _, dsn := range []string{
		"host=/tmp user=app dbname=shop pool_max_conns=3 pgcache=off pgcache_disable=orders.total application_name=x",
		"postgres://app@/shop?host=/tmp&pool_max_conns=3&pgcache=off&pgcache_disable=orders.total&application_name=x",
	} {
		t.Run(dsn, func(t *testing.T) {
			cfg, opts, err := pgcache.ParsePoolConfig(dsn)
			if err != nil {
				t.Fatal(err)
			}
			if cfg.MaxConns != 3 {
				t.Errorf("MaxConns = %d, want 3", cfg.MaxConns)
			}
			if got := cfg.ConnConfig.RuntimeParams["application_name"]; got != "x" {
				t.Errorf("application_name = %q, want x", got)
			}
			for k := range cfg.ConnConfig.RuntimeParams {
				if strings.HasPrefix(k, "pgcache") {
					t.Errorf("RuntimeParams still hold %q", k)
				}
			}
			if opts.Cache {
				t.Error("Cache on, want off")
			}
			if len(opts.Disable) != 1 || opts.Disable[0] != (driver.Column{Table: "orders", Name: "total"}) {
				t.Errorf("Disable = %v, want [orders.total]", opts.Disable)
			}
			if err := pgcache.CheckPoolConfig(cfg); err != nil {
				t.Errorf("CheckPoolConfig after ParsePoolConfig: %v", err)
			}
		})
	}

	t.Run("unknown key", func(t *testing.T) {
		_, _, err := pgcache.ParsePoolConfig("host=/tmp pgcache_disabel=x")
		var oe *driver.OptionError
		if !errors.As(err, &oe) || oe.Key != "pgcache_disabel" {
			t.Fatalf("err = %v, want an *driver.OptionError for pgcache_disabel", err)
		}
	})
}

// TestCheckPoolConfig: a config from pgxpool.ParseConfig keeps pgcache's keys
// as run-time parameters; the check names the key before the server refuses.
func TestCheckPoolConfig(t *testing.T) {
	cfg, err := pgxpool.ParseConfig("host=/tmp pgcache_disable=x pgcache=off")
	if err != nil {
		t.Fatal(err)
	}
	err = pgcache.CheckPoolConfig(cfg)
	if !errors.Is(err, pgcache.ErrOptionReachesServer) || !strings.Contains(err.Error(), `"pgcache"`) {
		t.Fatalf("CheckPoolConfig = %v, want ErrOptionReachesServer naming \"pgcache\"", err)
	}
	if err := pgcache.CheckPoolConfig(nil); err != nil {
		t.Errorf("CheckPoolConfig(nil) = %v", err)
	}
}

// TestNewPool runs the same numeric query through NewPool's *sql.DB and
// through pgx stdlib, and checks that the DSN's pgcache options took effect:
// the cache is used with the defaults and not at all with pgcache=off.
func TestNewPool(t *testing.T) {
	dsn := pgtest.DSN(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const query = "select ((i % 7) * 1.25)::numeric(8, 2) from generate_series(1, 200) i"
	want := scanTexts(t, openDB(t, stdDriver, dsn), query)

	for _, tt := range []struct {
		params    []string
		wantCache bool
	}{
		{[]string{"pool_max_conns", "2"}, true},
		{[]string{"pool_max_conns", "2", "pgcache", "off"}, false},
	} {
		t.Run(strings.Join(tt.params, "="), func(t *testing.T) {
			pool, db, err := pgcache.NewPool(ctx, withParams(t, dsn, tt.params...))
			if err != nil {
				t.Fatal(err)
			}
			defer pool.Close()
			defer db.Close()
			if got := pool.Config().MaxConns; got != 2 {
				t.Errorf("MaxConns = %d, want 2", got)
			}
			var got []string
			num, _ := traffic(func() {
				for range 3 {
					got = scanTexts(t, db, query)
				}
			})
			if strings.Join(got, ",") != strings.Join(want, ",") {
				t.Fatalf("pgcache pool: %v\npgx stdlib: %v", got, want)
			}
			if used := num.Hits+num.Admissions > 0; used != tt.wantCache {
				t.Errorf("cache traffic %v, want cache used = %v", num, tt.wantCache)
			}
		})
	}

	t.Run("pgxpool.New sends the option", func(t *testing.T) {
		// The problem NewPool solves: pgxpool alone forwards the key.
		pool, err := pgxpool.New(ctx, withParams(t, dsn, "pgcache", "off"))
		if err != nil {
			t.Fatal(err)
		}
		defer pool.Close()
		err = pool.Ping(ctx)
		if err == nil || !strings.Contains(err.Error(), `unrecognized configuration parameter "pgcache"`) {
			t.Fatalf("Ping = %v, want the server to reject pgcache", err)
		}
		if err := pgcache.CheckPoolConfig(pool.Config()); !errors.Is(err, pgcache.ErrOptionReachesServer) {
			t.Fatalf("CheckPoolConfig = %v", err)
		}
	})

	t.Run("bad option", func(t *testing.T) {
		_, _, err := pgcache.NewPool(ctx, withParams(t, dsn, "pgcache", "maybe"))
		var oe *driver.OptionError
		if !errors.As(err, &oe) || oe.Key != "pgcache" {
			t.Fatalf("err = %v, want an *driver.OptionError for pgcache", err)
		}
	})
}

// scanTexts returns query's rows, each row's columns scanned into strings
// and joined by "|".
func scanTexts(t testing.TB, db interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, query string, args ...any) []string {
	t.Helper()
	rows, err := db.QueryContext(pgtest.Context(t, time.Minute), query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	texts := make([]string, len(cols))
	dest := make([]any, len(cols))
	for i := range texts {
		dest[i] = &texts[i]
	}
	var out []string
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			t.Fatal(err)
		}
		out = append(out, strings.Join(texts, "|"))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
