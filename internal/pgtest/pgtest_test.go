package pgtest_test

import (
	"context"
	"errors"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgcache/pgcache/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func connect(t *testing.T, dsn string) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connect %q: %v", dsn, err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func queryString(t *testing.T, conn *pgx.Conn, sql string) string {
	t.Helper()
	var s string
	if err := conn.QueryRow(context.Background(), sql).Scan(&s); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return s
}

func TestDSN(t *testing.T) {
	t.Parallel()
	conn := connect(t, pgtest.DSN(t))
	if v := queryString(t, conn, "select version()"); !strings.HasPrefix(v, "PostgreSQL ") {
		t.Errorf("select version() = %q, want PostgreSQL …", v)
	}
}

// TestHstore checks that contrib is installed beside the server. The harness
// itself never creates the extension: pgcache's tests watch what changes
// when they do.
func TestHstore(t *testing.T) {
	t.Parallel()
	conn := connect(t, pgtest.Database(t))
	ctx := context.Background()

	if _, err := conn.Exec(ctx, "select 'a=>1'::hstore"); err == nil {
		t.Fatal("hstore exists in a new database before create extension")
	}
	if _, err := conn.Exec(ctx, "create extension if not exists hstore"); err != nil {
		t.Fatalf("create extension hstore (is postgresql-contrib installed?): %v", err)
	}
	if got := queryString(t, conn, `select ('a=>1, "b c"=>NULL'::hstore -> 'a')`); got != "1" {
		t.Errorf("hstore -> 'a' = %q, want 1", got)
	}
}

// TestStart starts clusters beside the one Main started, at the same time, as
// the test binaries of go test ./... do.
func TestStart(t *testing.T) {
	t.Parallel()
	const n = 2
	clusters := make([]*pgtest.Cluster, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			clusters[i], errs[i] = pgtest.Start(ctx)
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err == nil {
			t.Cleanup(func() { clusters[i].Stop() })
			continue
		}
		if _, required := pgtest.Required(); errors.Is(err, pgtest.ErrNoServer) && !required {
			t.Skip(err)
		}
		t.Fatalf("Start: %v", err)
	}

	dirs := map[string]bool{}
	for _, c := range clusters {
		if dirs[c.Dir()] {
			t.Fatalf("two clusters share %s", c.Dir())
		}
		dirs[c.Dir()] = true
		if !regexp.MustCompile(`^[0-9]+`).MatchString(c.Version()) {
			t.Errorf("Version() = %q, want a version number", c.Version())
		}
		for _, dsn := range []string{c.DSN(), c.URL()} {
			conn := connect(t, dsn)
			if got, want := queryString(t, conn, "show server_version"), c.Version(); !strings.HasPrefix(got, want) {
				t.Errorf("%s: show server_version = %q, want %s…", dsn, got, want)
			}
			if got := queryString(t, conn, "show unix_socket_directories"); got != c.Dir() {
				t.Errorf("%s: unix_socket_directories = %q, want %q", dsn, got, c.Dir())
			}
			conn.Close(context.Background())
		}
	}

	conn := connect(t, clusters[0].DSN())
	for setting, want := range map[string]string{
		"server_encoding":    "UTF8",
		"lc_collate":         "C",
		"fsync":              "off",
		"synchronous_commit": "off",
		"full_page_writes":   "off",
		"listen_addresses":   "",
	} {
		if got := queryString(t, conn, "show "+setting); got != want {
			t.Errorf("show %s = %q, want %q", setting, got, want)
		}
	}
	conn.Close(context.Background())

	for _, c := range clusters {
		if err := c.Stop(); err != nil {
			t.Errorf("Stop: %v", err)
		}
		if _, err := os.Stat(c.Dir()); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("after Stop, stat %s: %v; want it removed", c.Dir(), err)
		}
		if err := c.Stop(); err != nil {
			t.Errorf("second Stop: %v", err)
		}
	}
}

func TestStartCanceled(t *testing.T) {
	t.Parallel()
	pgtest.DSN(t) // skip without a server
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if c, err := pgtest.Start(ctx); err == nil {
		c.Stop()
		t.Fatal("Start with a canceled context succeeded")
	}
}

func TestOpenUsesEnv(t *testing.T) {
	const dsn = "host=/nonexistent port=5432 user=postgres dbname=postgres sslmode=disable"
	t.Setenv(pgtest.EnvDSN, dsn)
	got, stop, err := pgtest.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	stop()
	if got != dsn {
		t.Errorf("Open() = %q, want $%s %q", got, pgtest.EnvDSN, dsn)
	}
}

func TestRequired(t *testing.T) {
	for _, tt := range []struct {
		ci, require string
		want        bool
	}{
		{"", "", false},
		{"true", "", true},
		{"1", "", true},
		{"yes", "", true},
		{"false", "", false},
		{"0", "", false},
		{"", "1", true},
		{"", "0", false},
		{"false", "1", true},
	} {
		t.Run("CI="+tt.ci+",REQUIRE="+tt.require, func(t *testing.T) {
			t.Setenv("CI", tt.ci)
			t.Setenv(pgtest.EnvRequireDB, tt.require)
			if why, got := pgtest.Required(); got != tt.want {
				t.Errorf("Required() = %q, %v; want %v", why, got, tt.want)
			}
		})
	}
}

// TestClusterRestart restarts the cluster Main started: a session open
// across the restart is cut with SQLSTATE 57P01 (admin_shutdown) or finds
// its connection closed, new connections work on the same DSN, and data
// survives. Not parallel: it cuts every connection of the binary.
func TestClusterRestart(t *testing.T) {
	c := pgtest.OwnCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	before := connect(t, pgtest.DSN(t))
	if _, err := before.Exec(ctx, "drop table if exists pgtest_restart; create table pgtest_restart (v text); insert into pgtest_restart values ('kept')"); err != nil {
		t.Fatal(err)
	}
	if err := c.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := before.Exec(ctx, "select 1"); err == nil {
		t.Error("a connection opened before the restart still works")
	}
	after := connect(t, pgtest.DSN(t))
	if got := queryString(t, after, "select v from pgtest_restart"); got != "kept" {
		t.Errorf("after the restart the table holds %q, want kept", got)
	}
}
