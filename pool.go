package pgcache

import (
	"context"
	"database/sql"
	sqldriver "database/sql/driver"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/pgcache/pgcache/driver"
)

// ParsePoolConfig parses a DSN for pgxpool (pgx's keys, pgxpool's pool_* keys
// and pgcache's options, in either DSN form) and returns the pool config with
// pgcache's options taken out, and those options. Pass the config to
// pgxpool.NewWithConfig (changing it first if need be) and the options to
// [GetPoolConnectorWithOptions]; [NewPool] does both.
//
// Without this, pgxpool.ParseConfig would keep pgcache's keys in
// ConnConfig.RuntimeParams and send them to the server, which refuses to
// connect (FATAL: unrecognized configuration parameter "pgcache"). An unknown
// pgcache_* key or a malformed value is an error naming the key, as in
// sql.Open.
func ParsePoolConfig(dsn string) (*pgxpool.Config, driver.Options, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, driver.Options{}, err
	}
	opts, err := driver.Extract(cfg.ConnConfig.RuntimeParams)
	if err != nil {
		return nil, driver.Options{}, err
	}
	return cfg, opts, nil
}

// NewPool creates a pgxpool from a DSN that may carry pgcache options (see
// [ParsePoolConfig]) and a *sql.DB that borrows the pool's connections with
// those options, as [OpenDBFromPool] does: the *sql.DB keeps no idle
// connections of its own and closing it does not close the pool. The caller
// owns both and closes the *sql.DB before the pool. opts are stdlib's hooks;
// as with stdlib.GetPoolConnector, only stdlib.OptionResetSession and
// stdlib.OptionShouldPing apply, since the pool does the connecting (set
// BeforeConnect and AfterConnect on the pgxpool.Config from ParsePoolConfig).
//
// Like pgxpool.New, NewPool does not connect; the first query does.
func NewPool(ctx context.Context, dsn string, opts ...stdlib.OptionOpenDB) (*pgxpool.Pool, *sql.DB, error) {
	cfg, o, err := ParsePoolConfig(dsn)
	if err != nil {
		return nil, nil, err
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	db := sql.OpenDB(GetPoolConnectorWithOptions(pool, o, opts...))
	db.SetMaxIdleConns(0)
	return pool, db, nil
}

// ErrOptionReachesServer is wrapped by the errors pgcache returns when a
// pgcache option sits where pgx would send it to the server as a run-time
// parameter: in the ConnConfig.RuntimeParams of a pool's config, or of a
// config registered with stdlib.RegisterConnConfig.
var ErrOptionReachesServer = errors.New("pgcache option would be sent to the server")

// CheckPoolConfig returns an error naming the key when cfg's
// ConnConfig.RuntimeParams hold a pgcache option: pgx sends those to the
// server, which rejects the connection. Build such a config with
// [ParsePoolConfig] instead, which takes the options out.
func CheckPoolConfig(cfg *pgxpool.Config) error {
	if cfg == nil || cfg.ConnConfig == nil {
		return nil
	}
	var keys []string
	for k := range cfg.ConnConfig.RuntimeParams {
		if isOptionKey(k) {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return nil
	}
	slices.Sort(keys)
	return fmt.Errorf("pgcache: %w: the pool config's ConnConfig.RuntimeParams hold %q; "+
		"build the pool with pgcache.NewPool or pgcache.ParsePoolConfig, which take pgcache options out of the DSN",
		ErrOptionReachesServer, keys[0])
}

// isOptionKey reports whether a run-time parameter name is one of pgcache's
// DSN keys, or spelled like one (driver.Extract rejects the unknown ones).
func isOptionKey(k string) bool {
	return strings.HasPrefix(strings.ToLower(k), driver.KeyCache)
}

// stdlibRegisteredPrefix starts every name stdlib.RegisterConnConfig returns
// (registeredConnConfig0, registeredConnConfig1, …). Such a name is never a
// DSN pgx can parse: it has neither a scheme nor a '='.
const stdlibRegisteredPrefix = "registeredConnConfig"

// isStdlibRegisteredName reports whether name is spelled like a name from
// stdlib.RegisterConnConfig. Whether it is registered is stdlib's business:
// stdlib's connector treats an unknown one as a DSN and fails to parse it,
// which is what sql.Open("pgx", name) does too.
func isStdlibRegisteredName(name string) bool {
	digits, ok := strings.CutPrefix(name, stdlibRegisteredPrefix)
	if !ok || digits == "" {
		return false
	}
	for i := range len(digits) {
		if digits[i] < '0' || digits[i] > '9' {
			return false
		}
	}
	return true
}

// stdlibRegisteredConnector is stdlib's connector for a name registered with
// stdlib.RegisterConnConfig. It connects exactly as stdlib does, and explains
// the server's refusal when the registered config carried a pgcache option.
type stdlibRegisteredConnector struct {
	inner sqldriver.Connector
}

func (c stdlibRegisteredConnector) Connect(ctx context.Context) (sqldriver.Conn, error) {
	dc, err := c.inner.Connect(ctx)
	if err != nil {
		if key, ok := rejectedOption(err); ok {
			return nil, fmt.Errorf("pgcache: %w: the config registered with stdlib.RegisterConnConfig has %q in "+
				"RuntimeParams, which stdlib sends to the server; register it with pgcache.RegisterConnConfig "+
				"to use pgcache options: %w", ErrOptionReachesServer, key, err)
		}
		return nil, err
	}
	return dc, nil
}

func (c stdlibRegisteredConnector) Driver() sqldriver.Driver { return c.inner.Driver() }

// rejectedOption reports whether err is the server refusing a pgcache key as
// a run-time parameter (SQLSTATE 42704, unrecognized configuration parameter),
// and which key.
func rejectedOption(err error) (string, bool) {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "42704" {
		return "", false
	}
	_, rest, ok := strings.Cut(pgErr.Message, `"`)
	if !ok {
		return "", false
	}
	key, _, ok := strings.Cut(rest, `"`)
	if !ok || !isOptionKey(key) {
		return "", false
	}
	return key, true
}
