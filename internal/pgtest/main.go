package pgtest

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// startTimeout bounds [Main]'s cluster start. A start takes a few seconds;
// a slow CI machine running many test binaries at once gets ample slack.
const startTimeout = 3 * time.Minute

// Open returns the DSN to test against and a function that releases it.
// With $PGCACHE_TEST_DSN set, that is the DSN and stop does nothing.
// Otherwise Open starts a [Cluster] and stop stops it, printing any error to
// stderr. On error stop is nil.
func Open(ctx context.Context) (dsn string, stop func(), err error) {
	dsn, _, stop, err = open(ctx)
	return dsn, stop, err
}

// open is [Open], also returning the cluster it started (nil with
// $PGCACHE_TEST_DSN).
func open(ctx context.Context) (dsn string, c *Cluster, stop func(), err error) {
	if dsn := os.Getenv(EnvDSN); dsn != "" {
		return dsn, nil, func() {}, nil
	}
	c, err = Start(ctx)
	if err != nil {
		return "", nil, nil, err
	}
	return c.DSN(), c, func() {
		if err := c.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
	}, nil
}

// testDB is what [Main] learned, for [DSN]. Main writes it before m.Run
// starts any test, so tests may read it without locking.
var testDB struct {
	ran     bool     // Main ran
	dsn     string   // the database to test against, if there is one
	cluster *Cluster // the cluster Main started, nil with $PGCACHE_TEST_DSN
	err     error    // why there is none
}

// Main runs a test binary's tests against a database. Call it from TestMain:
//
//	func TestMain(m *testing.M) { pgtest.Main(m) }
//
// It calls [Open] once, runs the tests, stops the cluster and exits with the
// tests' code. [DSN] hands the database to tests. If there is no server, Main
// fails the binary in CI (see [Required]); elsewhere it runs the tests and
// DSN skips those that need one.
//
// go test -list starts no server. Main exports $PGCACHE_TEST_DSN so fuzz
// workers, which re-run the test binary, and any other child process use this
// binary's cluster instead of starting their own.
func Main(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	flag.Parse()
	if f := flag.Lookup("test.list"); f != nil && f.Value.String() != "" {
		return m.Run()
	}

	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	dsn, cluster, stop, err := open(ctx)
	cancel()
	testDB.ran = true
	if err != nil {
		if why, ok := Required(); ok {
			fmt.Fprintf(os.Stderr, "pgtest: %s, but there is no database to test against:\n%v\n", why, err)
			return 1
		}
		testDB.err = err
		return m.Run()
	}
	stopAll := func() {
		stopSpare()
		stop()
	}
	defer stopAll()
	testDB.dsn = dsn
	testDB.cluster = cluster
	fmt.Fprintln(os.Stderr, describeServer(dsn, cluster))
	os.Setenv(EnvDSN, dsn)
	stopOnSignal(stopAll)
	return m.Run()
}

// describeServer says which server the tests use, without the password:
// go test prints it before the tests run (go test ./... shows it only for
// a package that fails, or with -v).
func describeServer(dsn string, c *Cluster) string {
	if c != nil {
		return fmt.Sprintf("pgtest: testing against a throwaway PostgreSQL %s cluster in %s (set $%s to use a server of your own)",
			c.Version(), c.Dir(), EnvDSN)
	}
	cfg, err := pgconn.ParseConfig(dsn)
	if err != nil {
		return fmt.Sprintf("pgtest: testing against $%s, which does not parse: %v", EnvDSN, err)
	}
	return fmt.Sprintf("pgtest: testing against $%s: host=%s port=%d user=%s database=%s",
		EnvDSN, cfg.Host, cfg.Port, cfg.User, cfg.Database)
}

// spare is the throwaway cluster [OwnServer] starts when the tests run
// against $PGCACHE_TEST_DSN, once per test binary.
var spare struct {
	once sync.Once
	c    *Cluster
	err  error
}

// stopSpare stops the cluster [OwnServer] started, if it did.
func stopSpare() {
	spare.once.Do(func() {}) // no start after this
	if spare.c != nil {
		if err := spare.c.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
	}
}

// OwnServer returns the DSN of a server this test binary owns, whose
// superuser logs in without a password over a Unix socket: the cluster
// [Main] started or, when the tests run against $PGCACHE_TEST_DSN, a second
// throwaway cluster, started on the first call and stopped when Main
// returns. Tests use it that log in as roles they create, or that put a
// PgBouncer in front of the server: neither can log in to a server that
// authenticates by peer or by password. Without server binaries it skips t
// saying why; without a database at all it fails or skips as [DSN] does.
func OwnServer(t testing.TB) string {
	t.Helper()
	DSN(t)
	if testDB.cluster != nil {
		return testDB.cluster.DSN()
	}
	if !testDB.ran {
		t.Fatal("pgtest: OwnServer needs TestMain to call pgtest.Main: func TestMain(m *testing.M) { pgtest.Main(m) }")
	}
	spare.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
		defer cancel()
		spare.c, spare.err = Start(ctx)
		if spare.err == nil {
			fmt.Fprintf(os.Stderr, "pgtest: %s also starts a throwaway PostgreSQL %s cluster in %s for the tests that need roles or PgBouncer\n",
				filepath.Base(os.Args[0]), spare.c.Version(), spare.c.Dir())
		}
	})
	if spare.c == nil {
		if errors.Is(spare.err, ErrNoServer) || spare.err == nil {
			t.Skipf("skipped: this test logs in as roles of its own or through PgBouncer, which the server of $%s may refuse (peer or password authentication), "+
				"and starting a throwaway cluster for it failed: %v", EnvDSN, spare.err)
		}
		t.Fatalf("starting a throwaway cluster for a test that needs one of its own: %v", spare.err)
	}
	return spare.c.DSN()
}

// stopOnSignal stops the cluster and exits when the binary is interrupted
// or terminated. pg_ctl runs the server in a session of its own, so the
// terminal's ^C never reaches it. While fuzzing, package testing handles ^C
// itself and m.Run returns normally.
func stopOnSignal(stop func()) {
	sigs := []os.Signal{syscall.SIGTERM, syscall.SIGHUP}
	if f := flag.Lookup("test.fuzz"); f == nil || f.Value.String() == "" {
		sigs = append(sigs, os.Interrupt)
	}
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, sigs...)
	go func() {
		sig := <-ch
		fmt.Fprintf(os.Stderr, "pgtest: %v: stopping the PostgreSQL cluster\n", sig)
		stop()
		os.Exit(1)
	}()
}

// Required reports whether a missing database must fail the tests rather
// than skip them, and why: $CI is set (and not false), or
// $PGCACHE_REQUIRE_DB is 1.
func Required() (why string, ok bool) {
	if os.Getenv(EnvRequireDB) == "1" {
		return EnvRequireDB + "=1", true
	}
	if v := os.Getenv("CI"); v != "" {
		if b, err := strconv.ParseBool(v); err != nil || b {
			return "CI=" + v, true
		}
	}
	return "", false
}

// DSN returns the DSN of the database [Main] found. Without one it skips t,
// or fails it when a database is [Required] or the server exists but would
// not start. It may be called from parallel tests.
func DSN(t testing.TB) string {
	t.Helper()
	if testDB.dsn != "" {
		return testDB.dsn
	}
	if !testDB.ran {
		if dsn := os.Getenv(EnvDSN); dsn != "" {
			return dsn
		}
		t.Fatal("pgtest: DSN needs TestMain to call pgtest.Main: func TestMain(m *testing.M) { pgtest.Main(m) }")
	}
	if why, ok := Required(); ok {
		t.Fatalf("%s, but there is no database to test against: %v", why, testDB.err)
	}
	if !errors.Is(testDB.err, ErrNoServer) {
		t.Fatalf("no database to test against: %v", testDB.err)
	}
	t.Skipf("skipped: %v, or $%s to a database's DSN", testDB.err, EnvDSN)
	return ""
}

// OwnCluster returns the cluster [Main] started, for tests that must
// control the server itself, such as by restarting it. It skips t, with a
// message saying why, when the tests run against $PGCACHE_TEST_DSN (a server
// they do not own), and fails or skips as [DSN] does without a database.
//
// A test that restarts the cluster must not run in parallel with others:
// every connection of the test binary is cut. Go starts parallel tests only
// after all sequential top-level tests have returned, so a sequential test
// is alone.
func OwnCluster(t testing.TB) *Cluster {
	t.Helper()
	DSN(t)
	if testDB.cluster == nil {
		t.Skipf("skipped: the tests run against $%s, a server they cannot restart; unset it to use a throwaway cluster", EnvDSN)
	}
	return testDB.cluster
}
