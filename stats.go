package pgcache

import (
	"reflect"

	"github.com/pgcache/pgcache/cache"
)

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
	var s CacheStats
	v := reflect.ValueOf(&s).Elem()
	for id := range tableID(numTables) {
		if t := tableOf(id, false); t != nil {
			v.Field(statsFields[id]).Set(reflect.ValueOf(t.Stats()))
		}
	}
	return s
}

// ResetCache empties every table (entries and sightings) and lets their
// memory be collected. Values already handed out stay valid. Counters are not
// reset; take differences of [Stats] snapshots instead.
func ResetCache() {
	for id := range tableID(numTables) {
		if t := tableOf(id, false); t != nil {
			t.Reset()
		}
	}
}
