package pgcache

import (
	"reflect"
	"slices"
	"sync"

	"github.com/pgcache/pgcache/cache"
	"github.com/pgcache/pgcache/driver"
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

	// UnmatchedDisable lists, in DSN spelling and sorted, the
	// pgcache_disable entries that matched nothing the last time a
	// connection opened with them: a table or column that does not exist
	// (yet), or a bare name no table or view has, which may still name a
	// result column's alias. A typo shows here; it is never an error, since
	// a table may be created after the pool opens. Connections with a
	// tracelog.TraceLog tracer also log each such entry at warn level.
	UnmatchedDisable []string

	// Backoff is what the reuse back-off remembers between result sets.
	Backoff BackoffStats
}

// BackoffStats counts the columns whose reuse judgement outlives their
// result sets (ARCHITECTURE.md, "The reuse back-off"): Columns is how many
// the back-off's memory holds, Skipping how many of them start their next
// result set bypassing the tables, judged not to pay; the others start
// cached.
type BackoffStats struct {
	Columns, Skipping int
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
	s.UnmatchedDisable = disableReports.unmatched()
	s.Backoff.Columns, s.Backoff.Skipping = memoryStats()
	return s
}

// disableReports remembers, per pgcache_disable entry (in DSN spelling),
// whether it matched nothing the last time a connection looked it up.
var disableReports disableReport

type disableReport struct {
	mu sync.Mutex
	m  map[string]bool
}

// note records what a connection's lookup found of each entry of its
// pgcache_disable and returns the entries it found unmatched that it is the
// first to report since they last matched (or ever), so that a pool logs a
// typo once, not at every connection.
func (d *disableReport) note(s *driver.Setup) (fresh []driver.Column) {
	if len(s.Options.Disable) == 0 {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.m == nil {
		d.m = make(map[string]bool)
	}
	for _, c := range s.Options.Disable {
		key := c.String()
		unmatched := slices.Contains(s.Unmatched, c)
		if unmatched && !d.m[key] {
			fresh = append(fresh, c)
		}
		d.m[key] = unmatched
	}
	return fresh
}

// unmatched returns the entries whose last lookup matched nothing, sorted.
func (d *disableReport) unmatched() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []string
	for k, un := range d.m {
		if un {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// ResetCache empties every table (entries and sightings) and lets their
// memory be collected, and makes the back-off forget every column. Values already handed out stay valid. Counters are not
// reset; take differences of [Stats] snapshots instead.
func ResetCache() {
	forgetAll()
	for id := range tableID(numTables) {
		if t := tableOf(id, false); t != nil {
			t.Reset()
		}
	}
}
