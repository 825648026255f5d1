package cache

import (
	"strconv"
	"sync/atomic"
)

// Counts are one reader's tallies, kept in a plain struct it owns (for example
// one per result set) and published to a table in one go with [Short.Record] or
// [Long.Record]. Keeping them private keeps every write off the shared hit path.
// Counts is not safe for concurrent use; it is not meant to be shared.
//
// Every value a reader handles counts exactly once: a lookup is a hit, a miss
// or (a miss that was the second sighting in a row) an admission; a value no
// table can take is a bypass.
type Counts struct {
	Hits       uint64 // lookups that found the value
	Misses     uint64 // lookups that did not, and did not admit
	Admissions uint64 // lookups that did not, and built and put the value
	Bypasses   uint64 // values not looked up because no table takes them (too long, a last byte NUL, ...)
}

// String formats c as {hits 3, misses 1, admissions 1, bypasses 0}.
func (c Counts) String() string {
	b := make([]byte, 0, 64)
	b = append(b, "{hits "...)
	b = strconv.AppendUint(b, c.Hits, 10)
	b = append(b, ", misses "...)
	b = strconv.AppendUint(b, c.Misses, 10)
	b = append(b, ", admissions "...)
	b = strconv.AppendUint(b, c.Admissions, 10)
	b = append(b, ", bypasses "...)
	b = strconv.AppendUint(b, c.Bypasses, 10)
	b = append(b, '}')
	return string(b)
}

// Stats is a snapshot of a table, returned by [Short.Stats] and [Long.Stats].
// The counts are cumulative sums of everything published with Record; Slots
// is the table size ([Slots]) and Entries the number of slots holding a real
// entry at the time of the snapshot.
type Stats struct {
	Hits, Misses, Admissions, Bypasses uint64
	Slots, Entries                     int
}

// HitRatio returns the share of lookups that hit, Hits/(Hits+Misses+Admissions),
// or 0 before any lookup. Bypasses are not lookups and do not count.
func (s Stats) HitRatio() float64 {
	lookups := s.Hits + s.Misses + s.Admissions
	if lookups == 0 {
		return 0
	}
	return float64(s.Hits) / float64(lookups)
}

// Since returns the counts published to the table between the snapshots
// before and s: s's counts less before's, one by one. Both must be snapshots
// of the same table, before taken first.
func (s Stats) Since(before Stats) Counts {
	return Counts{
		Hits:       s.Hits - before.Hits,
		Misses:     s.Misses - before.Misses,
		Admissions: s.Admissions - before.Admissions,
		Bypasses:   s.Bypasses - before.Bypasses,
	}
}

// counters are a table's cumulative counts.
type counters struct {
	hits, misses, admissions, bypasses atomic.Uint64
}

// record adds c, skipping the zero counts so a typical result set costs two
// or three atomic adds.
func (n *counters) record(c Counts) {
	if c.Hits != 0 {
		n.hits.Add(c.Hits)
	}
	if c.Misses != 0 {
		n.misses.Add(c.Misses)
	}
	if c.Admissions != 0 {
		n.admissions.Add(c.Admissions)
	}
	if c.Bypasses != 0 {
		n.bypasses.Add(c.Bypasses)
	}
}

// snapshot returns the counts, with Slots set and Entries left to the caller.
func (n *counters) snapshot() Stats {
	return Stats{
		Hits:       n.hits.Load(),
		Misses:     n.misses.Load(),
		Admissions: n.admissions.Load(),
		Bypasses:   n.bypasses.Load(),
		Slots:      Slots,
	}
}
