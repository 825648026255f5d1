// Package driver holds pgcache's per-connection configuration: the DSN options
// that switch the cache off as a whole or for chosen columns, and the catalog
// lookups a connection makes once, when it opens, to apply them.
//
// It is separate from the root package so that option parsing can be tested
// and fuzzed without a database, and so that every catalog query pgcache ever
// sends is in one place: [Resolve]. Nothing here runs between a user's
// statements.
//
// The name follows the repository layout; code that also imports
// database/sql/driver should import that one as sqldriver.
package driver

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Setup is what one connection knows about which result columns go through
// the cache. It is built by [Resolve] when the connection opens and never
// changes afterwards, so a Rows may read it without locking.
type Setup struct {
	// Options are the settings the connector was opened with.
	Options Options
	// HstoreOID is the OID of the hstore extension's type in the connection's
	// database, or 0 when the extension is not installed (columns are then
	// whatever type the server says they are, and nothing is treated as hstore).
	HstoreOID uint32

	names map[string]bool // result-column names from pgcache_disable
	attrs map[attr]bool   // resolved [schema.]table.column entries
}

type attr struct {
	table uint32
	num   uint16
}

// Cached reports whether values of a result field go through the cache, given
// the field's name, table OID and attribute number as the server describes
// them (0 and 0 for a computed column). It does not look at the type.
func (s *Setup) Cached(name string, tableOID uint32, attnum uint16) bool {
	if !s.Options.Cache {
		return false
	}
	if s.names[name] {
		return false
	}
	if tableOID != 0 && s.attrs[attr{tableOID, attnum}] {
		return false
	}
	return true
}

// catalogQuery finds, in one statement, the hstore type (kind 0) and the table
// OID and attribute number of every table-qualified pgcache_disable entry
// (kind 1). hstore is found through the extension that owns it, so it is found
// whatever schema the extension was installed in and a user type that happens
// to be called hstore is not mistaken for it. An unqualified table is looked up
// through the connection's search_path, as the server would resolve it.
const catalogQuery = `
select 0, t.oid, 0::int2
from pg_catalog.pg_type t
join pg_catalog.pg_depend d
  on d.classid = 'pg_catalog.pg_type'::regclass and d.objid = t.oid and d.deptype = 'e'
join pg_catalog.pg_extension x
  on d.refclassid = 'pg_catalog.pg_extension'::regclass and x.oid = d.refobjid
where x.extname = 'hstore' and t.typname = 'hstore'
union all
select 1, c.oid, a.attnum
from unnest($1::text[], $2::text[], $3::text[]) as e(nsp, rel, att)
join pg_catalog.pg_class c on c.relname = e.rel
join pg_catalog.pg_namespace n on n.oid = c.relnamespace
join pg_catalog.pg_attribute a on a.attrelid = c.oid and a.attname = e.att and a.attnum > 0 and not a.attisdropped
where (e.nsp = '' and pg_catalog.pg_table_is_visible(c.oid)) or n.nspname = e.nsp`

// Resolve builds the [Setup] for a freshly opened connection. With the cache
// on it sends one catalog query (simple protocol, one round trip, nothing left
// prepared); with pgcache=off it sends nothing.
//
// A table-qualified pgcache_disable entry whose table or column does not exist
// (yet) matches nothing on this connection; connections opened after the table
// is created will honour it.
func Resolve(ctx context.Context, conn *pgx.Conn, o Options) (*Setup, error) {
	s := &Setup{Options: o}
	if !o.Cache {
		return s, nil
	}
	var nsp, rel, att []string
	for _, c := range o.Disable {
		if c.Table == "" {
			if s.names == nil {
				s.names = make(map[string]bool)
			}
			s.names[c.Name] = true
			continue
		}
		nsp = append(nsp, c.Schema)
		rel = append(rel, c.Table)
		att = append(att, c.Name)
	}
	rows, err := conn.Query(ctx, catalogQuery, pgx.QueryExecModeSimpleProtocol, nsp, rel, att)
	if err != nil {
		return nil, fmt.Errorf("pgcache: catalog lookup at connect: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			kind int32
			oid  uint32
			num  int16
		)
		if err := rows.Scan(&kind, &oid, &num); err != nil {
			return nil, fmt.Errorf("pgcache: catalog lookup at connect: %w", err)
		}
		if kind == 0 {
			s.HstoreOID = oid
			continue
		}
		if s.attrs == nil {
			s.attrs = make(map[attr]bool)
		}
		s.attrs[attr{oid, uint16(num)}] = true
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("pgcache: catalog lookup at connect: %w", err)
	}
	return s, nil
}
