package pgcache

import "github.com/pgcache/pgcache/cache"

// CacheStats is a snapshot of the process-wide cache, one table per type.
//
// Counts are published by each result set when it is closed (database/sql
// closes it after the last row), so a result set still being read is not
// counted yet. Each table's Hits + Misses + Admissions + Bypasses is the number
// of non-NULL values read through it.
//
// The tables after Hstore serve the column types of the pgcache_types option;
// they stay empty (and are not even allocated) until a connection with that
// option reads such a column.
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
	if tt := existingTypeTables(); tt != nil {
		s.Text = tt.text.Stats()
		s.LongText = tt.longText.Stats()
		s.Int8 = tt.fixed[tabInt8].Stats()
		s.Int4 = tt.fixed[tabInt4].Stats()
		s.Float8 = tt.fixed[tabFloat8].Stats()
		s.Date = tt.fixed[tabDate].Stats()
		s.Timestamp = tt.fixed[tabTimestamp].Stats()
		s.Timestamptz = tt.fixed[tabTimestamptz].Stats()
	}
	return s
}

// ResetCache empties every table (entries and sightings) and lets their
// memory be collected. Values already handed out stay valid. Counters are not
// reset; take differences of [Stats] snapshots instead.
func ResetCache() {
	numericTable.Reset()
	hstoreTable.Reset()
	if tt := existingTypeTables(); tt != nil {
		tt.text.Reset()
		tt.longText.Reset()
		for _, id := range fixedTables {
			tt.fixed[id].Reset()
		}
	}
}
