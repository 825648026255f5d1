package pgtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// EnvPgBouncer names the pgbouncer binary to use instead of the one
// [FindPgBouncer] finds.
const EnvPgBouncer = "PGCACHE_PGBOUNCER"

// ErrNoPgBouncer is wrapped by the error [FindPgBouncer] returns when there
// is no pgbouncer binary.
var ErrNoPgBouncer = errors.New("pgtest: no pgbouncer binary found")

// PgBouncerPort names the Unix socket of every PgBouncer this package starts,
// .s.PGSQL.6432 in its own directory. It listens on no TCP port.
const PgBouncerPort = 6432

const (
	bouncerDirPrefix = "pgbouncer-"
	bouncerPIDFile   = "pgbouncer.pid"
	bouncerLogFile   = "pgbouncer.log"
)

// debianPgBouncer is where Debian's pgbouncer package installs the binary,
// which is not on a non-root user's $PATH.
const debianPgBouncer = "/usr/sbin/pgbouncer"

// FindPgBouncer returns the pgbouncer binary: $PGCACHE_PGBOUNCER if set, else
// pgbouncer on $PATH, else /usr/sbin/pgbouncer. The error wraps
// [ErrNoPgBouncer] when there is none.
func FindPgBouncer() (string, error) {
	if p := os.Getenv(EnvPgBouncer); p != "" {
		if _, err := exec.LookPath(p); err != nil {
			return "", fmt.Errorf("pgtest: $%s=%q: %w", EnvPgBouncer, p, err)
		}
		return p, nil
	}
	if p, err := exec.LookPath("pgbouncer"); err == nil {
		return p, nil
	}
	if _, err := exec.LookPath(debianPgBouncer); err == nil {
		return debianPgBouncer, nil
	}
	return "", fmt.Errorf("%w: none on $PATH nor at %s; install it (Debian: apt-get install pgbouncer) or set $%s",
		ErrNoPgBouncer, debianPgBouncer, EnvPgBouncer)
}

// PgBouncer is a PgBouncer process in transaction pooling mode, started by
// [StartPgBouncer] in front of a PostgreSQL server, on a Unix socket in a
// temporary directory. Its methods are safe for concurrent use.
type PgBouncer struct {
	dir  string
	dsn  string
	cmd  *exec.Cmd
	done chan struct{} // closed when the process has exited
	err  error         // the process's exit status, set before done closes

	stopOnce sync.Once
	stopErr  error
}

// StartPgBouncer starts PgBouncer in transaction pooling mode in front of the
// server serverDSN points at (a keyword/value DSN or URL; its user and
// database are the ones the returned [PgBouncer.DSN] connects as), with at
// most poolSize server connections per user and database. Every database
// name is forwarded to the server. When the process is root, PgBouncer (which
// refuses to run as root) runs as the postgres OS user, as the server does.
// It returns once PgBouncer listens. The caller must call [PgBouncer.Stop].
func StartPgBouncer(ctx context.Context, serverDSN string, poolSize int) (*PgBouncer, error) {
	bin, err := FindPgBouncer()
	if err != nil {
		return nil, err
	}
	server, err := pgconn.ParseConfig(serverDSN)
	if err != nil {
		return nil, fmt.Errorf("pgtest: parsing the server DSN: %w", err)
	}
	cred, err := serverCredential()
	if err != nil {
		return nil, err
	}
	base := tempBase(cred)
	reapStaleBouncers(base)
	dir, err := os.MkdirTemp(base, bouncerDirPrefix)
	if err != nil {
		return nil, fmt.Errorf("pgtest: %w", err)
	}
	b := &PgBouncer{dir: dir, done: make(chan struct{})}
	if err := b.start(ctx, bin, server, poolSize, cred); err != nil {
		if stopErr := b.Stop(); stopErr != nil {
			err = fmt.Errorf("%w\n(cleanup: %v)", err, stopErr)
		}
		return nil, err
	}
	database := server.Database
	if database == "" {
		database = server.User
	}
	b.dsn = fmt.Sprintf("host=%s port=%d user=%s dbname=%s sslmode=disable",
		quoteValue(dir), PgBouncerPort, quoteValue(server.User), quoteValue(database))
	return b, nil
}

func (b *PgBouncer) start(ctx context.Context, bin string, server *pgconn.Config, poolSize int, cred *syscall.Credential) error {
	if err := os.WriteFile(filepath.Join(b.dir, ownerFile), []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
		return fmt.Errorf("pgtest: %w", err)
	}
	// PgBouncer checks the user against auth_file even with auth_type=trust,
	// and logs in to the server with the password it finds there.
	users := fmt.Sprintf("%s %s\n", quoteAuth(server.User), quoteAuth(server.Password))
	conf := strings.Join([]string{
		"[databases]",
		// The fallback entry: any database name, on the one server.
		fmt.Sprintf("* = host=%s port=%d", quoteValue(server.Host), server.Port),
		"",
		"[pgbouncer]",
		"pool_mode = transaction",
		"unix_socket_dir = " + b.dir,
		"listen_port = " + strconv.Itoa(PgBouncerPort),
		"auth_type = trust",
		"auth_file = " + filepath.Join(b.dir, "userlist.txt"),
		"pidfile = " + filepath.Join(b.dir, bouncerPIDFile),
		"logfile = " + filepath.Join(b.dir, bouncerLogFile),
		"default_pool_size = " + strconv.Itoa(poolSize),
		"min_pool_size = 0",
		"max_client_conn = 200",
		// lib/pq and JDBC send it; pgx does not. Harmless either way.
		"ignore_startup_parameters = extra_float_digits",
		"",
	}, "\n")
	for name, text := range map[string]string{"userlist.txt": users, "pgbouncer.ini": conf} {
		if err := os.WriteFile(filepath.Join(b.dir, name), []byte(text), 0o644); err != nil {
			return fmt.Errorf("pgtest: %w", err)
		}
	}
	if cred != nil {
		for _, name := range []string{"", "userlist.txt", "pgbouncer.ini"} {
			if err := os.Chown(filepath.Join(b.dir, name), int(cred.Uid), int(cred.Gid)); err != nil {
				return fmt.Errorf("pgtest: giving %s to the postgres user: %w", b.dir, err)
			}
		}
	}

	// Not CommandContext: ctx bounds the start, not the process's life.
	out, err := os.Create(filepath.Join(b.dir, "stderr.log"))
	if err != nil {
		return fmt.Errorf("pgtest: %w", err)
	}
	defer out.Close()
	cmd := exec.Command(bin, filepath.Join(b.dir, "pgbouncer.ini"))
	cmd.Dir = b.dir
	cmd.Env = serverEnv()
	cmd.Stdout, cmd.Stderr = out, out
	if cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	}
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		close(b.done)
		return fmt.Errorf("pgtest: starting %s: %w", bin, err)
	}
	b.cmd = cmd
	go func() {
		b.err = cmd.Wait()
		close(b.done)
	}()

	socket := filepath.Join(b.dir, ".s.PGSQL."+strconv.Itoa(PgBouncerPort))
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if _, err := os.Stat(socket); err == nil {
			return nil
		}
		select {
		case <-b.done:
			return fmt.Errorf("pgtest: pgbouncer exited before listening: %v\n%s", b.err, b.logTail())
		case <-ctx.Done():
			return fmt.Errorf("pgtest: waiting for pgbouncer to listen: %w\n%s", ctx.Err(), b.logTail())
		case <-tick.C:
		}
	}
}

// DSN returns a keyword/value DSN that connects through PgBouncer as the
// server DSN's user, to its database.
func (b *PgBouncer) DSN() string { return b.dsn }

// Dir returns PgBouncer's directory: its socket, configuration and logs.
func (b *PgBouncer) Dir() string { return b.dir }

// Stop stops PgBouncer (SIGTERM, then SIGKILL after 10 seconds) and removes
// its directory. Later calls return the first call's result.
func (b *PgBouncer) Stop() error {
	b.stopOnce.Do(func() {
		var errs []error
		if b.cmd != nil {
			_ = b.cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-b.done:
			case <-time.After(10 * time.Second):
				_ = b.cmd.Process.Kill()
				<-b.done
				errs = append(errs, fmt.Errorf("pgtest: pgbouncer ignored SIGTERM for 10s and was killed\n%s", b.logTail()))
			}
		}
		if err := os.RemoveAll(b.dir); err != nil {
			errs = append(errs, fmt.Errorf("pgtest: %w", err))
		}
		b.stopErr = errors.Join(errs...)
	})
	return b.stopErr
}

func (b *PgBouncer) logTail() string {
	var parts []string
	for _, name := range []string{bouncerLogFile, "stderr.log"} {
		data, err := os.ReadFile(filepath.Join(b.dir, name))
		if err != nil || len(data) == 0 {
			continue
		}
		lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
		if len(lines) > 20 {
			lines = lines[len(lines)-20:]
		}
		parts = append(parts, "--- tail of "+name+" ---\n"+strings.Join(lines, "\n"))
	}
	return strings.Join(parts, "\n")
}

// PgBouncerDSN starts a PgBouncer in transaction pooling mode with poolSize
// server connections in front of the server [OwnServer] returns (Main's
// cluster, or one of the binary's own when the tests run against
// $PGCACHE_TEST_DSN: PgBouncer logs in to the server as the DSN's user,
// which peer authentication refuses), stops it when t ends, and returns the
// DSN to connect through it and the server's DSN, on which to create the
// test's tables or databases ([DatabaseOn]). Without a pgbouncer binary it
// skips t, or fails it when a database is [Required] (CI installs pgbouncer)
// or when $PGCACHE_PGBOUNCER names a missing binary.
func PgBouncerDSN(t testing.TB, poolSize int) (bouncer, server string) {
	t.Helper()
	DSN(t)
	if _, err := FindPgBouncer(); err != nil {
		if why, ok := Required(); ok {
			t.Fatalf("%s, but PgBouncer is missing: %v", why, err)
		}
		if !errors.Is(err, ErrNoPgBouncer) {
			t.Fatal(err) // $PGCACHE_PGBOUNCER names something that is not there
		}
		t.Skipf("skipped: %v", err)
	}
	dsn := OwnServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b, err := StartPgBouncer(ctx, dsn, poolSize)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := b.Stop(); err != nil {
			t.Error(err)
		}
	})
	return b.DSN(), dsn
}

// reapStaleBouncers stops and removes PgBouncer directories under base whose
// owner process is gone (a test binary killed by -timeout runs no cleanup),
// as [reapStale] does for clusters. Errors are ignored.
func reapStaleBouncers(base string) {
	dirs, _ := filepath.Glob(filepath.Join(base, bouncerDirPrefix+"*"))
	for _, dir := range dirs {
		owner, err := readPID(filepath.Join(dir, ownerFile))
		if err != nil || processExists(owner) {
			continue
		}
		// Kill only what is still pgbouncer: the PID may have been reused.
		if pid, err := readPID(filepath.Join(dir, bouncerPIDFile)); err == nil && isPgBouncer(pid) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		_ = os.RemoveAll(dir)
	}
}

func readPID(path string) (int, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || pid <= 0 {
		return 0, fmt.Errorf("pgtest: no PID in %s", path)
	}
	return pid, nil
}

// quoteAuth quotes a user name or password for PgBouncer's auth_file, whose
// fields are double-quoted with "" standing for one double quote.
func quoteAuth(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// isPgBouncer reports whether process pid runs pgbouncer, as far as /proc
// tells; without /proc it says no.
func isPgBouncer(pid int) bool {
	cmdline, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
	return err == nil && strings.Contains(string(cmdline), "pgbouncer")
}
