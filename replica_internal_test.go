package pgcache

import (
	"context"
	"database/sql"
	"fmt"
	"testing"
	"time"

	"github.com/pgcache/pgcache/internal/pgtest"
)

// Which server a connection's state belongs to. A *Conn wraps one pgx
// connection for its life, and a pgx connection talks to one server: its
// kept plans (plan.go) and its Setup are that server's. What outlives a
// connection and depends on OIDs, the back-off's memory, is keyed by the
// server's catalog (backoff.CatalogKey, driver.Setup.Catalog).

// openCatalogConn opens a pgcache connection to dsn and returns the driver
// connection, closed when t ends.
func openCatalogConn(t *testing.T, dsn string) *Conn {
	t.Helper()
	db, err := sql.Open(DriverName, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	var c *Conn
	if err := conn.Raw(func(dc any) error { c = dc.(*Conn); return nil }); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestReplicaCatalogIdentity: a primary and its streaming standby share
// one catalog identity (their OIDs name the same objects), which another
// cluster and another database of the same cluster do not share; a role
// that may not execute pg_control_system() still connects, with the
// database's identity alone.
func TestReplicaCatalogIdentity(t *testing.T) {
	t.Parallel()
	primary, standby := pgtest.StartPair(t)
	other := pgtest.StartCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	second, err := pgtest.CreateDatabase(ctx, primary.DSN(), "pgcache_second")
	if err != nil {
		t.Fatal(err)
	}
	if err := standby.CatchUp(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := pgtest.CreateDatabase(ctx, standby.DSN(), "pgcache_second"); err == nil {
		t.Fatal("create database on the standby succeeded")
	}
	onStandby := standby.DSN() + " dbname=pgcache_second"

	p := openCatalogConn(t, primary.DSN()).setup.Catalog
	s := openCatalogConn(t, standby.DSN()).setup.Catalog
	o := openCatalogConn(t, other.DSN()).setup.Catalog
	p2 := openCatalogConn(t, second).setup.Catalog
	s2 := openCatalogConn(t, onStandby).setup.Catalog
	t.Logf("catalogs: primary %#x, standby %#x, other cluster %#x, second database %#x (standby %#x)", p, s, o, p2, s2)
	if p == 0 || p != s || p2 != s2 {
		t.Errorf("primary %#x and standby %#x (second database %#x and %#x) differ or are 0", p, s, p2, s2)
	}
	if o == p || p2 == p {
		t.Errorf("another cluster (%#x) or another database (%#x) shares the primary's catalog %#x", o, p2, p)
	}
	if off := openCatalogConn(t, primary.DSN()+" pgcache=off").setup.Catalog; off != 0 {
		t.Errorf("pgcache=off: Catalog = %#x, want 0 (no catalog query)", off)
	}

	// Without the privilege (managed services revoke it) the identity is
	// the database's alone: the same for the same database OID everywhere.
	for _, stmt := range []string{
		"create role pgcache_noctl login",
		"revoke execute on function pg_control_system() from public",
	} {
		if _, err := openCatalogConn(t, other.DSN()).conn.Exec(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	c := openCatalogConn(t, other.DSN()+" user=pgcache_noctl")
	if got := c.setup.Catalog; got == 0 || got == o {
		t.Errorf("without pg_control_system(): Catalog = %#x, want non-zero and not %#x (with it)", got, o)
	}
	if again := openCatalogConn(t, other.DSN()+" user=pgcache_noctl").setup.Catalog; again != c.setup.Catalog {
		t.Errorf("without pg_control_system(): two connections have catalogs %#x and %#x", c.setup.Catalog, again)
	}
}

// TestKeptPlansStayOnTheirServer establishes that a kept plan never
// crosses servers: a connection that fails over is a new *Conn on a new pgx
// connection, which starts with no kept Rows, and the old one drops its
// own when database/sql closes it.
func TestKeptPlansStayOnTheirServer(t *testing.T) {
	primary, standby := pgtest.StartPair(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dsn := fmt.Sprintf("host=%s,%s port=%d,%d user=postgres dbname=postgres sslmode=disable",
		primary.Dir(), standby.Dir(), pgtest.Port, pgtest.Port)
	db, err := sql.Open(DriverName, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)

	const q = "select v from (values (1.50::numeric), (2.25), (1.50)) t(v)"
	type seen struct {
		c      *Conn
		server string
		kept   []*Rows
	}
	use := func() (seen, error) {
		conn, err := db.Conn(ctx)
		if err != nil {
			return seen{}, err
		}
		defer conn.Close()
		var s seen
		err = conn.Raw(func(dc any) error {
			c := dc.(*Conn)
			r, err := c.QueryContext(ctx, q, nil)
			if err != nil {
				return err
			}
			r.Close()
			s = seen{c: c, server: c.conn.PgConn().Conn().RemoteAddr().String()}
			for _, k := range c.kept {
				if k != nil {
					s.kept = append(s.kept, k)
					if k.conn != c {
						t.Errorf("a kept Rows of %p belongs to %p", c, k.conn)
					}
				}
			}
			return nil
		})
		return s, err
	}
	before, err := use()
	if err != nil {
		t.Fatal(err)
	}
	if len(before.kept) != 1 {
		t.Fatalf("%d kept Rows after one query, want 1", len(before.kept))
	}
	if err := primary.Shutdown(ctx, "fast"); err != nil {
		t.Fatal(err)
	}
	var after seen
	for attempt := 1; ; attempt++ {
		if after, err = use(); err == nil {
			break
		}
		t.Logf("attempt %d after the primary stopped: %v", attempt, err)
		if attempt == 5 {
			t.Fatal("no connection to the standby after 5 attempts")
		}
	}
	t.Logf("before: %p on %s; after: %p on %s", before.c, before.server, after.c, after.server)
	if after.c == before.c || after.server == before.server {
		t.Fatalf("after the primary stopped the query ran on %p at %s, as before", after.c, after.server)
	}
	for _, k := range after.kept {
		if k == before.kept[0] {
			t.Error("the connection to the standby reuses a Rows planned on the primary")
		}
	}
	for i, k := range before.c.kept {
		if k != nil {
			t.Errorf("the closed connection to the primary still keeps Rows %d", i)
		}
	}
}
