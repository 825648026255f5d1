package pgcache

import (
	sqldriver "database/sql/driver"
	"sync"
	"sync/atomic"

	"github.com/pgcache/pgcache/cache"
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
