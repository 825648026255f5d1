package bench

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	_ "github.com/jackc/pgx/v5/stdlib" // registers "pgx"
	_ "github.com/lib/pq"              // registers "postgres"
	pqhstore "github.com/lib/pq/hstore"
	"github.com/shopspring/decimal"

	"github.com/pgcache/pgcache"
)

// Driver names a way of reading rows. Its value is the driver= part of
// benchmark names.
type Driver string

const (
	// Pgcache is database/sql with pgcache, cache on.
	Pgcache Driver = "pgcache"
	// Pgx is database/sql with pgx v5's stdlib driver, the baseline.
	Pgx Driver = "pgx"
	// PgcacheOff is pgcache with the DSN option pgcache=off: pgcache's code
	// path without the cache, to isolate what the cache itself costs.
	PgcacheOff Driver = "pgcache-off"
	// Pq is database/sql with lib/pq ("postgres").
	Pq Driver = "pq"
	// PgxNative is pgx.Conn.Query and Rows.Scan without database/sql, in
	// pgx's default binary formats, with hstore registered: what a
	// performance-minded user does instead of database/sql.
	PgxNative Driver = "pgx-native"
	// PgcacheAll is pgcache with pgcache_types=all: every column kind the
	// option offers is cached too. It is measured on data sets of mixed
	// types and user queries only; on numeric and hstore data it is pgcache.
	PgcacheAll Driver = "pgcache+types"
)

// TypesOfAll is the pgcache_types value of the PgcacheAll driver: "all",
// or the value of $PGCACHE_BENCH_TYPES, which counts a set of kinds of
// one's choosing in its cells (bench/README.md, "The default kinds per
// toolchain").
func TypesOfAll() string {
	if v := os.Getenv("PGCACHE_BENCH_TYPES"); v != "" {
		return v
	}
	return "all"
}

// Drivers lists every driver in the order tables show them.
var Drivers = []Driver{Pgcache, PgcacheAll, Pgx, PgcacheOff, Pq, PgxNative}

// Dest names the Go type each value is scanned into. Its value is the dest=
// part of benchmark names.
type Dest string

const (
	// RawBytes is the floor: *sql.RawBytes, nothing decoded by the caller.
	// For [PgxNative] it is Rows.RawValues, the bytes off the wire.
	RawBytes       Dest = "RawBytes"
	String         Dest = "string"
	Any            Dest = "any"
	Float64        Dest = "float64"
	ApdDecimal     Dest = "apd.Decimal"
	ShopspringDec  Dest = "shopspring.Decimal"
	PgtypeNumeric  Dest = "pgtype.Numeric"
	PgcacheDecimal Dest = "pgcache.Decimal"
	// PgtypeHstore is *pgtype.Hstore, or for [Pq], which returns []byte that
	// pgtype.Hstore cannot scan, the closest equivalent:
	// *github.com/lib/pq/hstore.Hstore.
	PgtypeHstore  Dest = "pgtype.Hstore"
	PgcacheHstore Dest = "pgcache.Hstore"
	// StringMap is *map[string]string. database/sql scans an hstore into it
	// only on Go 1.27 and later, where the driver sees the destination, and
	// only with the hstore type registered on the connection, for pgx stdlib
	// and pgcache alike; these benchmarks do not register it, so only pgx
	// native reads it.
	StringMap Dest = "map[string]string"
	// PgcacheTypes scans numeric columns into *pgcache.Decimal, hstore
	// columns into *pgcache.Hstore and every other column into *any; for
	// user queries. Where the columns may hold NULL ([Workload].Nullable),
	// as a user query's may, into *pgcache.NullDecimal and
	// *pgcache.NullHstore.
	PgcacheTypes Dest = "pgcache-types"
	// Natural scans each column of a mixed data set into the Go type an
	// application would use: int8 into *int64, int4 into *int32, date and
	// timestamps into *time.Time, and everything else — text, char,
	// varchar, enums, numeric and hstore — into *string.
	Natural Dest = "natural"
	// Typed is [Natural] but for numeric columns, scanned into
	// *apd.Decimal, and hstore columns, into *pgtype.Hstore (for [Pq] its
	// own hstore type, as with [PgtypeHstore]): an application that wants
	// values rather than texts, with pgx stdlib.
	Typed Dest = "typed"
	// PgcacheTyped is [Natural] but for numeric columns, scanned into
	// *pgcache.Decimal, and hstore columns, into *pgcache.Hstore.
	PgcacheTyped Dest = "pgcache-typed"
)

// Dests returns the destinations benchmarked for columns of kind k.
func Dests(k Kind) []Dest {
	switch k {
	case Numeric:
		return []Dest{RawBytes, String, Any, Float64, ApdDecimal, ShopspringDec, PgtypeNumeric, PgcacheDecimal}
	case Hstore:
		return []Dest{RawBytes, String, PgtypeHstore, PgcacheHstore, StringMap}
	case Lines:
		return []Dest{RawBytes, Natural}
	}
	return []Dest{RawBytes, Any, PgcacheTypes}
}

// Cell is one driver reading into one destination.
type Cell struct {
	Driver Driver
	Dest   Dest
}

func (c Cell) String() string { return string(c.Driver) + "/" + string(c.Dest) }

// Supported reports whether c makes sense for columns of kind k, and if not,
// why not.
func (c Cell) Supported(k Kind) (ok bool, why string) {
	switch {
	case c.Driver == Pq && c.Dest == PgtypeNumeric:
		// lib/pq hands numeric over as []byte and pgtype.Numeric.Scan takes
		// only strings; lib/pq has no numeric type of its own.
		return false, "lib/pq returns []byte, which pgtype.Numeric cannot scan"
	case c.Dest == StringMap && c.Driver != PgxNative:
		return false, "database/sql scans an hstore into a map only with the hstore type registered on the connection"
	case c.Driver == PgxNative && k == Hstore && c.Dest == String:
		// With hstore registered pgx reads it in binary, and its hstore codec
		// scans binary only into map types.
		return false, "pgx cannot scan binary hstore into *string"
	}
	return true, ""
}

// Cells returns every supported cell for data of kind k, destination-major,
// so that the drivers compared for one destination run next to each other.
// [DataSet.Cells] is the same for a data set, with its own destinations.
func Cells(k Kind) []Cell { return cellsOf(k, Dests(k)) }

func cellsOf(k Kind, dests []Dest) []Cell {
	var cells []Cell
	for _, dest := range dests {
		for _, drv := range Drivers {
			c := Cell{drv, dest}
			if drv == PgcacheAll && (k == Numeric || k == Hstore) {
				continue // pgcache_types does not change numeric and hstore columns
			}
			if ok, _ := c.Supported(k); ok {
				cells = append(cells, c)
			}
		}
	}
	return cells
}

// Workload is a query and how to read its columns.
type Workload struct {
	Name  string
	Query string
	Kinds []Kind // one per result column
	// Types are the columns' SQL types, for [Natural].
	Types []string
	// Nullable says the columns may hold NULL (user queries):
	// [PgcacheTypes] scans them into pgcache's Null types.
	Nullable bool
	// Columns are a user query's result columns (see [Env.QueryWorkload]).
	Columns []QueryColumn
	// ReadOnly runs each query in a READ ONLY transaction (user queries).
	ReadOnly bool
	// Kind is the kind whose cache table the hit ratio is taken from;
	// Other means both tables.
	Kind Kind
}

// Workload returns the full-table scan of d.
func (d DataSet) Workload() Workload {
	kinds := make([]Kind, len(d.Columns))
	types := make([]string, len(d.Columns))
	for i := range kinds {
		kinds[i], types[i] = d.Kind, d.Columns[i].Type
	}
	return Workload{Name: d.Name, Query: d.Query(), Kinds: kinds, Types: types, Kind: d.Kind}
}

// Env holds one connection per [Driver] to one database. It is not safe for
// concurrent use: each query uses the driver's only connection.
type Env struct {
	dbs    map[Driver]*sql.DB
	native *pgx.Conn
	// unavailable holds the drivers that could not connect, and why.
	unavailable map[Driver]error
}

// required are the drivers without which nothing can be compared: pgcache,
// and pgx stdlib, the baseline. Open fails without them.
var required = []Driver{Pgcache, Pgx}

// Open connects every driver to the database dsn names (keyword/value or URL;
// lib/pq reads both). Create the hstore extension, if wanted, before: see
// [CreateHstore]. A driver other than pgcache and pgx stdlib that cannot
// connect (lib/pq refuses some DSNs pgx accepts, such as one without
// sslmode to a server without SSL) is left out and reported by
// [Env.Unavailable]; its cells cannot be scanned.
func Open(ctx context.Context, dsn string) (*Env, error) {
	e := &Env{dbs: make(map[Driver]*sql.DB), unavailable: make(map[Driver]error)}
	names := map[Driver][2]string{
		Pgcache:    {"pgcache", dsn},
		Pgx:        {"pgx", dsn},
		PgcacheOff: {"pgcache", WithParam(dsn, "pgcache", "off")},
		PgcacheAll: {"pgcache", WithParam(dsn, "pgcache_types", TypesOfAll())},
		Pq:         {"postgres", dsn},
	}
	for drv, n := range names {
		db, err := sql.Open(n[0], n[1])
		if err == nil {
			db.SetMaxOpenConns(1)
			db.SetMaxIdleConns(1)
			err = db.PingContext(ctx)
		}
		if err == nil {
			e.dbs[drv] = db
			continue
		}
		if db != nil {
			db.Close()
		}
		if slices.Contains(required, drv) || ctx.Err() != nil {
			e.Close()
			return nil, fmt.Errorf("bench: connecting %s: %w", drv, err)
		}
		e.unavailable[drv] = err
	}
	var err error
	if e.native, err = pgx.Connect(ctx, dsn); err != nil {
		e.Close()
		return nil, fmt.Errorf("bench: connecting %s: %w", PgxNative, err)
	}
	var oid *uint32
	if err := e.native.QueryRow(ctx, "select to_regtype('hstore')::oid").Scan(&oid); err != nil {
		e.Close()
		return nil, fmt.Errorf("bench: %w", err)
	}
	if oid != nil {
		// As pgtype's documentation suggests for extension types.
		e.native.TypeMap().RegisterType(&pgtype.Type{Name: "hstore", OID: *oid, Codec: pgtype.HstoreCodec{}})
	}
	return e, nil
}

// Unavailable returns the drivers [Open] could not connect, each with its
// error. The caller must not change the map.
func (e *Env) Unavailable() map[Driver]error { return e.unavailable }

// Close closes every connection.
func (e *Env) Close() error {
	var errs []error
	for _, db := range e.dbs {
		errs = append(errs, db.Close())
	}
	if e.native != nil {
		errs = append(errs, e.native.Close(context.Background()))
	}
	return errors.Join(errs...)
}

// WithParam adds key=value to a keyword/value or URL DSN.
func WithParam(dsn, key, value string) string {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		if u, err := url.Parse(dsn); err == nil {
			q := u.Query()
			q.Set(key, value)
			// pgx reads '+' as itself, not as a space; Encode has escaped
			// every literal '+' as %2B.
			u.RawQuery = strings.ReplaceAll(q.Encode(), "+", "%20")
			return u.String()
		}
	}
	return strings.TrimSpace(dsn) + " " + key + "=" + value
}

// Scan runs w's query once through c's driver, scanning every row into c's
// destinations, and returns the number of values read (rows × columns).
func (e *Env) Scan(ctx context.Context, c Cell, w Workload) (int, error) {
	ptrs, err := pointers(c, w)
	if err != nil {
		return 0, err
	}
	var rows int
	if c.Driver == PgxNative {
		rows, err = e.scanNative(ctx, c, w, ptrs)
	} else if db := e.dbs[c.Driver]; db != nil {
		rows, err = scanSQL(ctx, db, w, ptrs)
	} else {
		err = fmt.Errorf("not connected: %v", e.unavailable[c.Driver])
	}
	if err != nil {
		return 0, fmt.Errorf("bench: %s into %s: %w", w.Name, c, err)
	}
	return rows * len(w.Kinds), nil
}

func scanSQL(ctx context.Context, db *sql.DB, w Workload, ptrs []any) (n int, err error) {
	q := interface {
		QueryContext(context.Context, string, ...any) (*sql.Rows, error)
	}(db)
	if w.ReadOnly {
		tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
		if err != nil {
			return 0, err
		}
		defer tx.Rollback()
		q = tx
	}
	rows, err := q.QueryContext(ctx, w.Query)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return 0, err
		}
		n++
	}
	return n, rows.Err()
}

func (e *Env) scanNative(ctx context.Context, c Cell, w Workload, ptrs []any) (n int, err error) {
	q := interface {
		Query(context.Context, string, ...any) (pgx.Rows, error)
	}(e.native)
	if w.ReadOnly {
		tx, err := e.native.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly})
		if err != nil {
			return 0, err
		}
		defer tx.Rollback(context.WithoutCancel(ctx))
		q = tx
	}
	rows, err := q.Query(ctx, w.Query)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	if c.Dest == RawBytes {
		for rows.Next() {
			_ = rows.RawValues()
			n++
		}
		return n, rows.Err()
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return 0, err
		}
		n++
	}
	return n, rows.Err()
}

// pointers returns one scan destination per column. They are reused for
// every row, as a program scanning into the same variables would.
func pointers(c Cell, w Workload) ([]any, error) {
	ptrs := make([]any, len(w.Kinds))
	for i, k := range w.Kinds {
		if ok, why := c.Supported(k); !ok {
			return nil, errors.New(why)
		}
		var p any
		if (c.Dest == Natural || c.Dest == Typed || c.Dest == PgcacheTyped) && i < len(w.Types) {
			p = naturalPointer(c, w.Types[i])
		} else {
			p = newPointer(c, k, w.Nullable)
		}
		if p == nil {
			return nil, fmt.Errorf("bench: %s does not apply to %s columns", c.Dest, k)
		}
		ptrs[i] = p
	}
	return ptrs, nil
}

// naturalPointer returns the destination an application would scan a column
// of SQL type typ into: its natural Go type, or for [Typed] and
// [PgcacheTyped] the decimal and map types of numeric and hstore columns.
func naturalPointer(c Cell, typ string) any {
	numeric := typ == "numeric" || strings.HasPrefix(typ, "numeric(")
	switch {
	case c.Dest == Typed && numeric:
		return new(apd.Decimal)
	case c.Dest == Typed && typ == "hstore" && c.Driver == Pq:
		return new(pqhstore.Hstore)
	case c.Dest == Typed && typ == "hstore":
		return new(pgtype.Hstore)
	case c.Dest == PgcacheTyped && numeric:
		return new(pgcache.Decimal)
	case c.Dest == PgcacheTyped && typ == "hstore":
		return new(pgcache.Hstore)
	}
	switch {
	case typ == "int8" || typ == "bigint":
		return new(int64)
	case typ == "int4" || typ == "integer":
		return new(int32)
	case typ == "date" || strings.HasPrefix(typ, "timestamp"):
		return new(time.Time)
	}
	return new(string)
}

// newPointer returns the destination c's Dest names for a column of kind
// k; nullable picks the Null form where the destination has one.
func newPointer(c Cell, k Kind, nullable bool) any {
	switch c.Dest {
	case RawBytes:
		return new(sql.RawBytes)
	case String:
		return new(string)
	case Any:
		return new(any)
	case PgcacheTypes:
		switch {
		case k == Numeric && nullable:
			return new(pgcache.NullDecimal)
		case k == Numeric:
			return new(pgcache.Decimal)
		case k == Hstore && nullable:
			return new(pgcache.NullHstore)
		case k == Hstore:
			return new(pgcache.Hstore)
		}
		return new(any)
	}
	if k == Numeric {
		switch c.Dest {
		case Float64:
			return new(float64)
		case ApdDecimal:
			return new(apd.Decimal)
		case ShopspringDec:
			return new(decimal.Decimal)
		case PgtypeNumeric:
			return new(pgtype.Numeric)
		case PgcacheDecimal:
			return new(pgcache.Decimal)
		}
	}
	if k == Hstore {
		switch c.Dest {
		case PgtypeHstore:
			if c.Driver == Pq {
				return new(pqhstore.Hstore)
			}
			return new(pgtype.Hstore)
		case PgcacheHstore:
			return new(pgcache.Hstore)
		case StringMap:
			return new(map[string]string)
		}
	}
	return nil
}
