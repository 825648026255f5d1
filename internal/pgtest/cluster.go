// Package pgtest starts a throwaway PostgreSQL server for pgcache's tests and
// benchmark command.
//
// A test package opts in with
//
//	func TestMain(m *testing.M) { pgtest.Main(m) }
//
// and asks for the server with [DSN] (or a fresh database with [Database]).
// Programs that are not tests use [Open] or [Start].
//
// # Which server
//
// When $PGCACHE_TEST_DSN is set (a keyword/value DSN or a URL, with any
// authentication), that server is used and nothing is started, except by
// [OwnServer]: tests that log in as roles of their own or through PgBouncer,
// which a server authenticating by peer or password refuses, get a
// throwaway cluster of the test binary's own. [Main] prints which server
// the tests use. Otherwise [Start] runs initdb and pg_ctl from the binaries [FindBin] finds,
// in a new temporary directory that also holds the server's Unix socket. The
// server listens on no TCP port, trusts every local connection, uses UTF8 and
// the C locale, and turns off durability (fsync, full_page_writes,
// synchronous_commit): a crash loses nothing anyone wants. Each test binary
// gets its own directory, so the binaries go test ./... runs in parallel do
// not collide.
//
// PostgreSQL refuses to run as root. When the process is root, the
// directory is given to the postgres OS user and initdb, pg_ctl and postgres
// run as that user through [syscall.Credential]; sudo is not needed.
//
// # Without a server
//
// On a machine without PostgreSQL, [Start] fails with an error wrapping
// [ErrNoServer] and [DSN] skips the test. When $CI is set or
// $PGCACHE_REQUIRE_DB is 1, a missing server fails the run instead.
package pgtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// ErrNoServer is wrapped by the error [Start] returns when no PostgreSQL
// server binaries exist at all.
var ErrNoServer = errors.New("pgtest: no PostgreSQL server binaries found")

// Port is the port in every cluster's DSN. It names the socket file,
// .s.PGSQL.5432, in the cluster's own directory; no TCP port is opened, so
// clusters never compete for it.
const Port = 5432

const (
	dirPrefix = "pgtest-"
	// ownerFile holds the PID of the process that made a cluster directory,
	// so a later Start can remove clusters whose owner died without Stop
	// (a test binary killed by -timeout, for one).
	ownerFile = "pgtest.pid"
	logFile   = "server.log"
	dataDir   = "data"
	// maxSocketDir leaves room for "/.s.PGSQL.5432" within the 104 bytes
	// (macOS) or 108 bytes (Linux) of a Unix socket address.
	maxSocketDir = 80
)

// settings are appended to postgresql.conf. They make the server quick to
// start and stop and light enough to run one per test binary.
var settings = [][2]string{
	{"listen_addresses", ""},
	{"fsync", "off"},
	{"synchronous_commit", "off"},
	{"full_page_writes", "off"},
	{"shared_buffers", "32MB"},
	// JIT compilation would make benchmark timings depend on cost estimates.
	{"jit", "off"},
}

// Cluster is a PostgreSQL server started by [Start] on a temporary directory
// and a Unix socket. Its methods are safe for concurrent use.
type Cluster struct {
	bin     string // directory of initdb, pg_ctl and postgres
	dir     string // socket, log and owner file; the data directory is below
	version string
	cred    *syscall.Credential // the postgres user when we are root, else nil
	env     []string

	primary *Cluster // the cluster this one is a streaming standby of, or nil
	slot    string   // the standby's replication slot on primary

	stopOnce sync.Once
	stopErr  error
}

// Start creates and starts a new cluster. It returns once the server accepts
// connections. Cancelling ctx aborts the start and removes what was made.
// The caller owns the cluster and must call [Cluster.Stop].
func Start(ctx context.Context) (*Cluster, error) {
	bin, err := FindBin()
	if err != nil {
		return nil, err
	}
	cred, err := serverCredential()
	if err != nil {
		return nil, err
	}
	base := tempBase(cred)
	reapStale(base, bin, cred)

	dir, err := os.MkdirTemp(base, dirPrefix)
	if err != nil {
		return nil, fmt.Errorf("pgtest: %w", err)
	}
	c := &Cluster{bin: bin, dir: dir, cred: cred, env: serverEnv()}
	if err := c.start(ctx); err != nil {
		if stopErr := c.Stop(); stopErr != nil {
			err = fmt.Errorf("%w\n(cleanup: %v)", err, stopErr)
		}
		return nil, err
	}
	return c, nil
}

func (c *Cluster) start(ctx context.Context) error {
	if err := os.WriteFile(filepath.Join(c.dir, ownerFile), []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
		return fmt.Errorf("pgtest: %w", err)
	}
	if c.cred != nil {
		if err := os.Chown(c.dir, int(c.cred.Uid), int(c.cred.Gid)); err != nil {
			return fmt.Errorf("pgtest: giving %s to the postgres user: %w", c.dir, err)
		}
	}

	out, err := c.command(ctx, "postgres", "--version").CombinedOutput()
	if err != nil {
		return fmt.Errorf("pgtest: %s/postgres --version: %w: %s", c.bin, err, bytes.TrimSpace(out))
	}
	if c.version, err = parseServerVersion(string(out)); err != nil {
		return err
	}

	data := filepath.Join(c.dir, dataDir)
	out, err = c.command(ctx, "initdb", "-D", data, "-U", "postgres", "-A", "trust",
		"-E", "UTF8", "--locale=C", "--no-sync").CombinedOutput()
	if err != nil {
		return fmt.Errorf("pgtest: initdb: %w\n%s", err, bytes.TrimSpace(out))
	}
	if err := c.writeConfig(filepath.Join(data, "postgresql.conf")); err != nil {
		return err
	}

	out, err = c.command(ctx, "pg_ctl", "start", "-w", "-t", "120", "-D", data,
		"-l", filepath.Join(c.dir, logFile)).CombinedOutput()
	if err != nil {
		return fmt.Errorf("pgtest: pg_ctl start (PostgreSQL %s in %s): %w\n%s\n%s",
			c.version, c.bin, err, bytes.TrimSpace(out), c.logTail())
	}
	return nil
}

// writeConfig appends [settings], the socket directory and the port to the
// postgresql.conf initdb wrote. Later lines win.
func (c *Cluster) writeConfig(path string) error {
	var b strings.Builder
	b.WriteString("\n# pgtest\n")
	all := append(append(settings[:len(settings):len(settings)], replicationSettings...),
		[2]string{"unix_socket_directories", c.dir},
		[2]string{"port", strconv.Itoa(Port)})
	for _, kv := range all {
		fmt.Fprintf(&b, "%s = '%s'\n", kv[0], strings.ReplaceAll(kv[1], "'", "''"))
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err == nil {
		_, err = f.WriteString(b.String())
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return fmt.Errorf("pgtest: writing server settings: %w", err)
	}
	return nil
}

// Stop stops the server (pg_ctl stop -m immediate: nothing is worth saving)
// and removes its directory. Later calls return the first call's result.
func (c *Cluster) Stop() error {
	c.stopOnce.Do(func() { c.stopErr = stopDir(c.dir, c.bin, c.cred) })
	return c.stopErr
}

// stopDir stops any server running on the cluster directory dir and removes
// dir. It serves [Cluster.Stop] and [reapStale].
func stopDir(dir, bin string, cred *syscall.Credential) error {
	var errs []error
	data := filepath.Join(dir, dataDir)
	if _, err := os.Stat(filepath.Join(data, "postmaster.pid")); err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		c := &Cluster{bin: bin, dir: dir, cred: cred, env: serverEnv()}
		out, err := c.command(ctx, "pg_ctl", "stop", "-w", "-t", "60", "-m", "immediate", "-D", data).CombinedOutput()
		if err != nil {
			errs = append(errs, fmt.Errorf("pgtest: pg_ctl stop: %w\n%s\n%s", err, bytes.TrimSpace(out), c.logTail()))
		}
	}
	if err := os.RemoveAll(dir); err != nil {
		errs = append(errs, fmt.Errorf("pgtest: %w", err))
	}
	return errors.Join(errs...)
}

// Restart restarts the server on the same directory and socket, as an
// administrator's restart does: pg_ctl restart -m fast, which terminates
// every session (each sees SQLSTATE 57P01) and aborts running queries. It
// returns once the server accepts connections again. Data survives.
func (c *Cluster) Restart(ctx context.Context) error {
	out, err := c.command(ctx, "pg_ctl", "restart", "-w", "-t", "120", "-m", "fast",
		"-D", filepath.Join(c.dir, dataDir), "-l", filepath.Join(c.dir, logFile)).CombinedOutput()
	if err != nil {
		return fmt.Errorf("pgtest: pg_ctl restart: %w\n%s\n%s", err, bytes.TrimSpace(out), c.logTail())
	}
	return nil
}

// DSN returns a keyword/value connection string for the cluster:
//
//	host=/tmp/pgtest-123 port=5432 user=postgres dbname=postgres sslmode=disable
func (c *Cluster) DSN() string { return keywordDSN(c.dir) }

// URL returns the [Cluster.DSN] as a postgres:// URL. The socket directory
// travels as the host query parameter:
//
//	postgres://postgres@/postgres?host=%2Ftmp%2Fpgtest-123&port=5432&sslmode=disable
func (c *Cluster) URL() string { return urlDSN(c.dir) }

// Version returns the server version, such as "15.18".
func (c *Cluster) Version() string { return c.version }

// Dir returns the cluster's directory: the socket, server.log, and the data
// directory below it. Stop removes it.
func (c *Cluster) Dir() string { return c.dir }

func keywordDSN(socketDir string) string {
	return fmt.Sprintf("host=%s port=%d user=postgres dbname=postgres sslmode=disable", quoteValue(socketDir), Port)
}

func urlDSN(socketDir string) string {
	q := url.Values{"host": {socketDir}, "port": {strconv.Itoa(Port)}, "sslmode": {"disable"}}.Encode()
	u := url.URL{
		Scheme: "postgres",
		User:   url.User("postgres"),
		Path:   "/postgres",
		// libpq and pgx read '+' in a URL as itself, not as a space.
		// Encode has escaped every literal '+' as %2B.
		RawQuery: strings.ReplaceAll(q, "+", "%20"),
	}
	return u.String()
}

// quoteValue quotes a keyword/value DSN value the way libpq reads it: single
// quotes around values that are empty or hold spaces, and backslash before
// quotes and backslashes inside.
func quoteValue(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n\v\f\r'\\") {
		return s
	}
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// command runs a server tool as the postgres user when we are root, in the
// cluster directory (initdb fails if it cannot read its working directory).
func (c *Cluster) command(ctx context.Context, tool string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, filepath.Join(c.bin, tool), args...)
	cmd.Dir = c.dir
	cmd.Env = c.env
	if c.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred}
	}
	// pg_ctl sends the server's output to the log file, but should anything
	// inherit our pipes, do not wait on it forever.
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// logTail returns the last lines of the server log for error messages.
func (c *Cluster) logTail() string {
	const lines = 30
	path := filepath.Join(c.dir, logFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("(no server log: %v)", err)
	}
	all := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(all) > lines {
		all = all[len(all)-lines:]
	}
	return fmt.Sprintf("--- tail of %s ---\n%s", path, strings.Join(all, "\n"))
}

// serverEnv is our environment without what would redirect the server tools:
// PG* variables (PGDATA, PGPORT, PGOPTIONS…) and locale settings, replaced
// by LC_ALL=C so a locale missing from the machine cannot fail initdb.
func serverEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "PG") || strings.HasPrefix(kv, "LC_") || strings.HasPrefix(kv, "LANG") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "LC_ALL=C")
}

// serverCredential returns the postgres user to run the server as when we are
// root, and nil otherwise.
func serverCredential() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("pgtest: running as root, PostgreSQL needs a postgres OS user to run as: %w", err)
	}
	uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err := errors.Join(err1, err2); err != nil {
		return nil, fmt.Errorf("pgtest: postgres user: %w", err)
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}}, nil
}

// tempBase returns the directory to make cluster directories in: the usual
// temporary directory unless the socket path would be too long or, when the
// server runs as another user, that user could not reach it.
func tempBase(cred *syscall.Credential) string {
	base := os.TempDir()
	if len(base)+len("/"+dirPrefix+"1234567890") > maxSocketDir || (cred != nil && !reachableByOthers(base)) {
		return "/tmp"
	}
	return base
}

// reachableByOthers reports whether every directory from / to dir may be
// searched by any user.
func reachableByOthers(dir string) bool {
	dir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return false
	}
	for {
		fi, err := os.Stat(dir)
		if err != nil || fi.Mode().Perm()&0o001 == 0 {
			return false
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return true
		}
		dir = parent
	}
}

// reapStale stops and removes cluster directories under base whose owner
// process is gone. Go's test timeout panics without running TestMain's
// cleanup, and pg_ctl detaches the server from our session, so such a
// server would otherwise run until reboot. Errors are ignored: the
// directory may belong to another user, or another process may be reaping it.
func reapStale(base, bin string, cred *syscall.Credential) {
	dirs, _ := filepath.Glob(filepath.Join(base, dirPrefix+"*"))
	for _, dir := range dirs {
		b, err := os.ReadFile(filepath.Join(dir, ownerFile))
		if err != nil {
			continue // not ours, or its owner is still writing it
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil || pid <= 0 || processExists(pid) {
			continue
		}
		_ = stopDir(dir, bin, cred)
	}
}

func processExists(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
