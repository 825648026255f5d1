package pgcache

import (
	"context"
	"database/sql"
	sqldriver "database/sql/driver"
	"fmt"
	"io"
	"maps"
	"runtime"
	"slices"
	"sync"
	"time"
	"weak"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/jackc/pgx/v5/tracelog"

	"github.com/pgcache/pgcache/driver"
)

// DriverName is the name pgcache registers with database/sql.
const DriverName = "pgcache"

var pgcacheDriver = &Driver{configs: make(map[string]*pgx.ConnConfig)}

func init() {
	// sql.Register panics on a duplicate name; another copy of this module
	// (a vendored fork, say) may already have taken it.
	if !slices.Contains(sql.Drivers(), DriverName) {
		sql.Register(DriverName, pgcacheDriver)
	}
}

// Compile-time checks that pgcache offers every interface pgx stdlib offers.
var (
	_ sqldriver.Driver             = (*Driver)(nil)
	_ sqldriver.DriverContext      = (*Driver)(nil)
	_ sqldriver.Connector          = (*connector)(nil)
	_ sqldriver.Conn               = (*Conn)(nil)
	_ sqldriver.ConnBeginTx        = (*Conn)(nil)
	_ sqldriver.ConnPrepareContext = (*Conn)(nil)
	_ sqldriver.ExecerContext      = (*Conn)(nil)
	_ sqldriver.QueryerContext     = (*Conn)(nil)
	_ sqldriver.Pinger             = (*Conn)(nil)
	_ sqldriver.SessionResetter    = (*Conn)(nil)
	_ sqldriver.NamedValueChecker  = (*Conn)(nil)
	_ sqldriver.StmtExecContext    = (*Stmt)(nil)
	_ sqldriver.StmtQueryContext   = (*Stmt)(nil)
)

// Driver is the database/sql driver registered as "pgcache". Its DSNs are pgx's
// (URL or keyword/value) plus pgcache's own options, which are removed before
// the rest reaches pgx.
type Driver struct {
	mu       sync.Mutex
	configs  map[string]*pgx.ConnConfig
	sequence int
}

// GetDefaultDriver returns the driver registered as "pgcache".
func GetDefaultDriver() sqldriver.Driver { return pgcacheDriver }

// Open opens a connection, as stdlib's driver does, with a 60-second limit on
// connecting. database/sql prefers OpenConnector.
func (d *Driver) Open(name string) (sqldriver.Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, err := d.OpenConnector(name)
	if err != nil {
		return nil, err
	}
	return c.Connect(ctx)
}

// OpenConnector parses name: a name returned by [RegisterConnConfig], a name
// returned by stdlib.RegisterConnConfig, or a DSN in either of pgx's forms. An
// unknown pgcache_* key or a malformed pgcache option value fails here, so
// sql.Open reports it. A DSN that pgx cannot parse fails at the first
// connection, as it does with pgx stdlib.
//
// A name from stdlib.RegisterConnConfig (spelled registeredConnConfig<n>) is
// handed to stdlib's own connector, which connects with the registered config
// exactly as sql.Open("pgx", name) would, and the cache uses its defaults.
// stdlib keeps that config to itself, so pgcache options cannot travel in its
// RuntimeParams: stdlib would send them to the server, which rejects them. If
// one does, the connection error says so and names the key. Register the
// config with [RegisterConnConfig] instead to use pgcache options.
func (d *Driver) OpenConnector(name string) (sqldriver.Connector, error) {
	d.mu.Lock()
	registered := d.configs[name]
	d.mu.Unlock()

	var cfg *pgx.ConnConfig
	if registered != nil {
		cfg = registered.Copy()
	} else if isStdlibRegisteredName(name) {
		inner, err := stdlib.GetDefaultDriver().(sqldriver.DriverContext).OpenConnector(name)
		if err != nil {
			return nil, err
		}
		return &connector{drv: d, opts: driver.DefaultOptions(), inner: stdlibRegisteredConnector{inner}}, nil
	} else {
		var err error
		if cfg, err = pgx.ParseConfig(name); err != nil {
			return &connector{drv: d, err: err}, nil
		}
	}
	opts, err := driver.Extract(cfg.RuntimeParams)
	if err != nil {
		return nil, err
	}
	return &connector{drv: d, opts: opts, inner: stdlib.GetConnector(*cfg)}, nil
}

// RegisterConnConfig registers a pgx.ConnConfig and returns a name to pass to
// sql.Open("pgcache", name), for settings a DSN cannot express (a tracer, a
// custom dialer). pgcache options may be set in c.RuntimeParams under their DSN
// keys; they are taken out before connecting. It mirrors stdlib's function of
// the same name. sql.Open("pgcache", name) also accepts the names stdlib's
// RegisterConnConfig returns; see [Driver.OpenConnector].
func RegisterConnConfig(c *pgx.ConnConfig) string {
	d := pgcacheDriver
	d.mu.Lock()
	defer d.mu.Unlock()
	name := fmt.Sprintf("pgcacheConnConfig%d", d.sequence)
	d.sequence++
	d.configs[name] = c
	return name
}

// UnregisterConnConfig removes a registration made by [RegisterConnConfig].
func UnregisterConnConfig(name string) {
	d := pgcacheDriver
	d.mu.Lock()
	delete(d.configs, name)
	d.mu.Unlock()
}

// GetConnector returns a connector for config, like stdlib.GetConnector, and
// accepts stdlib's options (stdlib.OptionBeforeConnect, OptionAfterConnect,
// OptionResetSession, OptionShouldPing). pgcache options may be given in
// config.RuntimeParams under their DSN keys; an error in them is returned by
// the connector's Connect.
func GetConnector(config pgx.ConnConfig, opts ...stdlib.OptionOpenDB) sqldriver.Connector {
	// Copy RuntimeParams: Extract deletes pgcache's keys and the caller's map
	// must stay as it was.
	config.RuntimeParams = maps.Clone(config.RuntimeParams)
	o, err := driver.Extract(config.RuntimeParams)
	if err != nil {
		return &connector{drv: pgcacheDriver, err: err}
	}
	return &connector{drv: pgcacheDriver, opts: o, inner: stdlib.GetConnector(config, opts...)}
}

// OpenDB opens a *sql.DB for config, like stdlib.OpenDB. See [GetConnector].
func OpenDB(config pgx.ConnConfig, opts ...stdlib.OptionOpenDB) *sql.DB {
	return sql.OpenDB(GetConnector(config, opts...))
}

// GetPoolConnector returns a connector that borrows connections from pool, like
// stdlib.GetPoolConnector. The cache is on for every column; use
// [GetPoolConnectorWithOptions] to change that (a pool's own RuntimeParams are
// sent to the server, so they cannot carry pgcache options).
func GetPoolConnector(pool *pgxpool.Pool, opts ...stdlib.OptionOpenDB) sqldriver.Connector {
	return GetPoolConnectorWithOptions(pool, driver.DefaultOptions(), opts...)
}

// GetPoolConnectorWithOptions is [GetPoolConnector] with pgcache options, for
// example those returned by driver.Extract on a map of DSN keys.
func GetPoolConnectorWithOptions(pool *pgxpool.Pool, o driver.Options, opts ...stdlib.OptionOpenDB) sqldriver.Connector {
	if err := CheckPoolConfig(pool.Config()); err != nil {
		return &connector{drv: pgcacheDriver, err: err}
	}
	return &connector{drv: pgcacheDriver, opts: o, inner: stdlib.GetPoolConnector(pool, opts...), pooled: true}
}

// OpenDBFromPool opens a *sql.DB over pool, like stdlib.OpenDBFromPool: it sets
// the maximum number of idle connections to zero, since the pool manages them,
// and closing the *sql.DB does not close the pool.
func OpenDBFromPool(pool *pgxpool.Pool, opts ...stdlib.OptionOpenDB) *sql.DB {
	db := sql.OpenDB(GetPoolConnector(pool, opts...))
	db.SetMaxIdleConns(0)
	return db
}

// connector makes pgcache connections on top of stdlib's connector, which does
// the connecting and runs the stdlib hooks.
type connector struct {
	drv    *Driver
	opts   driver.Options
	inner  sqldriver.Connector // a stdlib connector
	err    error               // a configuration error, returned by Connect
	pooled bool

	// setups remembers the catalog lookup for pool connections, which sql.DB
	// "connects" once per use when idle connections are disabled: the lookup
	// runs once per pgx connection, when the pool first hands it out, and is
	// forgotten when the pgx connection is garbage collected.
	setups sync.Map // weak.Pointer[pgx.Conn] -> *driver.Setup
}

// Connect opens a stdlib connection and learns from the catalog which columns
// the cache applies to (see driver.Resolve).
func (c *connector) Connect(ctx context.Context) (sqldriver.Conn, error) {
	if c.err != nil {
		return nil, c.err
	}
	dc, err := c.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	sc, ok := dc.(*stdlib.Conn)
	if !ok {
		dc.Close()
		return nil, fmt.Errorf("pgcache: stdlib connector returned %T, want *stdlib.Conn", dc)
	}
	pc := sc.Conn()
	setup, err := c.setup(ctx, pc)
	if err != nil {
		sc.Close()
		return nil, err
	}
	return &Conn{std: sc, conn: pc, setup: setup}, nil
}

// reportUnmatched records the connection's pgcache_disable entries that
// match nothing (see [CacheStats].UnmatchedDisable) and logs those not
// reported before at warn level through the connection's tracer, when it is
// a tracelog.TraceLog.
func (c *connector) reportUnmatched(ctx context.Context, pc *pgx.Conn, s *driver.Setup) {
	fresh := disableReports.note(c, databaseOf(pc), s)
	if len(fresh) == 0 {
		return
	}
	tl, ok := pc.Config().Tracer.(*tracelog.TraceLog)
	if !ok || tl.Logger == nil || tl.LogLevel < tracelog.LogLevelWarn {
		return
	}
	for _, col := range fresh {
		tl.Logger.Log(ctx, tracelog.LogLevelWarn, "pgcache: pgcache_disable entry matches no column", map[string]any{
			"entry":  col.String(),
			"detail": "no such table or column in this database (yet), or, for a bare name, no table or view column of that name; the entry has no effect on such columns",
		})
	}
}

// setup resolves pc's Setup (once per pgx connection of a pool) and reports
// its unmatched pgcache_disable entries.
func (c *connector) setup(ctx context.Context, pc *pgx.Conn) (*driver.Setup, error) {
	if !c.pooled {
		s, err := driver.Resolve(ctx, pc, c.opts)
		if err == nil {
			c.reportUnmatched(ctx, pc, s)
		}
		return s, err
	}
	key := weak.Make(pc)
	if s, ok := c.setups.Load(key); ok {
		return s.(*driver.Setup), nil
	}
	s, err := driver.Resolve(ctx, pc, c.opts)
	if err != nil {
		return nil, err
	}
	c.reportUnmatched(ctx, pc, s)
	if _, loaded := c.setups.LoadOrStore(key, s); !loaded {
		runtime.AddCleanup(pc, func(k weak.Pointer[pgx.Conn]) { c.setups.Delete(k) }, key)
	}
	return s, nil
}

// Driver returns the pgcache driver.
func (c *connector) Driver() sqldriver.Driver { return c.drv }

// Close forgets the pgcache_disable entries c's connections reported as
// matching nothing (see [CacheStats].UnmatchedDisable). database/sql calls
// it from DB.Close.
func (c *connector) Close() error {
	disableReports.forget(c)
	if cl, ok := c.inner.(io.Closer); ok {
		return cl.Close()
	}
	return nil
}

// Conn is pgcache's driver connection. Everything except reading query results
// is delegated to the pgx stdlib connection it wraps.
//
// Code that reaches pgx through sql.Conn.Raw asserts an interface instead of
// *stdlib.Conn:
//
//	err := sqlConn.Raw(func(dc any) error {
//		conn := dc.(interface{ Conn() *pgx.Conn }).Conn()
//		...
//	})
//
// That assertion works with both drivers.
type Conn struct {
	std   *stdlib.Conn
	conn  *pgx.Conn
	setup *driver.Setup

	// Rows of closed result sets, kept for later ones of the same plan
	// (plan.go); keepNext is the one replaced next when all are taken.
	kept     [keptPlans]*Rows
	keepNext int
}

// Conn returns the *pgx.Conn this connection uses: the very one, not a copy.
func (c *Conn) Conn() *pgx.Conn { return c.conn }

// Prepare prepares a statement; see [Conn.PrepareContext].
func (c *Conn) Prepare(query string) (sqldriver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

// PrepareContext prepares query on the server through stdlib, which shares one
// server statement between identical queries.
func (c *Conn) PrepareContext(ctx context.Context, query string) (sqldriver.Stmt, error) {
	st, err := c.std.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	return &Stmt{std: st.(*stdlib.Stmt), conn: c, query: query}, nil
}

// Close closes the connection (or returns it to its pgxpool).
func (c *Conn) Close() error {
	c.dropKept()
	return c.std.Close()
}

// Begin starts a transaction.
func (c *Conn) Begin() (sqldriver.Tx, error) {
	return c.std.BeginTx(context.Background(), sqldriver.TxOptions{})
}

// BeginTx starts a transaction with the given isolation level and access mode.
// Commit and Rollback return pgx's errors unwrapped.
func (c *Conn) BeginTx(ctx context.Context, opts sqldriver.TxOptions) (sqldriver.Tx, error) {
	return c.std.BeginTx(ctx, opts)
}

// ExecContext runs a statement that returns no rows.
func (c *Conn) ExecContext(ctx context.Context, query string, args []sqldriver.NamedValue) (sqldriver.Result, error) {
	return c.std.ExecContext(ctx, query, args)
}

// Ping checks the connection.
func (c *Conn) Ping(ctx context.Context) error { return c.std.Ping(ctx) }

// ResetSession runs stdlib's checks (and its ResetSession hook) before
// database/sql reuses the connection.
func (c *Conn) ResetSession(ctx context.Context) error { return c.std.ResetSession(ctx) }

// CheckNamedValue accepts every argument: pgx encodes driver.Valuer,
// sql.Scanner-compatible and native Go values itself.
func (c *Conn) CheckNamedValue(nv *sqldriver.NamedValue) error { return c.std.CheckNamedValue(nv) }

// resultFormats asks for binary results only for the fixed-size types that
// database/sql has native Go values for, exactly as pgx stdlib does; numeric
// and hstore therefore arrive as text, which is what the cache keys on.
var resultFormats = func() pgx.QueryResultFormatsByOID {
	binary := []uint32{
		pgtype.BoolOID, pgtype.ByteaOID, pgtype.CIDOID, pgtype.DateOID, pgtype.Float4OID, pgtype.Float8OID,
		pgtype.Int2OID, pgtype.Int4OID, pgtype.Int8OID, pgtype.OIDOID, pgtype.TimestampOID,
		pgtype.TimestamptzOID, pgtype.XIDOID,
	}
	f := make(pgx.QueryResultFormatsByOID, len(binary))
	for _, oid := range binary {
		f[oid] = pgx.BinaryFormatCode
	}
	return f
}()

// QueryContext runs query and returns pgcache's Rows. The first row is read
// before returning, as stdlib does, so that the columns are known.
func (c *Conn) QueryContext(ctx context.Context, query string, args []sqldriver.NamedValue) (sqldriver.Rows, error) {
	if c.conn.IsClosed() {
		return nil, sqldriver.ErrBadConn
	}
	qargs := make([]any, 1+len(args))
	qargs[0] = resultFormats
	for i, a := range args {
		qargs[i+1] = a.Value
	}
	rows, err := c.conn.Query(ctx, query, qargs...)
	if err != nil {
		if pgconn.SafeToRetry(err) {
			return nil, sqldriver.ErrBadConn
		}
		return nil, err
	}
	more := rows.Next()
	if err := rows.Err(); err != nil {
		rows.Close()
		return nil, err
	}
	return newRows(c, rows, more, query), nil
}

// Stmt is a prepared statement. Exec goes through stdlib; Query returns
// pgcache's Rows.
type Stmt struct {
	std   *stdlib.Stmt
	conn  *Conn
	query string
}

// Close deallocates the statement when no other Stmt shares it.
func (s *Stmt) Close() error { return s.std.Close() }

// NumInput returns the number of parameters.
func (s *Stmt) NumInput() int { return s.std.NumInput() }

// Exec is the pre-context method; like stdlib, pgcache only implements ExecContext.
func (s *Stmt) Exec(args []sqldriver.Value) (sqldriver.Result, error) { return s.std.Exec(args) }

// ExecContext executes the prepared statement.
func (s *Stmt) ExecContext(ctx context.Context, args []sqldriver.NamedValue) (sqldriver.Result, error) {
	return s.std.ExecContext(ctx, args)
}

// Query is the pre-context method; like stdlib, pgcache only implements QueryContext.
func (s *Stmt) Query(args []sqldriver.Value) (sqldriver.Rows, error) { return s.std.Query(args) }

// QueryContext runs the prepared statement. pgx finds the prepared statement
// by its SQL text, which is also its name.
func (s *Stmt) QueryContext(ctx context.Context, args []sqldriver.NamedValue) (sqldriver.Rows, error) {
	return s.conn.QueryContext(ctx, s.query, args)
}
