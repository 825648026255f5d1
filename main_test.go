package pgcache_test

import (
	"context"
	"database/sql"
	sqldriver "database/sql/driver"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/pgcache/pgcache/cache"
	"github.com/pgcache/pgcache/internal/difftest"
	"github.com/pgcache/pgcache/internal/pgtest"
)

// TestMain runs every test of the package against one throwaway PostgreSQL
// cluster (or the server $PGCACHE_TEST_DSN names), and prints which before
// the tests start. Tests that log in as roles of their own or through
// PgBouncer use pgtest.OwnServer, a cluster of the binary's own.
//
// Tests that assert exact [pgcache.Stats] deltas call [pgcache.ResetCache]
// and do not call t.Parallel: the cache is process-wide, and Go runs parallel
// tests only after every sequential top-level test has returned, so nothing
// else reads through the cache while they run.
func TestMain(m *testing.M) { pgtest.Main(m) }

// drivers are the two database/sql drivers every differential test compares:
// pgx stdlib is the reference.
const (
	stdDriver = difftest.Std
	pcDriver  = difftest.PgCache
)

// The helpers the root package's external tests share with the integration
// module, under the short names the tests call them by.
var (
	openDB       = pgtest.OpenDB          // opens a *sql.DB, closed when t ends
	openDBs      = difftest.OpenPair      // a *sql.DB of pgx stdlib and one of pgcache
	withParams   = pgtest.MustWithOptions // adds settings to a DSN, in its own form
	traffic      = difftest.Traffic       // the numeric and hstore cache traffic of a function
	compareLines = difftest.CompareLines
	mustDecimal  = difftest.MustDecimal
	mustHstore   = difftest.MustHstore
)

// record collects a run's observations, one line each.
type record = difftest.Record

// counts is the traffic part of a [cache.Stats], for exact comparisons.
type counts = cache.Counts

// countsDelta returns the traffic published to a table between the snapshots
// before and after.
func countsDelta(before, after cache.Stats) counts { return after.Since(before) }

// mustExec runs statements that must succeed.
func mustExec(t testing.TB, db *sql.DB, query string, args ...any) {
	t.Helper()
	if _, err := db.Exec(query, args...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

var hstoreOnce struct {
	sync.Once
	err error
}

// needHstore installs the hstore extension in the test database, once per
// test binary. Call it before opening a pgcache *sql.DB: a connection learns
// the hstore OID when it opens. Test binaries sharing a server through
// $PGCACHE_TEST_DSN may race to create it, so a failure is retried.
func needHstore(t testing.TB) {
	t.Helper()
	dsn := pgtest.DSN(t)
	hstoreOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		for attempt := 0; attempt < 3; attempt++ {
			var conn *pgx.Conn
			if conn, hstoreOnce.err = pgx.Connect(ctx, dsn); hstoreOnce.err != nil {
				return
			}
			_, hstoreOnce.err = conn.Exec(ctx, "create extension if not exists hstore")
			conn.Close(ctx)
			if hstoreOnce.err == nil {
				return
			}
		}
	})
	if hstoreOnce.err != nil {
		t.Fatalf("create extension hstore: %v", hstoreOnce.err)
	}
}

// errShow describes an error for comparison between drivers: its type, its
// text, the SQLSTATE of a server error and the well-known sentinels it
// matches. Two drivers that return the same error give the same description.
func errShow(err error) string {
	if err == nil {
		return "<nil>"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%T: %v", err, err)
	if pgErr, ok := errors.AsType[*pgconn.PgError](err); ok {
		fmt.Fprintf(&b, " [SQLSTATE %s]", pgErr.Code)
	}
	for _, s := range []struct {
		name string
		err  error
	}{
		{"sql.ErrNoRows", sql.ErrNoRows},
		{"sql.ErrTxDone", sql.ErrTxDone},
		{"sql.ErrConnDone", sql.ErrConnDone},
		{"driver.ErrBadConn", sqldriver.ErrBadConn},
		{"pgx.ErrTxClosed", pgx.ErrTxClosed},
		{"pgx.ErrTxCommitRollback", pgx.ErrTxCommitRollback},
		{"context.Canceled", context.Canceled},
		{"context.DeadlineExceeded", context.DeadlineExceeded},
	} {
		if errors.Is(err, s.err) {
			b.WriteString(" is " + s.name)
		}
	}
	return b.String()
}

func isURL(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// keywordDSN converts a postgres:// URL to an equivalent keyword/value DSN
// and adds params. A keyword/value DSN is returned with params added. With
// urlDSN it lets a test run in both DSN forms whichever form
// $PGCACHE_TEST_DSN has.
func keywordDSN(t testing.TB, dsn string, params ...string) string {
	t.Helper()
	if !isURL(dsn) {
		return withParams(t, dsn, params...)
	}
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatalf("parsing %q: %v", dsn, err)
	}
	var kv []string
	if u.User != nil {
		kv = append(kv, "user", u.User.Username())
		if p, ok := u.User.Password(); ok {
			kv = append(kv, "password", p)
		}
	}
	if u.Host != "" {
		// host:port[,host:port…] becomes host=h1,h2 port=p1,p2, as libpq
		// reads multiple hosts.
		var hosts, ports []string
		for _, hp := range strings.Split(u.Host, ",") {
			h, p := hp, ""
			if i := strings.LastIndexByte(hp, ':'); i >= 0 && !strings.HasSuffix(hp, "]") {
				h, p = hp[:i], hp[i+1:]
			}
			hosts = append(hosts, strings.Trim(h, "[]"))
			ports = append(ports, p)
		}
		kv = append(kv, "host", strings.Join(hosts, ","))
		if strings.Join(ports, "") != "" {
			kv = append(kv, "port", strings.Join(ports, ","))
		}
	}
	if db := strings.TrimPrefix(u.Path, "/"); db != "" {
		kv = append(kv, "dbname", db)
	}
	q := u.Query()
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		kv = append(kv, k, q.Get(k)) // later keys override: host, port, dbname in the query win
	}
	return withParams(t, withParams(t, "", kv...), params...)
}

// urlDSN converts a keyword/value DSN to an equivalent postgres:// URL, every
// setting travelling as a query parameter, and adds params. A URL is returned
// with params added.
func urlDSN(t testing.TB, dsn string, params ...string) string {
	t.Helper()
	if isURL(dsn) {
		return withParams(t, dsn, params...)
	}
	q := url.Values{}
	kv, err := parseKeywordDSN(dsn)
	if err != nil {
		t.Fatalf("parsing %q: %v", dsn, err)
	}
	for i := 0; i < len(kv); i += 2 {
		q.Set(kv[i], kv[i+1])
	}
	for i := 0; i < len(params); i += 2 {
		q.Set(params[i], params[i+1])
	}
	// pgx reads '+' in a URL query as itself, not as a space.
	return "postgres:///?" + strings.ReplaceAll(q.Encode(), "+", "%20")
}

// parseKeywordDSN splits a libpq keyword/value DSN into key, value, key,
// value, ... with single-quoted values unquoted.
func parseKeywordDSN(s string) ([]string, error) {
	var kv []string
	for {
		s = strings.TrimLeft(s, " \t\n\r")
		if s == "" {
			return kv, nil
		}
		eq := strings.IndexByte(s, '=')
		if eq < 0 {
			return nil, fmt.Errorf("missing '=' in %q", s)
		}
		key := strings.TrimSpace(s[:eq])
		s = strings.TrimLeft(s[eq+1:], " \t")
		var val strings.Builder
		if strings.HasPrefix(s, "'") {
			i := 1
			for ; i < len(s) && s[i] != '\''; i++ {
				if s[i] == '\\' && i+1 < len(s) {
					i++
				}
				val.WriteByte(s[i])
			}
			if i == len(s) {
				return nil, fmt.Errorf("unterminated quote in %q", s)
			}
			s = s[i+1:]
		} else {
			end := strings.IndexAny(s, " \t\n\r")
			if end < 0 {
				end = len(s)
			}
			val.WriteString(s[:end])
			s = s[end:]
		}
		kv = append(kv, key, val.String())
	}
}
