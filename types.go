package pgcache

import (
	sqldriver "database/sql/driver"
	"sync"
	"sync/atomic"

	"github.com/pgcache/pgcache/cache"
	"github.com/pgcache/pgcache/internal/backoff"
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

// typeTables are the tables of the pgcache_types kinds. Each is made the
// first time a column of its kind is read, so that a process carries the
// memory, and the collector the work (every table is cache.Slots pointers
// each GC cycle marks), of the kinds its queries have, not of all of them.
type typeTables struct {
	mu       sync.Mutex                                              // held while making a table
	short    [numTables]atomic.Pointer[cache.Short[sqldriver.Value]] // indexed by tabText and the fixed-size tableIDs
	longText atomic.Pointer[cache.Long[sqldriver.Value]]
}

// typeTabs are the process-wide type tables.
var typeTabs typeTables

// textTable returns the packed table of the text kinds, making it on first
// use.
func (tt *typeTables) textTable() *cache.Short[sqldriver.Value] {
	return lazyTable(&tt.mu, &tt.short[tabText], cache.NewShort[sqldriver.Value])
}

// longTable returns the hashed table of the text kinds, making it the first
// time a text kind's text of 9 to MaxTextKey bytes is read or counted.
func (tt *typeTables) longTable() *cache.Long[sqldriver.Value] {
	return lazyTable(&tt.mu, &tt.longText, func() *cache.Long[sqldriver.Value] { return cache.NewLong[sqldriver.Value](MaxTextKey) })
}

// fixedTable returns the table of a fixed-size kind, making it on first use.
func (tt *typeTables) fixedTable(id tableID) *cache.Short[sqldriver.Value] {
	return lazyTable(&tt.mu, &tt.short[id], cache.NewShort[sqldriver.Value])
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

// lookupTextRaw records one sighting of a text-kind value and returns its
// entry (hit or admission) or nil. Texts of up to 8 bytes are keyed by
// cache.Pack, longer ones up to MaxTextKey by hash; the empty text and longer
// ones bypass (stdlib's string("") costs nothing anyway). conv is the
// column's stdlib conversion, run once at admission. long may be nil when raw
// is not a text for it.
func lookupTextRaw(short *cache.Short[sqldriver.Value], long *cache.Long[sqldriver.Value], raw []byte, conv func([]byte) (sqldriver.Value, error), counts *[numTables]cache.Counts) (sqldriver.Value, backoff.Outcome) {
	if key, ok := cache.Pack(raw); ok {
		return sightShort(short, key, raw, &counts[tabText], func(raw []byte) (sqldriver.Value, bool) { return buildValue(raw, conv) })
	}
	c := &counts[tabLongText]
	if len(raw) <= cache.MaxShortKey || len(raw) > MaxTextKey {
		c.Bypasses++
		return nil, backoff.Missed
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
func lookupFixedRaw(t *cache.Short[sqldriver.Value], raw []byte, conv func([]byte) (sqldriver.Value, error), c *cache.Counts) (sqldriver.Value, backoff.Outcome) {
	key, ok := cache.PackFixed(raw)
	if !ok {
		c.Bypasses++
		return nil, backoff.Missed
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
