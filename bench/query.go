package bench

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/pgcache/pgcache"
	"github.com/pgcache/pgcache/cache"
)

// QueryWorkload describes a user's query for measuring: every column is read
// into *any, and numeric and hstore columns also into pgcache's nullable
// types, [pgcache.NullDecimal] and [pgcache.NullHstore] (see [QueryCells]):
// any column of a query may hold NULL, even a NOT NULL one read through an
// outer join, and a NULL cannot be scanned into a [pgcache.Decimal]. It learns the column types by preparing query on the pgx
// connection, which does not run it, and marks the workload ReadOnly, so
// [Env.Scan] runs it inside a READ ONLY transaction and the server refuses
// anything that writes.
func (e *Env) QueryWorkload(ctx context.Context, query string) (Workload, error) {
	sd, err := e.native.Prepare(ctx, "", query)
	if err != nil {
		return Workload{}, fmt.Errorf("bench: preparing the query: %w", err)
	}
	if len(sd.ParamOIDs) > 0 {
		return Workload{}, fmt.Errorf("bench: the query has %d parameters; inline them", len(sd.ParamOIDs))
	}
	if len(sd.Fields) == 0 {
		return Workload{}, fmt.Errorf("bench: the query returns no columns")
	}
	var hstoreOID uint32
	if t, ok := e.native.TypeMap().TypeForName("hstore"); ok {
		hstoreOID = t.OID
	}
	w := Workload{Name: "query", Query: query, ReadOnly: true, Kind: Other, Nullable: true}
	for _, f := range sd.Fields {
		w.Columns = append(w.Columns, QueryColumn{Name: f.Name, Type: e.typeName(f.DataTypeOID),
			Source: e.sourceName(ctx, f.TableOID, f.TableAttributeNumber)})
		switch {
		case f.DataTypeOID == pgtype.NumericOID:
			w.Kinds = append(w.Kinds, Numeric)
		case hstoreOID != 0 && f.DataTypeOID == hstoreOID:
			w.Kinds = append(w.Kinds, Hstore)
		default:
			w.Kinds = append(w.Kinds, Other)
		}
	}
	return w, nil
}

// QueryCells returns the cells measured for a user's query: every driver
// reading into [RawBytes], [Any] and [PgcacheTypes].
func QueryCells() []Cell {
	var cells []Cell
	for _, dest := range Dests(Other) {
		for _, drv := range Drivers {
			cells = append(cells, Cell{drv, dest})
		}
	}
	return cells
}

// QueryColumn is one result column of a user's query.
type QueryColumn struct {
	Name string
	Type string // the server's name for its type
	// Source is the table column it reads, as a pgcache_disable entry
	// (table.column, or schema.table.column for a table not on the
	// search_path), or empty when it is computed.
	Source string
}

// sourceName returns the pgcache_disable spelling of table column attnum of
// the table with OID table, or "" if there is none.
func (e *Env) sourceName(ctx context.Context, table uint32, attnum uint16) string {
	if table == 0 || attnum == 0 {
		return ""
	}
	var schema, rel, col string
	var visible bool
	err := e.native.QueryRow(ctx, `select n.nspname, c.relname, a.attname, pg_table_is_visible(c.oid)
		from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace
		where a.attrelid = $1 and a.attnum = $2`, table, int16(attnum)).Scan(&schema, &rel, &col, &visible)
	if err != nil {
		return ""
	}
	name := sqlName(rel) + "." + sqlName(col)
	if !visible {
		name = sqlName(schema) + "." + name
	}
	return name
}

// sqlName spells an identifier as pgcache_disable reads it: as is when it
// is a lower-case SQL name, else double-quoted.
func sqlName(s string) string {
	plain := s != ""
	for i, r := range s {
		if !(r == '_' || 'a' <= r && r <= 'z' || i > 0 && ('0' <= r && r <= '9' || r == '$')) {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	return quoteIdent(s)
}

// typeName returns the server's name for a type OID.
func (e *Env) typeName(oid uint32) string {
	if t, ok := e.native.TypeMap().TypeForOID(oid); ok {
		return t.Name
	}
	var name string
	if err := e.native.QueryRow(context.Background(), "select format_type($1, null)", oid).Scan(&name); err != nil {
		return fmt.Sprint(oid)
	}
	return name
}

// ColumnReport is what pgcache would do for one column of a user's query:
// the cache traffic of reading it twice from an empty cache (the second read
// is the one reported), with pgcache's default settings and with
// pgcache_types=all.
type ColumnReport struct {
	Column QueryColumn
	// Default is the traffic with pgcache's defaults (numeric, hstore and
	// the toolchain's default kinds, driver.DefaultTypes); zero for other
	// types.
	Default cache.Stats
	// AllTypes is the traffic with pgcache_types=all.
	AllTypes cache.Stats
	// Err is why the column could not be measured on its own.
	Err error
}

// Cached reports whether any table saw the column's values.
func (r ColumnReport) Cached(s cache.Stats) bool { return s.Hits+s.Misses+s.Admissions+s.Bypasses > 0 }

// ColumnReports reads each column of w on its own — select "col" from
// (query) — through pgcache with and without pgcache_types=all, inside
// READ ONLY transactions, and reports each column's cache traffic, so a user
// can see which columns the option would help before turning it on.
// Columns whose names are empty or repeated cannot be selected on their own
// and get an Err.
func (e *Env) ColumnReports(ctx context.Context, w Workload) []ColumnReport {
	count := map[string]int{}
	for _, c := range w.Columns {
		count[c.Name]++
	}
	reports := make([]ColumnReport, len(w.Columns))
	for i, c := range w.Columns {
		reports[i].Column = c
		if c.Name == "" || c.Name == "?column?" || count[c.Name] > 1 {
			reports[i].Err = fmt.Errorf("column %q cannot be selected by name; give it a unique alias", c.Name)
			continue
		}
		one := Workload{
			Name:     w.Name + "." + c.Name,
			Query:    "select " + quoteIdent(c.Name) + " from (" + w.Query + ") as pgcache_bench_q",
			Kinds:    []Kind{Other}, // read into *any by both drivers
			ReadOnly: true,
			Kind:     Other,
		}
		for _, drv := range []Driver{Pgcache, PgcacheAll} {
			traffic, err := e.secondRead(ctx, drv, one)
			if err != nil {
				reports[i].Err = err
				break
			}
			if drv == Pgcache {
				reports[i].Default = traffic
			} else {
				reports[i].AllTypes = traffic
			}
		}
	}
	return reports
}

// secondRead empties the cache, reads w twice through drv into *any, and
// returns the cache traffic of the second read, summed over every table.
func (e *Env) secondRead(ctx context.Context, drv Driver, w Workload) (cache.Stats, error) {
	c := Cell{Driver: drv, Dest: Any}
	pgcache.ResetCache()
	if _, err := e.Scan(ctx, c, w); err != nil {
		return cache.Stats{}, err
	}
	before := pgcache.Stats()
	if _, err := e.Scan(ctx, c, w); err != nil {
		return cache.Stats{}, err
	}
	after := pgcache.Stats()
	var sum cache.Stats
	for _, p := range [][2]cache.Stats{
		{before.Numeric, after.Numeric}, {before.Hstore, after.Hstore}, {before.Text, after.Text},
		{before.LongText, after.LongText}, {before.Int8, after.Int8}, {before.Int4, after.Int4},
		{before.Float8, after.Float8}, {before.Date, after.Date}, {before.Timestamp, after.Timestamp},
		{before.Timestamptz, after.Timestamptz},
	} {
		d := statsDelta(p[0], p[1])
		sum.Hits += d.Hits
		sum.Misses += d.Misses
		sum.Admissions += d.Admissions
		sum.Bypasses += d.Bypasses
	}
	return sum, nil
}

// quoteIdent quotes a column name for SQL.
func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
