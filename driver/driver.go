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
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
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
	// Catalog identifies the catalog the connection's OIDs refer to: a hash
	// of the server's system identifier, which a physical standby shares
	// with its primary (and its OIDs with it), and the database's OID. It
	// keys what pgcache remembers by OID across connections, so that one
	// server's judgements never apply to another server's columns. It is 0
	// with pgcache=off; without pg_control_system() (not granted, or an
	// engine that lacks it) it is a hash of the database OID alone.
	Catalog uint64

	// Unmatched are the pgcache_disable entries that match nothing in the
	// database when the connection opened: a table-qualified entry whose
	// table (visible through search_path when unqualified) or column does not
	// exist, a bare name that no column of any table or view has (it may
	// still name a result column's alias), and a name the connection's
	// encodings cannot represent. They are not errors: a table may be
	// created after the pool opens, and connections opened then honour it.
	Unmatched []Column

	names map[string]bool // result-column names from pgcache_disable, as the server spells them
	attrs map[attr]bool   // resolved [schema.]table.column entries

	// checked marks the entries of Options.Disable the catalog query looks
	// for, and seen those it found; Resolve turns them into Unmatched.
	checked, seen []bool
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

// MaxIdentifierLength is the longest identifier PostgreSQL keeps, in bytes:
// NAMEDATALEN-1 in a default build. The server cuts longer names in SQL to
// this length, so a table or column created with a longer name is known by
// its first 63 bytes only.
const MaxIdentifierLength = 63

// TruncateIdentifier cuts id to [MaxIdentifierLength] bytes without splitting
// a UTF-8 character, which is what PostgreSQL does to an identifier in a UTF-8
// database. id must be valid UTF-8 ([ParseDisable] ensures it).
func TruncateIdentifier(id string) string {
	if len(id) <= MaxIdentifierLength {
		return id
	}
	n := MaxIdentifierLength
	for n > 0 && !utf8.RuneStart(id[n]) {
		n--
	}
	return id[:n]
}

// Kinds of row the catalog query returns.
const (
	rowHstore = 0 // the hstore type: its OID
	rowAttr   = 1 // a table column: table OID and attribute number
	rowName   = 2 // a result-column name, as the server spells it to this client
	rowSeen   = 3 // a bare name that some table or view column has
	rowIdent  = 4 // the database's OID and the server's system identifier
)

// hstoreQuery finds the hstore type through the extension that owns it, so it
// is found whatever schema the extension was installed in and a user type
// that happens to be called hstore is not mistaken for it.
const hstoreQuery = `select 0, t.oid, 0::pg_catalog.int2, null::pg_catalog.text
from pg_catalog.pg_type t
join pg_catalog.pg_depend d
  on d.classid = 'pg_catalog.pg_type'::pg_catalog.regclass and d.objid = t.oid and d.deptype = 'e'
join pg_catalog.pg_extension x
  on d.refclassid = 'pg_catalog.pg_extension'::pg_catalog.regclass and x.oid = d.refobjid
where x.extname = 'hstore' and t.typname = 'hstore'`

// identQuery returns the database's OID and the server's system identifier.
// It reads the same on a physical standby as on its primary and works behind
// PgBouncer, which passes it to a server connection like any query. Where
// pg_control_system() may not be executed (PostgreSQL grants it to PUBLIC,
// but a managed service may revoke it), [Resolve] asks identDBQuery instead.
const identQuery = `
union all
select 4, d.oid, 0::pg_catalog.int2, (select s.system_identifier::pg_catalog.text from pg_catalog.pg_control_system() s)
from pg_catalog.pg_database d where d.datname = pg_catalog.current_database()`

// identDBQuery is identQuery without the system identifier.
const identDBQuery = `
union all
select 4, d.oid, 0::pg_catalog.int2, null::pg_catalog.text
from pg_catalog.pg_database d where d.datname = pg_catalog.current_database()`

// attrQuery finds the table OID and attribute number of each table-qualified
// entry, listed in place of %s as VALUES rows (nsp, rel, att). An unqualified
// table is looked up through the connection's search_path, as the server
// would resolve it.
const attrQuery = `
union all
select 1, c.oid, a.attnum, e.i::pg_catalog.text
from (values %s) as e(i, nsp, rel, att)
join pg_catalog.pg_class c on c.relname = e.rel
join pg_catalog.pg_namespace n on n.oid = c.relnamespace
join pg_catalog.pg_attribute a on a.attrelid = c.oid and a.attname = e.att and a.attnum > 0 and not a.attisdropped
where (e.nsp = '' and pg_catalog.pg_table_is_visible(c.oid)) or n.nspname = e.nsp`

// nameQuery returns result-column names, listed in place of %s as VALUES
// rows, truncated in the database's encoding and sent back in the client's.
const nameQuery = `
union all
select 2, 0, 0, e.nm::pg_catalog.text from (values %s) as e(nm)`

// seenQuery reports which bare names, listed in place of %s as VALUES rows
// (i, nm), some column of a table or view has: a name none has matches only
// result-column aliases, if anything, and is reported in Setup.Unmatched.
const seenQuery = `
union all
select 3, 0, 0, e.i::pg_catalog.text from (values %s) as e(i, nm)
where exists (select from pg_catalog.pg_attribute a where a.attname = e.nm and a.attnum > 0 and not a.attisdropped)`

// identLiteral spells id as an SQL expression of type name that means the
// same under every server setting pgx accepts: the query text carries only
// the hex digits of id's UTF-8 bytes, inside a literal with no quote or
// backslash, so standard_conforming_strings cannot change how it reads and
// every client_encoding (all are ASCII-compatible) sends it unchanged. The
// server converts the bytes from UTF-8 to the database encoding, and the cast
// to name truncates the result exactly as it truncates identifiers in SQL.
func identLiteral(id string) string {
	if id == "" {
		return "''::pg_catalog.name"
	}
	return "pg_catalog.convert_from(pg_catalog.decode('" + hex.EncodeToString([]byte(id)) +
		"', 'hex'), 'UTF8')::pg_catalog.name"
}

// isASCII reports whether s is spelled the same in every encoding PostgreSQL
// supports, and truncated the same in every database encoding.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// newSetup starts the Setup of a connection: it records the bare names that
// need no help from the server and returns the catalog query for the rest.
//
// The server reports a result column's name in the client encoding, cut to
// 63 bytes of the database encoding. A name in pure ASCII, or any name when
// both encodings are UTF-8, is spelled and truncated here; only the others
// (say prix_été under client_encoding=LATIN1) are given to the server to
// spell. With dropNonASCII, entries that would need the server to convert
// them are left out (see [Resolve]).
func newSetup(o Options, utf8Both, dropNonASCII bool) (*Setup, string) {
	s := &Setup{Options: o, checked: make([]bool, len(o.Disable)), seen: make([]bool, len(o.Disable))}
	var attrs, names, seen []string
	for i, c := range o.Disable {
		ascii := isASCII(c.Schema) && isASCII(c.Table) && isASCII(c.Name)
		if dropNonASCII && !ascii {
			continue // unmatched: checked stays false
		}
		s.checked[i] = true
		if c.Table == "" {
			if ascii || utf8Both { // nothing for the server to convert
				if s.names == nil {
					s.names = make(map[string]bool)
				}
				s.names[TruncateIdentifier(c.Name)] = true
			} else {
				names = append(names, "("+identLiteral(c.Name)+")")
			}
			seen = append(seen, "("+strconv.Itoa(i)+", "+identLiteral(c.Name)+")")
			continue
		}
		attrs = append(attrs, "("+strconv.Itoa(i)+", "+identLiteral(c.Schema)+", "+identLiteral(c.Table)+", "+identLiteral(c.Name)+")")
	}
	var q strings.Builder
	q.WriteString(hstoreQuery)
	q.WriteString(identQuery)
	if len(attrs) > 0 {
		fmt.Fprintf(&q, attrQuery, strings.Join(attrs, ", "))
	}
	if len(names) > 0 {
		fmt.Fprintf(&q, nameQuery, strings.Join(names, ", "))
	}
	if len(seen) > 0 {
		fmt.Fprintf(&q, seenQuery, strings.Join(seen, ", "))
	}
	return s, q.String()
}

// Resolve builds the [Setup] for a freshly opened connection. With the cache
// on it sends one catalog query; with pgcache=off it sends nothing.
//
// The query has no parameters: its identifiers are spelled in hex (see
// identLiteral), so its meaning depends on no server setting. It goes
// through pgx.Conn.Query in pgx's exec mode, which sends it as the unnamed
// statement with parse, bind, describe and execute in one round trip and
// leaves nothing prepared: it works under every setting pgx accepts, behind
// PgBouncer in transaction pooling mode, and it is seen by the connection's
// tracer like any query. pgx's simple protocol (what this used before) is not
// an option: pgx refuses it, even without arguments, unless
// standard_conforming_strings=on and client_encoding=UTF8.
//
// A table-qualified pgcache_disable entry whose table or column does not exist
// (yet) matches nothing on this connection; connections opened after the table
// is created will honour it. Names are truncated to 63 bytes as the server
// truncates them. A name the database or client encoding cannot represent
// (say 名前 under LATIN1) cannot name any column this connection can read;
// the server refuses to convert it, and the lookup is then repeated once
// without the non-ASCII entries. A role that may not execute
// pg_control_system(), or an engine without it, gets a repeated lookup
// without the system identifier, and a [Setup.Catalog] of the database OID
// alone.
func Resolve(ctx context.Context, conn *pgx.Conn, o Options) (*Setup, error) {
	if !o.Cache {
		return &Setup{Options: o}, nil
	}
	pc := conn.PgConn()
	utf8Both := pc.ParameterStatus("server_encoding") == "UTF8" && pc.ParameterStatus("client_encoding") == "UTF8"
	var s *Setup
	var err error
	dropNonASCII, withSysid := false, true
	for {
		var query string
		s, query = newSetup(o, utf8Both, dropNonASCII)
		if !withSysid {
			query = strings.Replace(query, identQuery, identDBQuery, 1)
		}
		err = s.lookup(ctx, conn, query)
		pgErr, ok := errors.AsType[*pgconn.PgError](err)
		if ok && pgErr.Code == "22P05" && !dropNonASCII { // untranslatable_character
			dropNonASCII = true
		} else if ok && (pgErr.Code == "42501" || pgErr.Code == "42883") && withSysid {
			// insufficient_privilege or undefined_function: pg_control_system()
			// is revoked, or missing on a PostgreSQL-compatible engine.
			withSysid = false
		} else {
			break
		}
	}
	if err != nil {
		return nil, fmt.Errorf("pgcache: catalog lookup at connect: %w", err)
	}
	for i, c := range o.Disable {
		if !s.checked[i] || !s.seen[i] {
			s.Unmatched = append(s.Unmatched, c)
		}
	}
	s.checked, s.seen = nil, nil
	return s, nil
}

// catalogID hashes a system identifier (0 when unknown) and a database OID
// into [Setup.Catalog], never 0 (splitmix64's finalizer, so that every bit
// of both reaches every bit of the result).
func catalogID(sysid uint64, dbOID uint32) uint64 {
	mix := func(x uint64) uint64 {
		x ^= x >> 30
		x *= 0xbf58476d1ce4e5b9
		x ^= x >> 27
		x *= 0x94d049bb133111eb
		return x ^ x>>31
	}
	if id := mix(sysid ^ mix(uint64(dbOID)+0x9e3779b97f4a7c15)); id != 0 {
		return id
	}
	return 1
}

// lookup runs the catalog query and records what it finds in s. The values
// arrive as text (exec mode asks for no binary result) and are parsed here.
func (s *Setup) lookup(ctx context.Context, conn *pgx.Conn, query string) error {
	rows, err := conn.Query(ctx, query, pgx.QueryExecModeExec)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		row := rows.RawValues()
		if len(row) != 4 {
			return fmt.Errorf("a row of %d columns, want 4", len(row))
		}
		kind, err1 := strconv.ParseUint(string(row[0]), 10, 8)
		oid, err2 := strconv.ParseUint(string(row[1]), 10, 32)
		num, err3 := strconv.ParseInt(string(row[2]), 10, 16)
		if err := errors.Join(err1, err2, err3); err != nil {
			return fmt.Errorf("unexpected row %q: %w", row, err)
		}
		switch kind {
		case rowHstore:
			s.HstoreOID = uint32(oid)
		case rowAttr, rowSeen:
			i, err := strconv.Atoi(string(row[3]))
			if err != nil || i < 0 || i >= len(s.seen) {
				return fmt.Errorf("unexpected row %q: no entry %q", row, row[3])
			}
			s.seen[i] = true
			if kind == rowSeen {
				break
			}
			if s.attrs == nil {
				s.attrs = make(map[attr]bool)
			}
			s.attrs[attr{uint32(oid), uint16(num)}] = true
		case rowIdent:
			var sysid uint64
			if row[3] != nil {
				if sysid, err = strconv.ParseUint(string(row[3]), 10, 64); err != nil {
					return fmt.Errorf("unexpected row %q: %w", row, err)
				}
			}
			s.Catalog = catalogID(sysid, uint32(oid))
		case rowName:
			if s.names == nil {
				s.names = make(map[string]bool)
			}
			s.names[string(row[3])] = true
		}
	}
	return rows.Err()
}
