// Package expvar publishes pgcache's cache statistics through the standard
// library's expvar package. Importing it is all it takes:
//
//	import _ "github.com/pgcache/pgcache/expvar"
//
// The variable "pgcache" then appears at /debug/vars (when the program serves
// [expvar.Handler], or net/http's DefaultServeMux) as a JSON object holding
// [pgcache.Stats]: one object per table — "Numeric", "Hstore" and the tables
// of the pgcache_types option ("Text", "LongText", "Int8", "Int4", "Float8",
// "Date", "Timestamp", "Timestamptz"; zeros until first used) — each with the
// fields of cache.Stats (Hits, Misses, Admissions, Bypasses, Slots, Entries).
// The statistics are read each time the variable is, never cached.
//
// expvar names are process-wide and publishing one twice panics, so the
// variable is published only if no other package took the name first.
package expvar

import (
	"expvar"

	"github.com/pgcache/pgcache"
)

// Name is the expvar variable the statistics are published under.
const Name = "pgcache"

func init() {
	if expvar.Get(Name) == nil {
		expvar.Publish(Name, expvar.Func(func() any { return pgcache.Stats() }))
	}
}
