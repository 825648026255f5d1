package pgcache

import "github.com/pgcache/pgcache/cache"

// CacheStats is a snapshot of the process-wide cache, one table per type.
//
// Counts are published by each result set when it is closed (database/sql
// closes it after the last row), so a result set still being read is not
// counted yet. Each table's Hits + Misses + Admissions + Bypasses is the number
// of non-NULL values read through it.
type CacheStats struct {
	Numeric cache.Stats
	Hstore  cache.Stats
}

// Stats returns the cache's counters and occupancy.
func Stats() CacheStats {
	return CacheStats{Numeric: numericTable.Stats(), Hstore: hstoreTable.Stats()}
}

// ResetCache empties both tables (entries and sightings) and lets their
// memory be collected. Values already handed out stay valid. Counters are not
// reset; take differences of [Stats] snapshots instead.
func ResetCache() {
	numericTable.Reset()
	hstoreTable.Reset()
}
