package pgcache

import (
	"hash/maphash"
	"sync"
)

// The back-off's memory. A column's reuse tracker (backoff.go) judges its
// lookups in windows of probeWindow, longer than most result sets: kept in
// its Rows alone, a result set of a few hundred rows would never be judged,
// and each new one would start from nothing — admitting, for a column whose
// values never come back, every second value again. So when a result set is
// closed, each cached column leaves its tracker here, under the column's
// identity, and the next result set of the same column starts from it: its
// windows, warm-up and skips run on across result sets as if they were one
// long one. A column that backs off starts its next result sets in its skip
// (bypassed, in bulk when every column is), and re-probes on the tracker's
// schedule; one that pays starts cached.
//
// A column's identity is its table OID and attribute number, as the server
// describes the result field, or for an expression (no table) the query's
// text and the column's position in it.
//
// The memory is a direct-mapped table of memSlots slots, each a key and a
// tracker behind its own mutex: a fixed footprint (memSlots × 40 bytes,
// 160 KiB, whatever the number of distinct queries; TestMemoryFootprint), one lock per
// cached column when a result set is planned and one when it is closed,
// none per value. A column whose slot another column took starts afresh,
// as before; two result sets of one column at once each start from the
// state they found, and the last to close is remembered.

// memSlots is the number of slots of the back-off's memory.
const memSlots = 4096

// memSlot is one column's remembered tracker; key 0 marks an empty slot.
type memSlot struct {
	mu  sync.Mutex
	key uint64
	tr  reuseTracker
}

// backoffMemory is the process-wide memory.
var backoffMemory [memSlots]memSlot

// memSeed keys the hash of query texts.
var memSeed = maphash.MakeSeed()

// memSlotOf returns key's slot.
func memSlotOf(key uint64) *memSlot {
	return &backoffMemory[(key*0x9e3779b97f4a7c15)>>(64-12)]
}

// A compile-time check that memSlotOf's shift matches memSlots.
var _ [memSlots - 1<<12]struct{}

// columnKey is the identity of result column i, described by its table
// OID and attribute number, of a query whose text hashes to queryHash (only
// read for an expression column). Never 0; a table column's and an
// expression's keys differ in their top bit.
func columnKey(tableOID uint32, attnum uint16, i int, queryHash uint64) uint64 {
	if tableOID != 0 {
		return uint64(tableOID)<<16 | uint64(attnum) | 1<<63
	}
	return (queryHash^uint64(i+1)*0xff51afd7ed558ccd)&^(1<<63) | 1
}

// queryHash is the hash of query's text for columnKey. A connection
// remembers its last one: applications run the same query text again and
// again, and comparing it costs less than hashing it.
func (c *Conn) queryHash(query string) uint64 {
	if c.lastQuery != query || c.lastHash == 0 {
		c.lastQuery, c.lastHash = query, maphash.String(memSeed, query)|1
	}
	return c.lastHash
}

// recall returns the tracker remembered for key, if any.
func recall(key uint64) (reuseTracker, bool) {
	s := memSlotOf(key)
	s.mu.Lock()
	tr, ok := s.tr, s.key == key
	s.mu.Unlock()
	return tr, ok
}

// remember keeps tr as key's tracker.
func remember(key uint64, tr reuseTracker) {
	s := memSlotOf(key)
	s.mu.Lock()
	s.key, s.tr = key, tr
	s.mu.Unlock()
}

// forgetAll empties the memory (ResetCache).
func forgetAll() {
	for i := range backoffMemory {
		s := &backoffMemory[i]
		s.mu.Lock()
		s.key, s.tr = 0, reuseTracker{}
		s.mu.Unlock()
	}
}

// memoryStats counts the remembered columns, and those of them in a skip:
// the columns whose next result set starts bypassed.
func memoryStats() (columns, skipping int) {
	for i := range backoffMemory {
		s := &backoffMemory[i]
		s.mu.Lock()
		if s.key != 0 {
			columns++
			if s.tr.skip > 0 {
				skipping++
			}
		}
		s.mu.Unlock()
	}
	return columns, skipping
}
