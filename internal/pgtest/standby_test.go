package pgtest_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgcache/pgcache/internal/pgtest"
)

// TestStandby starts a primary and a streaming standby: the standby is in
// recovery, refuses writes, shares the primary's system identifier, sees
// rows committed on the primary, and after Promote takes writes. Stop
// removes both directories.
func TestStandby(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	primary, standby := pgtest.StartPair(t)
	if standby.Primary() != primary || primary.Primary() != nil {
		t.Fatalf("Primary() = %p and %p, want the primary %p and nil", standby.Primary(), primary.Primary(), primary)
	}
	if standby.Dir() == primary.Dir() {
		t.Fatalf("the standby shares the primary's directory %s", primary.Dir())
	}
	for _, name := range []string{"pgtest.pid", "data/standby.signal"} {
		if _, err := os.Stat(filepath.Join(standby.Dir(), name)); err != nil {
			t.Errorf("the standby has no %s: %v", name, err)
		}
	}
	b, _ := os.ReadFile(filepath.Join(standby.Dir(), "pgtest.pid"))
	if pid, _ := strconv.Atoi(strings.TrimSpace(string(b))); pid != os.Getpid() {
		t.Errorf("the standby's pgtest.pid holds %q, want this process %d", b, os.Getpid())
	}

	p := connect(t, primary.DSN())
	s := connect(t, standby.URL())
	if got := queryString(t, s, "select pg_is_in_recovery()::text"); got != "true" {
		t.Errorf("standby: pg_is_in_recovery() = %s", got)
	}
	if got := queryString(t, p, "select pg_is_in_recovery()::text"); got != "false" {
		t.Errorf("primary: pg_is_in_recovery() = %s", got)
	}
	if got := queryString(t, s, "show unix_socket_directories"); got != standby.Dir() {
		t.Errorf("standby: unix_socket_directories = %q, want %q", got, standby.Dir())
	}
	sysid := "select system_identifier::text from pg_control_system()"
	if a, b := queryString(t, p, sysid), queryString(t, s, sysid); a != b {
		t.Errorf("system identifiers differ: primary %s, standby %s", a, b)
	}
	if got := queryString(t, p, "select count(*)::text from pg_stat_replication where state = 'streaming'"); got != "1" {
		t.Errorf("the primary streams to %s standbys, want 1", got)
	}

	if _, err := p.Exec(ctx, "create table pgtest_standby (v int); insert into pgtest_standby values (1), (2)"); err != nil {
		t.Fatal(err)
	}
	if err := standby.CatchUp(ctx); err != nil {
		t.Fatal(err)
	}
	if got := queryString(t, s, "select sum(v)::text from pgtest_standby"); got != "3" {
		t.Errorf("standby: sum = %s, want 3", got)
	}
	_, err := s.Exec(ctx, "insert into pgtest_standby values (3)")
	if pgErr, ok := errors.AsType[*pgconn.PgError](err); !ok || pgErr.Code != "25006" {
		t.Errorf("insert on the standby: %v, want SQLSTATE 25006 (read_only_sql_transaction)", err)
	}
	if err := primary.CatchUp(ctx); err == nil {
		t.Error("CatchUp on a primary succeeded")
	}

	// Fail over: stop the primary, promote the standby.
	p.Close(ctx)
	if err := primary.Shutdown(ctx, "fast"); err != nil {
		t.Fatal(err)
	}
	if err := standby.Promote(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Exec(ctx, "insert into pgtest_standby values (3)"); err != nil {
		t.Fatalf("insert after Promote: %v", err)
	}
	if got := queryString(t, s, "select sum(v)::text from pgtest_standby"); got != "6" {
		t.Errorf("after Promote: sum = %s, want 6", got)
	}
	s.Close(ctx)

	for _, c := range []*pgtest.Cluster{standby, primary} {
		if err := c.Stop(); err != nil {
			t.Errorf("Stop: %v", err)
		}
		if _, err := os.Stat(c.Dir()); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("after Stop, stat %s: %v; want it removed", c.Dir(), err)
		}
	}
}

// TestStandbyCanceled: a canceled start of a standby removes its directory
// and leaves the primary running.
func TestStandbyCanceled(t *testing.T) {
	t.Parallel()
	primary := pgtest.StartCluster(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	before, _ := filepath.Glob(filepath.Join(filepath.Dir(primary.Dir()), "pgtest-*"))
	if s, err := primary.StartStandby(ctx); err == nil {
		s.Stop()
		t.Fatal("StartStandby with a canceled context succeeded")
	}
	after, _ := filepath.Glob(filepath.Join(filepath.Dir(primary.Dir()), "pgtest-*"))
	// Other test binaries may make directories meanwhile; ours must not stay.
	for _, d := range after {
		if !contains(before, d) {
			if b, err := os.ReadFile(filepath.Join(d, "pgtest.pid")); err == nil && strings.TrimSpace(string(b)) == strconv.Itoa(os.Getpid()) {
				t.Errorf("a canceled StartStandby left %s", d)
			}
		}
	}
	conn := connect(t, primary.DSN())
	if got := queryString(t, conn, "select 'up'"); got != "up" {
		t.Errorf("primary: %q", got)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
