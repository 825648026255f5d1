package pgcache

import (
	"hash/maphash"
	"sync"
	"sync/atomic"
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
// text and the column's position in it, both on the catalog (server and
// database) the connection reads (catalogKey).
//
// The memory is a direct-mapped table of memSlots slots, each a key, a
// tracker and a generation behind its own mutex: a fixed footprint
// (memSlots × 48 bytes, 192 KiB, whatever the number of distinct queries;
// TestBackoffMemoryFootprint). Result sets take nothing but one atomic load
// per cached column from it while they agree with it:
//
//   - A connection keeps the Rows of its closed result sets (plan.go), and
//     with them each column's tracker as the result set left it. A result
//     set that reuses a kept Rows checks, per column, that the slot's
//     generation is still the one the Rows last read or wrote (memRef):
//     then the memory holds nothing newer and the kept tracker goes on, no
//     lock taken. Otherwise, and for a newly planned Rows, the tracker is
//     read from the slot (recall), under its mutex.
//   - A closed result set writes a column's tracker back (remember) when
//     one of its windows ended (a judgement: cached, skipping, re-probing),
//     so that other connections and other queries of the column start from
//     it at their next result set; and a connection writes its kept
//     trackers back when it drops a kept Rows or closes (flushMemory), so
//     that the progress of windows not yet judged is not lost.
//
// A column whose slot another column took starts afresh, as before; two
// connections reading one column at once each go on with their own tracker
// until one of them judges a window, which the other then takes up.

// memSlots is the number of slots of the back-off's memory.
const memSlots = 4096

// memSlot is one column's remembered tracker; key 0 marks an empty slot.
// gen changes, under mu, with every write to the slot.
type memSlot struct {
	mu  sync.Mutex
	gen atomic.Uint32
	key uint64
	tr  reuseTracker
}

// memRef is what a Rows knows of a cached column's slot: the column's key,
// the slot's generation when the Rows last read or wrote it, and the number
// of the tracker's windows ended then (reuseTracker.ends), which tells
// Close whether the result set judged one.
type memRef struct {
	key  uint64
	gen  uint32
	ends uint8
	// lazySkip is a lazy column's own skip while planLazy's stands in for
	// it (Go 1.27).
	lazySkip int32
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

// catalogKey is key, a columnKey, on the catalog that [driver.Setup]'s
// Catalog identifies. Table OIDs and attribute numbers name columns of one
// server's database only (a physical standby shares them with its primary),
// and an expression's reuse depends on the data it reads, so one server's
// judgements must not reach another's columns: a process reading two
// servers keeps apart trackers for each. It flips bits 1 to 62 of key by
// catalog, a bijection for each catalog, so that keys differing on one
// catalog still differ, and keeps bit 63 (table column or expression) and
// bit 0 (an expression's key is odd), so a key is still never 0. A catalog
// of 0 (not resolved) leaves key as it is.
func catalogKey(key, catalog uint64) uint64 {
	return key ^ catalog&^(1<<63|1)
}

// hashQuery is the hash of query's text for columnKey, never 0. It is
// made when a result set is planned, once per query shape and connection
// (plan.go).
func hashQuery(query string) uint64 { return maphash.String(memSeed, query) | 1 }

// recall returns the tracker remembered for key, if any, and the slot's
// generation.
func recall(key uint64) (tr reuseTracker, gen uint32, ok bool) {
	s := memSlotOf(key)
	s.mu.Lock()
	tr, gen, ok = s.tr, s.gen.Load(), s.key == key
	s.mu.Unlock()
	return tr, gen, ok
}

// current reports whether key's slot is still at generation gen: written by
// no one since.
func current(key uint64, gen uint32) bool { return memSlotOf(key).gen.Load() == gen }

// remember keeps tr as key's tracker and returns the slot's new generation.
func remember(key uint64, tr reuseTracker) (gen uint32) {
	s := memSlotOf(key)
	s.mu.Lock()
	s.key, s.tr = key, tr
	gen = s.gen.Load() + 1
	s.gen.Store(gen)
	s.mu.Unlock()
	return gen
}

// forgetAll empties the memory (ResetCache). Every slot's generation moves
// on, so that kept Rows forget their trackers too.
func forgetAll() {
	for i := range backoffMemory {
		s := &backoffMemory[i]
		s.mu.Lock()
		s.key, s.tr = 0, reuseTracker{}
		s.gen.Add(1)
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
