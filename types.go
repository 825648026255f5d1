package pgcache

import (
	sqldriver "database/sql/driver"
	"sync"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/pgcache/pgcache/cache"
	"github.com/pgcache/pgcache/driver"
)

// Caching more column types (the pgcache_types option). numeric and hstore
// are cached because decoding them is expensive; for short columns that
// repeat — codes, flags, enums, dates, foreign keys — what stdlib pays per
// value is a copy and a driver.Value box, which a cache hit spares just the
// same. The driver value of such a column is a pure function of its wire
// bytes, so the entry is simply the value stdlib's conversion
// (plainValueFunc) produced for the same bytes when it was admitted, boxed
// once: identical in every respect to what stdlib returns.

// The entry of the type tables is the driver value itself, stored in the
// table's slot entry: a string for text kinds, an int64, float64 or
// time.Time (or stdlib's "infinity" strings for infinite dates and
// timestamps) for fixed-size ones. A hit is one load less than through a
// pointer to a wrapper, and the wrapper's allocation is gone.

// MaxTextKey is the longest text a text-kind column caches (in the hashed
// table: texts of up to 8 bytes go to the packed one). Longer texts are
// copied as stdlib copies them, so one long value cannot pin memory in a slot.
const MaxTextKey = 64

// tableID names a table in a Rows' counts.
type tableID uint8

const (
	tabNumeric tableID = iota
	tabHstore
	tabText     // text kinds, ≤ 8 bytes, packed keys
	tabLongText // text kinds, 9 to MaxTextKey bytes, hashed
	tabInt8
	tabInt4 // int4 and int2 (PackFixed keeps their lengths apart)
	tabFloat8
	tabDate
	tabTimestamp
	tabTimestamptz
	numTables
)

// typeTables are the tables of the pgcache_types kinds. Each is made the
// first time a column of its kind is read, so that a process carries the
// memory of the kinds its queries have, not of all eight — and the
// collector's work: every table is 4096 pointers that each GC cycle marks,
// which on a small heap made a fifth of pgcache_types' cost on all-distinct
// columns while all eight were made at once (BenchmarkRowsReplay under
// cachegrind).
type typeTables struct {
	mu       sync.Mutex // held while making a table
	text     atomic.Pointer[cache.Short[sqldriver.Value]]
	longText atomic.Pointer[cache.Long[sqldriver.Value]]
	fixed    [numTables]atomic.Pointer[cache.Short[sqldriver.Value]] // indexed by the fixed-size tableIDs
}

// typeTabs are the process-wide type tables.
var typeTabs typeTables

// textTable returns the packed table of the text kinds, making it on first
// use.
func (tt *typeTables) textTable() *cache.Short[sqldriver.Value] {
	return lazyTable(&tt.mu, &tt.text, cache.NewShort[sqldriver.Value])
}

// longTable returns the hashed table of the text kinds, making it the first
// time a text kind's text of 9 to MaxTextKey bytes is read or counted.
func (tt *typeTables) longTable() *cache.Long[sqldriver.Value] {
	return lazyTable(&tt.mu, &tt.longText, func() *cache.Long[sqldriver.Value] { return cache.NewLong[sqldriver.Value](MaxTextKey) })
}

// fixedTable returns the table of a fixed-size kind, making it on first use.
func (tt *typeTables) fixedTable(id tableID) *cache.Short[sqldriver.Value] {
	return lazyTable(&tt.mu, &tt.fixed[id], cache.NewShort[sqldriver.Value])
}

// lazyTable returns *p, first making it with mk under mu if it is nil.
func lazyTable[T any](mu *sync.Mutex, p *atomic.Pointer[T], mk func() *T) *T {
	if t := p.Load(); t != nil {
		return t
	}
	mu.Lock()
	defer mu.Unlock()
	if p.Load() == nil {
		p.Store(mk())
	}
	return p.Load()
}

// fixedTables are the tables of fixed-size binary kinds.
var fixedTables = []tableID{tabInt8, tabInt4, tabFloat8, tabDate, tabTimestamp, tabTimestamptz}

// shortStats and longStats are a table's Stats, or zero for a table not
// made yet.
func shortStats(t *cache.Short[sqldriver.Value]) cache.Stats {
	if t == nil {
		return cache.Stats{}
	}
	return t.Stats()
}

func longStats(t *cache.Long[sqldriver.Value]) cache.Stats {
	if t == nil {
		return cache.Stats{}
	}
	return t.Stats()
}

// reset empties the tables made so far.
func (tt *typeTables) reset() {
	if t := tt.text.Load(); t != nil {
		t.Reset()
	}
	if t := tt.longText.Load(); t != nil {
		t.Reset()
	}
	for _, id := range fixedTables {
		if t := tt.fixed[id].Load(); t != nil {
			t.Reset()
		}
	}
}

// record publishes a result set's counts for the type tables (none, for a
// result set without pgcache_types columns). A table with counts was made
// by the result set that counted them, except the hashed text table, which
// bypasses alone (empty or long texts) do not make.
func (tt *typeTables) record(counts *[numTables]cache.Counts) {
	if counts[tabText] != (cache.Counts{}) {
		tt.text.Load().Record(counts[tabText])
	}
	if counts[tabLongText] != (cache.Counts{}) {
		tt.longTable().Record(counts[tabLongText])
	}
	for _, id := range fixedTables {
		if counts[id] != (cache.Counts{}) {
			tt.fixed[id].Load().Record(counts[id])
		}
	}
}

// typeColumn decides whether a result column of another type than numeric and
// hstore goes through a type table under the kinds in set, and which.
func typeColumn(m *pgtype.Map, fd *pgconn.FieldDescription, set driver.TypeSet) (kind columnKind, tab tableID) {
	if fd.Format == pgx.TextFormatCode {
		var k driver.TypeKind
		switch fd.DataTypeOID {
		case pgtype.TextOID:
			k = driver.TypeText
		case pgtype.VarcharOID:
			k = driver.TypeVarchar
		case pgtype.BPCharOID:
			k = driver.TypeBPChar
		case pgtype.NameOID:
			k = driver.TypeName
		case pgtype.UUIDOID:
			k = driver.TypeUUID
		default:
			// Enums (and every other type pgx has no codec for) reach stdlib
			// as the text the server sent: string(raw).
			if _, known := m.TypeForOID(fd.DataTypeOID); known || fd.DataTypeOID == 0 {
				return kindPlain, 0
			}
			k = driver.TypeEnum
		}
		if set.Has(k) {
			return kindText, tabText
		}
		return kindPlain, 0
	}
	if !pgxDefaultCodec(m, fd.DataTypeOID) {
		// The connection scans this OID with a codec of its own (another
		// ScanLocation, a custom int8 codec, …): the table's entries, made
		// by pgx's default codec, are not its values.
		return kindPlain, 0
	}
	var k driver.TypeKind
	switch fd.DataTypeOID {
	case pgtype.Int8OID:
		k, tab = driver.TypeInt8, tabInt8
	case pgtype.Int4OID:
		k, tab = driver.TypeInt4, tabInt4
	case pgtype.Int2OID:
		k, tab = driver.TypeInt2, tabInt4
	case pgtype.Float8OID:
		k, tab = driver.TypeFloat8, tabFloat8
	case pgtype.DateOID:
		k, tab = driver.TypeDate, tabDate
	case pgtype.TimestampOID:
		k, tab = driver.TypeTimestamp, tabTimestamp
	case pgtype.TimestamptzOID:
		k, tab = driver.TypeTimestamptz, tabTimestamptz
	default:
		return kindPlain, 0
	}
	if set.Has(k) {
		return kindFixed, tab
	}
	return kindPlain, 0
}

// defaultCodecs are pgx's own codecs for the fixed-size binary kinds, the
// codecs every entry of their tables was built with. (Text-format kinds need
// no such check: pgx scans any text-format value into a string as the text
// itself, whatever codec the OID has, and that string is their driver value.)
var defaultCodecs = func() map[uint32]pgtype.Codec {
	m := pgtype.NewMap()
	codecs := make(map[uint32]pgtype.Codec)
	for _, oid := range []uint32{pgtype.Int8OID, pgtype.Int4OID, pgtype.Int2OID, pgtype.Float8OID,
		pgtype.DateOID, pgtype.TimestampOID, pgtype.TimestamptzOID} {
		t, _ := m.TypeForOID(oid)
		codecs[oid] = t.Codec
	}
	return codecs
}()

// pgxDefaultCodec reports whether the connection whose type map is m scans
// values of oid with pgx's default codec, compared by value: a
// TimestamptzCodec with a ScanLocation, or any codec registered in its place
// (in AfterConnect, or later through Conn()), is not. Only then is a value
// of a shared type table the value this connection's stdlib conversion
// makes. It is asked once per column per result set. (Codecs of one dynamic
// type are compared with ==, which cannot panic: pgx's default codecs are
// comparable types, and values of different dynamic types compare unequal.
// A nil codec is no default either.)
func pgxDefaultCodec(m *pgtype.Map, oid uint32) bool {
	def, ok := defaultCodecs[oid]
	if !ok {
		return false
	}
	t, ok := m.TypeForOID(oid)
	return ok && sameCodec(t.Codec, def)
}

// sameCodec reports whether codec c scans as def, one of defaultCodecs,
// does: the same value, or for the time kinds, whose default codecs are
// pointers, a pointer to an equal codec (a registered
// &pgtype.TimestamptzCodec{} is the default; one with a ScanLocation is not).
func sameCodec(c, def pgtype.Codec) bool {
	if c == def {
		return true
	}
	switch d := def.(type) {
	case *pgtype.TimestampCodec:
		x, ok := c.(*pgtype.TimestampCodec)
		return ok && x != nil && *x == *d
	case *pgtype.TimestamptzCodec:
		x, ok := c.(*pgtype.TimestamptzCodec)
		return ok && x != nil && *x == *d
	}
	return false
}

// lookupTextRaw records one sighting of a text-kind value and returns its
// entry (hit or admission) or nil. Texts of up to 8 bytes are keyed by
// cache.Pack, longer ones up to MaxTextKey by hash; the empty text and longer
// ones bypass (stdlib's string("") costs nothing anyway). conv is the
// column's stdlib conversion, run once at admission. long may be nil when raw
// is not a text for it.
func lookupTextRaw(short *cache.Short[sqldriver.Value], long *cache.Long[sqldriver.Value], raw []byte, conv func([]byte) (sqldriver.Value, error), counts *[numTables]cache.Counts) (sqldriver.Value, outcome) {
	if key, ok := cache.Pack(raw); ok {
		return sightShort(short, key, raw, &counts[tabText], func(raw []byte) (sqldriver.Value, bool) { return buildValue(raw, conv) })
	}
	c := &counts[tabLongText]
	if len(raw) <= cache.MaxShortKey || len(raw) > MaxTextKey {
		c.Bypasses++
		return nil, missed
	}
	return sightLong(long, raw, c, func(raw []byte) (sqldriver.Value, string, bool) {
		// The table keeps the value's own string rather than a second copy.
		v, ok := buildValue(raw, conv)
		s, isString := v.(string)
		return v, s, ok && isString
	})
}

// lookupFixedRaw is lookupTextRaw for fixed-size binary values, keyed by
// their own wire bytes (cache.PackFixed) in the column's type table.
func lookupFixedRaw(t *cache.Short[sqldriver.Value], raw []byte, conv func([]byte) (sqldriver.Value, error), c *cache.Counts) (sqldriver.Value, outcome) {
	key, ok := cache.PackFixed(raw)
	if !ok {
		c.Bypasses++
		return nil, missed
	}
	return sightShort(t, key, raw, c, func(raw []byte) (sqldriver.Value, bool) { return buildValue(raw, conv) })
}

// buildValue is stdlib's driver value for raw, boxed once, with ok false
// when the conversion fails (the caller then reports stdlib's error on every
// read).
func buildValue(raw []byte, conv func([]byte) (sqldriver.Value, error)) (sqldriver.Value, bool) {
	v, err := conv(raw)
	if err != nil {
		return nil, false
	}
	return v, true
}
