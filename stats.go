package pgcache

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"sync"

	"github.com/jackc/pgx/v5"

	"github.com/pgcache/pgcache/cache"
	"github.com/pgcache/pgcache/driver"
	"github.com/pgcache/pgcache/internal/backoff"
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
	// pgcache_disable entries that match nothing: a table or column that
	// does not exist (yet), or a bare name no table or view has, which may
	// still name a result column's alias. A typo shows here; it is never an
	// error, since a table may be created after the pool opens. Connections
	// with a tracelog.TraceLog tracer also log each such entry at warn
	// level. [CacheStats].UnmatchedDisableBy says which database each
	// entry was reported for, and the same rules clear both.
	//
	// The list is process-wide and outlives the connections that reported
	// it. An entry is reported per database (host, port, database name and
	// user) and leaves the list when a connection to that database opens
	// with the entry and finds it matched (after the table is created), or
	// when every [database/sql.DB] whose connections reported it there is
	// closed (DB.Close closes its connector, which forgets what it
	// reported). Databases opened without the entry neither show nor clear
	// it.
	UnmatchedDisable []string

	// UnmatchedDisableBy is UnmatchedDisable with the database each entry
	// was reported for, sorted by entry and then database: an entry
	// unmatched in two databases is listed twice.
	UnmatchedDisableBy []UnmatchedEntry

	// Backoff is what the reuse back-off remembers between result sets.
	Backoff BackoffStats
}

// UnmatchedEntry is a pgcache_disable entry that matched nothing on
// connections to one database.
type UnmatchedEntry struct {
	// Entry is the entry in DSN spelling, such as "orders.note_totl".
	Entry string
	// Database names the server and database the connections opened, as
	// "host=db port=5432 dbname=shop user=app": never the password or any
	// other parameter of the DSN.
	Database string
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
	s.UnmatchedDisable, s.UnmatchedDisableBy = disableReports.unmatched()
	s.Backoff.Columns, s.Backoff.Skipping = backoff.Stats()
	return s
}

// disableReports remembers, per database and pgcache_disable entry (in DSN
// spelling), whether it matched nothing the last time a connection to that
// database looked it up, and which connectors' connections reported it.
var disableReports disableReport

type disableReport struct {
	mu sync.Mutex
	m  map[UnmatchedEntry]*disableState
}

type disableState struct {
	unmatched bool
	// by are the open connectors whose connections looked the entry up in
	// this database; the state is forgotten when the last one closes.
	by map[*connector]struct{}
}

// databaseOf names the database pc is connected to, without secrets.
func databaseOf(pc *pgx.Conn) string {
	cfg := pc.Config()
	return fmt.Sprintf("host=%s port=%d dbname=%s user=%s", cfg.Host, cfg.Port, cfg.Database, cfg.User)
}

// note records what a connection of c to database db found of each entry
// of its pgcache_disable and returns the entries it found unmatched that it
// is the first to report there since they last matched (or ever), so that
// a pool logs a typo once, not at every connection.
func (d *disableReport) note(c *connector, db string, s *driver.Setup) (fresh []driver.Column) {
	if len(s.Options.Disable) == 0 {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.m == nil {
		d.m = make(map[UnmatchedEntry]*disableState)
	}
	for _, col := range s.Options.Disable {
		key := UnmatchedEntry{Entry: col.String(), Database: db}
		unmatched := slices.Contains(s.Unmatched, col)
		st := d.m[key]
		if st == nil {
			st = &disableState{by: make(map[*connector]struct{})}
			d.m[key] = st
		}
		if unmatched && !st.unmatched {
			fresh = append(fresh, col)
		}
		st.unmatched = unmatched
		st.by[c] = struct{}{}
	}
	return fresh
}

// forget drops c from every entry it reported, and the entries no open
// connector reported.
func (d *disableReport) forget(c *connector) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for key, st := range d.m {
		delete(st.by, c)
		if len(st.by) == 0 {
			delete(d.m, key)
		}
	}
}

// unmatched returns the entries whose last lookup matched nothing, sorted
// and each once, and the same with their databases.
func (d *disableReport) unmatched() (entries []string, by []UnmatchedEntry) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for k, st := range d.m {
		if st.unmatched {
			by = append(by, k)
		}
	}
	slices.SortFunc(by, func(a, b UnmatchedEntry) int {
		return cmp.Or(cmp.Compare(a.Entry, b.Entry), cmp.Compare(a.Database, b.Database))
	})
	for _, e := range by {
		if len(entries) == 0 || entries[len(entries)-1] != e.Entry {
			entries = append(entries, e.Entry)
		}
	}
	return entries, by
}

// ResetCache empties every table (entries and sightings) and lets their
// memory be collected, and makes the back-off forget every column. Values already handed out stay valid. Counters are not
// reset; take differences of [Stats] snapshots instead.
func ResetCache() {
	backoff.ForgetAll()
	for id := range tableID(numTables) {
		if t := tableOf(id, false); t != nil {
			t.Reset()
		}
	}
}
