// Package pgcache is a database/sql driver for PostgreSQL that decodes numeric
// and hstore columns through a process-wide cache. It wraps pgx v5's stdlib
// driver and is a drop-in replacement for it:
//
//	import _ "github.com/pgcache/pgcache" // or without _ to use pgcache.Decimal
//
//	db, err := sql.Open("pgcache", "postgres://app@db/shop") // was sql.Open("pgx", …)
//
// Every value a program scans is what pgx stdlib would have given it, for every
// column type and every Scan destination. What changes is the cost: a numeric
// or hstore text that repeats is handed out as one shared, pre-boxed string
// with no allocation, and scanning it into a [Decimal] or an [Hstore] returns
// one shared, immutable parsed value, again with no allocation.
//
// # The cache
//
// Each type has a direct-mapped table of 4096 slots. A numeric text of up to 8
// bytes is packed into a uint64 key; a lookup is one multiply, one atomic load
// and one compare, with no lock. hstore texts (up to [MaxHstoreText] bytes) are
// keyed by a 64-bit hash and compared byte for byte on a hit. A text is
// admitted the second time in a row it is seen in its slot, so a column of
// all-distinct values only records keys and never pays for decoding values it
// will not see again. Entries are immutable and replaced whole. [Stats] reports
// hits, misses, admissions and bypasses.
//
// # What is shared, and what a caller must not mutate
//
// The tables are process-wide: one for numeric, one for hstore and one per
// pgcache_types kind, shared by every connection, [*sql.DB] and pool of the
// process, and keyed only by a value's wire bytes. So a column uses a shared
// table only when its value is a pure function of those bytes under pgx's
// defaults, and no connection's settings reach another connection's values:
// text-format columns (numeric, hstore, the text kinds) become string(raw)
// whatever the connection's codecs, as with pgx stdlib; a binary fixed-size
// kind (int2/4/8, float8, date, timestamp, timestamptz) takes its table only
// while the connection's codec for the type's OID equals pgx's default
// codec, compared when each result set is planned, so a connection with a
// ScanLocation or a custom codec, registered at connect or later through
// [Conn.Conn], reads that column as pgx stdlib does.
//
// The values handed out are shared too: the string of a cached text, the
// contents of a [Decimal] or [Hstore], the boxed driver values of the
// pgcache_types kinds, the shopspring decimal built for an entry on Go 1.27.
// Every goroutine that reads the same text gets the same value, for as long
// as anyone holds it. That is safe because nothing can change them: strings
// are immutable, Decimal and Hstore have no exported fields and no mutating
// methods, and each method that hands out mutable data ([Decimal.Apd],
// [Decimal.Decompose], [Hstore.Map], [Hstore.Pgtype], the Marshal methods)
// returns a copy the caller owns, as do the *sql.RawBytes, *[]byte, map and
// *pgtype.Numeric destinations. A caller must not write into such a value
// through package unsafe (unsafe.StringData of a scanned string, say), and
// should compare decimals with [Decimal.Cmp], never by pointer or ==.
// [ResetCache] empties the tables; values already handed out stay valid.
//
// # Go 1.27
//
// From Go 1.27 database/sql hands each Scan destination to the driver
// (driver.RowsColumnScanner), as pgx stdlib does there: slices, pgtype
// arrays, ranges and other pgx-native destinations are scanned by pgx's type
// map, exactly as with pgx stdlib. A cached value goes straight from its
// cache entry into *string, *any, *float64, *int64, *[Decimal], *apd.Decimal,
// shopspring's *decimal.Decimal, *pgtype.Numeric, *[Hstore] and
// *pgtype.Hstore, without reflection or parsing, and for most of them
// without allocating; Go maps go to pgx's type map, as with pgx stdlib. Older Go versions use Next as before; both give the same values.
//
// # Options
//
// Three DSN options, removed before the DSN reaches pgx:
//
//	pgcache=off                          no cache on this connection
//	pgcache_disable=note_total,public.orders.discount
//	                                     these columns bypass the cache
//	pgcache_types=bpchar,enum,date,int8  also cache these column types (or: all)
//
// pgcache_types extends the cache to short, repeating columns of other types:
// text kinds (text, varchar, char(n), name, enums, uuid) and binary
// fixed-size ones (int2/4/8, float8, date, timestamp, timestamptz). Each kind
// group has a table of its own, made on first use; the driver values are the
// ones pgx stdlib produces, boxed once.
//
// # Reaching pgx
//
// A pgcache driver connection has Conn() *pgx.Conn, like *stdlib.Conn. Code
// using sql.Conn.Raw should assert interface{ Conn() *pgx.Conn } rather than
// *stdlib.Conn, which then works with both drivers.
package pgcache
