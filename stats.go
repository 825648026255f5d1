package pgcache

import "github.com/pgcache/pgcache/cache"

// CacheStats is a snapshot of the process-wide cache, one table per type.
//
// Counts are published by each result set when it is closed (database/sql
// closes it after the last row), so a result set still being read is not
// counted yet. Each table's Hits + Misses + Admissions + Bypasses is the number
// of non-NULL values read through it.
//
// The tables after Hstore serve the column types of the pgcache_types option.
// Each is allocated the first time a connection with that option reads a
// column of its kind; until then it reports zeros, Slots included.
type CacheStats struct {
	Numeric cache.Stats
	Hstore  cache.Stats

	Text        cache.Stats // text, varchar, char(n), name, enum and uuid texts of up to 8 bytes
	LongText    cache.Stats // the same kinds, 9 to MaxTextKey bytes; longer ones count as its bypasses
	Int8        cache.Stats
	Int4        cache.Stats // int4 and int2
	Float8      cache.Stats
	Date        cache.Stats
	Timestamp   cache.Stats
	Timestamptz cache.Stats
}

// Stats returns the cache's counters and occupancy.
func Stats() CacheStats {
	s := CacheStats{Numeric: numericTable.Stats(), Hstore: hstoreTable.Stats()}
	tt := &typeTabs
	s.Text = shortStats(tt.text.Load())
	s.LongText = longStats(tt.longText.Load())
	s.Int8 = shortStats(tt.fixed[tabInt8].Load())
	s.Int4 = shortStats(tt.fixed[tabInt4].Load())
	s.Float8 = shortStats(tt.fixed[tabFloat8].Load())
	s.Date = shortStats(tt.fixed[tabDate].Load())
	s.Timestamp = shortStats(tt.fixed[tabTimestamp].Load())
	s.Timestamptz = shortStats(tt.fixed[tabTimestamptz].Load())
	return s
}

// ResetCache empties every table (entries and sightings) and lets their
// memory be collected. Values already handed out stay valid. Counters are not
// reset; take differences of [Stats] snapshots instead.
func ResetCache() {
	numericTable.Reset()
	hstoreTable.Reset()
	typeTabs.reset()
}
