package pgtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// A streaming standby. [Cluster.StartStandby] copies a running cluster with
// pg_basebackup -R (which writes standby.signal and primary_conninfo) over
// the primary's Unix socket, through a physical replication slot of its own
// so that the primary keeps every WAL segment the standby has not received,
// and starts the copy on a directory and socket of its own. The copy shares
// the primary's system identifier and catalog: the same OIDs for the same
// objects.
//
// Every cluster [Start] makes can be a primary: [settings] turn on
// wal_level=replica, wal senders and hot_standby, and initdb -A trust
// writes the "local replication all trust" line of pg_hba.conf that lets
// pg_basebackup and the standby's WAL receiver log in over the socket.

// replicationSettings are part of every cluster's configuration. They are
// PostgreSQL 15's defaults, spelled out because a standby depends on them.
var replicationSettings = [][2]string{
	{"wal_level", "replica"},
	{"max_wal_senders", "4"},
	{"max_replication_slots", "4"},
	{"hot_standby", "on"},
	// A standby reports what it has replayed at once, so that a test
	// waiting for its rows (CatchUp) does not wait for the default 10 s.
	{"wal_receiver_status_interval", "1s"},
}

// StartStandby creates a streaming standby of c, which must be running, and
// starts it. It returns once the standby accepts read-only connections and
// streams WAL from c. Cancelling ctx aborts the start and removes what was
// made. The caller owns the standby and must call [Cluster.Stop] on it; its
// replication slot on c stays until c is stopped.
func (c *Cluster) StartStandby(ctx context.Context) (*Cluster, error) {
	dir, err := os.MkdirTemp(tempBase(c.cred), dirPrefix)
	if err != nil {
		return nil, fmt.Errorf("pgtest: %w", err)
	}
	s := &Cluster{bin: c.bin, dir: dir, cred: c.cred, env: c.env, version: c.version, primary: c,
		slot: slotName(dir)}
	if err := s.startStandby(ctx); err != nil {
		if stopErr := s.Stop(); stopErr != nil {
			err = fmt.Errorf("%w\n(cleanup: %v)", err, stopErr)
		}
		return nil, err
	}
	return s, nil
}

// slotName derives a replication slot name, which may hold only lower-case
// letters, digits and underscores, from a cluster directory's unique name.
func slotName(dir string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, strings.ToLower(filepath.Base(dir)))
}

func (s *Cluster) startStandby(ctx context.Context) error {
	if err := os.WriteFile(filepath.Join(s.dir, ownerFile), []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
		return fmt.Errorf("pgtest: %w", err)
	}
	if s.cred != nil {
		if err := os.Chown(s.dir, int(s.cred.Uid), int(s.cred.Gid)); err != nil {
			return fmt.Errorf("pgtest: giving %s to the postgres user: %w", s.dir, err)
		}
	}
	if err := execSQL(ctx, s.primary.DSN(), "select pg_catalog.pg_create_physical_replication_slot('"+s.slot+"')"); err != nil {
		return err
	}
	data := filepath.Join(s.dir, dataDir)
	out, err := s.command(ctx, "pg_basebackup", "-D", data, "-R", "-S", s.slot, "-X", "stream",
		"-c", "fast", "--no-sync", "-d", s.primary.DSN()).CombinedOutput()
	if err != nil {
		return fmt.Errorf("pgtest: pg_basebackup of %s: %w\n%s", s.primary.dir, err, bytes.TrimSpace(out))
	}
	// The copy's postgresql.conf names the primary's socket directory;
	// writeConfig's later lines win.
	if err := s.writeConfig(filepath.Join(data, "postgresql.conf")); err != nil {
		return err
	}
	out, err = s.command(ctx, "pg_ctl", "start", "-w", "-t", "120", "-D", data,
		"-l", filepath.Join(s.dir, logFile)).CombinedOutput()
	if err != nil {
		return fmt.Errorf("pgtest: pg_ctl start of the standby: %w\n%s\n%s", err, bytes.TrimSpace(out), s.logTail())
	}
	return s.waitStreaming(ctx)
}

// waitStreaming waits until the standby's WAL receiver streams from the
// primary.
func (s *Cluster) waitStreaming(ctx context.Context) error {
	conn, err := pgx.Connect(ctx, s.DSN())
	if err != nil {
		return fmt.Errorf("pgtest: connecting to the standby: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	for {
		var status string
		err := conn.QueryRow(ctx, "select status from pg_catalog.pg_stat_wal_receiver").Scan(&status)
		if err == nil && status == "streaming" {
			return nil
		}
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("pgtest: waiting for the standby to stream: %w", err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("pgtest: the standby does not stream (WAL receiver %q): %w\n%s", status, ctx.Err(), s.logTail())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Primary returns the cluster s is a standby of, or nil when s was made by
// [Start].
func (s *Cluster) Primary() *Cluster { return s.primary }

// CatchUp waits until the standby s has replayed everything its primary had
// written when CatchUp was called, so that rows committed on the primary
// before the call are visible on s.
func (s *Cluster) CatchUp(ctx context.Context) error {
	if s.primary == nil {
		return errors.New("pgtest: CatchUp on a cluster that is not a standby")
	}
	// The insert position, not pg_current_wal_lsn's write position: with
	// synchronous_commit=off a commit may still be in the WAL buffers.
	var lsn string
	if err := queryOne(ctx, s.primary.DSN(), "select pg_catalog.pg_current_wal_insert_lsn()::text", &lsn); err != nil {
		return err
	}
	conn, err := pgx.Connect(ctx, s.DSN())
	if err != nil {
		return fmt.Errorf("pgtest: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	for {
		var done bool
		if err := conn.QueryRow(ctx, "select pg_catalog.pg_last_wal_replay_lsn() >= $1::pg_lsn", lsn).Scan(&done); err != nil {
			return fmt.Errorf("pgtest: waiting for the standby to replay %s: %w", lsn, err)
		}
		if done {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("pgtest: the standby has not replayed %s: %w\n%s", lsn, ctx.Err(), s.logTail())
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// Promote makes the standby s a primary with pg_promote, and returns once
// it accepts writes.
func (s *Cluster) Promote(ctx context.Context) error {
	var ok bool
	if err := queryOne(ctx, s.DSN(), "select pg_catalog.pg_promote(true, 60)", &ok); err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("pgtest: pg_promote did not finish within 60 s\n%s", s.logTail())
	}
	return nil
}

// Shutdown stops the server with pg_ctl stop -m mode ("smart", "fast" or
// "immediate") and leaves its directory for [Cluster.Stop] to remove. With
// "fast", as an administrator's failover does, every session is terminated
// with SQLSTATE 57P01 (admin_shutdown) and the socket disappears; a
// primary's WAL senders first send its standbys everything it wrote.
func (c *Cluster) Shutdown(ctx context.Context, mode string) error {
	out, err := c.command(ctx, "pg_ctl", "stop", "-w", "-t", "60", "-m", mode,
		"-D", filepath.Join(c.dir, dataDir)).CombinedOutput()
	if err != nil {
		return fmt.Errorf("pgtest: pg_ctl stop -m %s: %w\n%s\n%s", mode, err, bytes.TrimSpace(out), c.logTail())
	}
	return nil
}

// queryOne runs sql on a new connection to dsn and scans its one row's one
// column into dest.
func queryOne(ctx context.Context, dsn, sql string, dest any) error {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return fmt.Errorf("pgtest: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if err := conn.QueryRow(ctx, sql).Scan(dest); err != nil {
		return fmt.Errorf("pgtest: %s: %w", sql, err)
	}
	return nil
}

// StartPair starts a primary and a streaming standby of it for t, both of
// t's own (never the cluster [Main] started, which other tests share), and
// stops them when t ends. Tests that fail a primary over, or that compare
// servers, use it; it works the same with $PGCACHE_TEST_DSN set. Without
// server binaries it skips t, or fails it when a database is [Required].
func StartPair(t testing.TB) (primary, standby *Cluster) {
	t.Helper()
	primary = StartCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	standby, err := primary.StartStandby(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Cleanups run last-added first: the standby stops before its primary.
	t.Cleanup(func() {
		if err := standby.Stop(); err != nil {
			t.Error(err)
		}
	})
	return primary, standby
}

// StartCluster starts a cluster of t's own with [Start] and stops it when t
// ends. Without server binaries it skips t, or fails it when a database is
// [Required].
func StartCluster(t testing.TB) *Cluster {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	c, err := Start(ctx)
	if err != nil {
		if why, ok := Required(); ok {
			t.Fatalf("%s, but no cluster could be started: %v", why, err)
		}
		if errors.Is(err, ErrNoServer) {
			t.Skipf("skipped: %v", err)
		}
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Stop(); err != nil {
			t.Error(err)
		}
	})
	return c
}
