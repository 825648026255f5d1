package backoff

import (
	"hash/maphash"
	"sync"
	"sync/atomic"
)

// The back-off's memory. A column's Tracker judges its lookups in windows
// of ProbeWindow, longer than most result sets: kept in its result set
// alone, a result set of a few hundred rows would never be judged, and
// each new one would start from nothing — admitting, for a column whose
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
// database) the connection reads (CatalogKey).
//
// The memory is a direct-mapped table of memSlots slots, each a key, a
// tracker and a generation behind its own mutex: a fixed footprint
// (memSlots × 48 bytes, 192 KiB, whatever the number of distinct queries;
// TestBackoffMemoryFootprint). Result sets take nothing but one atomic load
// per cached column from it while they agree with it:
//
//   - A connection keeps the Rows of its closed result sets, and with them
//     each column's tracker and Ref as the result set left them. A result
//     set that reuses a kept Rows checks, per column, that the slot's
//     generation is still the one the Ref last read or wrote (Ref.Start):
//     then the memory holds nothing newer and the kept tracker goes on, no
//     lock taken. Otherwise, and for a newly planned Rows, the tracker is
//     read from the slot (Ref.Start), under its mutex.
//   - A closed result set writes a column's tracker back (Ref.Close) when
//     one of its windows ended (a judgement: cached, skipping, re-probing),
//     so that other connections and other queries of the column start from
//     it at their next result set; and a connection writes its kept
//     trackers back when it drops a kept Rows or closes (Ref.Flush), so
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
	tr  Tracker
}

// Ref is what a result set knows of a cached column's slot: the column's
// key, the slot's generation when the Ref last read or wrote it, and the
// number of the tracker's windows ended then (Tracker.ends), which tells
// Close whether the result set judged one. Make it with NewRef; it lives
// beside the column's Tracker, and its methods carry the tracker between
// the column's result sets.
type Ref struct {
	key  uint64
	slot *memSlot // key's slot (memSlotOf)
	gen  uint32
	ends uint8
	// ownSkip is a suspended column's own skip (Tracker.Suspend).
	ownSkip int32
}

// NewRef returns the Ref of the column whose identity is key (ColumnKey).
func NewRef(key uint64) Ref { return Ref{key: key, slot: memSlotOf(key)} }

// Start readies t for a new result set of ref's column, fresh when t is
// not a kept tracker of the column's last result set on this connection:
// the tracker the memory remembers for the column, a kept one when the
// memory has nothing newer for it (the slot unchanged, or taken by another
// column since), a new one when the memory does not know the column. It
// reports whether t was replaced, so is not the kept one.
func (ref *Ref) Start(t *Tracker, fresh bool) (loaded bool) {
	if fresh || !ref.slotUnchanged() {
		return ref.load(t, fresh)
	}
	return false
}

// load is Start's read of the memory, under the slot's mutex.
func (ref *Ref) load(t *Tracker, fresh bool) (loaded bool) {
	tr, gen, owner := readSlot(ref.key)
	switch {
	case owner == ref.key:
		*t, ref.gen, ref.ends = tr, gen, tr.ends
	case owner != 0 && !fresh:
		// Another column took the slot: two columns whose keys share a
		// slot would otherwise start each other afresh at each judgement.
		// The kept tracker goes on; its next judgement takes the slot back.
		ref.gen = gen
		return false
	default:
		// A column the memory does not know, or the memory forgot
		// (ForgetAll): its first Close writes it there (ends differs).
		// Behind the tracker's count, not ahead: a result set that ends
		// one window would bring it level and go unremembered.
		*t = New()
		ref.gen, ref.ends = gen, t.ends-1
	}
	return true
}

// Close ends the result set of ref's column, whose tracker is t: a tracker
// that ended a window since Start is remembered, a judgement other result
// sets should start from. A column still suspended (Tracker.Suspend) gets
// its own skip back and is remembered as the result set found it.
func (ref *Ref) Close(t *Tracker, suspended bool) {
	if suspended {
		t.skip = ref.ownSkip
		return
	}
	if t.ends != ref.ends {
		ref.store(t)
	}
}

// store is Close's write of a judgement to the memory, under the slot's
// mutex: out of line, so that Close, which every result set calls for
// every cached column, is inlined.
//
//go:noinline
func (ref *Ref) store(t *Tracker) { ref.gen, ref.ends = writeSlot(ref.key, *t), t.ends }

// Flush writes t, the tracker of a closed result set that is no longer
// kept, to the memory where the memory has nothing newer: the progress of
// windows not yet judged.
func (ref *Ref) Flush(t *Tracker) {
	if ref.slotUnchanged() {
		ref.gen = writeSlot(ref.key, *t)
	}
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

// ColumnKey is the identity of result column i, described by its table
// OID and attribute number, of a query whose text hashes to queryHash (only
// read for an expression column). Never 0; a table column's and an
// expression's keys differ in their top bit.
func ColumnKey(tableOID uint32, attnum uint16, i int, queryHash uint64) uint64 {
	if tableOID != 0 {
		return uint64(tableOID)<<16 | uint64(attnum) | 1<<63
	}
	return (queryHash^uint64(i+1)*0xff51afd7ed558ccd)&^(1<<63) | 1
}

// CatalogKey is key, a ColumnKey, on the catalog that driver.Setup's
// Catalog identifies. Table OIDs and attribute numbers name columns of one
// server's database only (a physical standby shares them with its primary),
// and an expression's reuse depends on the data it reads, so one server's
// judgements must not reach another's columns: a process reading two
// servers keeps apart trackers for each. It flips bits 1 to 62 of key by
// catalog, a bijection for each catalog, so that keys differing on one
// catalog still differ, and keeps bit 63 (table column or expression) and
// bit 0 (an expression's key is odd), so a key is still never 0. A catalog
// of 0 (not resolved) leaves key as it is.
func CatalogKey(key, catalog uint64) uint64 {
	return key ^ catalog&^(1<<63|1)
}

// HashQuery is the hash of query's text for ColumnKey, never 0. It is
// made when a result set is planned, once per query shape and connection.
func HashQuery(query string) uint64 { return maphash.String(memSeed, query) | 1 }

// readSlot returns the tracker, generation and key (owner: 0 for an empty
// slot) of key's slot; the tracker is key's when owner is key.
func readSlot(key uint64) (tr Tracker, gen uint32, owner uint64) {
	s := memSlotOf(key)
	s.mu.Lock()
	tr, gen, owner = s.tr, s.gen.Load(), s.key
	s.mu.Unlock()
	return tr, gen, owner
}

// writes counts the memory's writes: every change of a slot's generation
// is followed by one increment, so a reader that loads it before it checks
// its slots and finds it unchanged later knows that no slot changed since.
var writes atomic.Uint64

// Writes returns the number of writes to the memory so far. A result set
// whose Refs all agreed with the memory (Ref.Start) after it read Writes()
// as n agrees with it still while Writes() is n: its next result set may
// skip Ref.Start, whose every call would keep the kept tracker, unless it
// is fresh. (Its own judgements, Ref.Close and Ref.Flush, are writes too.)
func Writes() uint64 { return writes.Load() }

// slotUnchanged reports whether ref's slot is still at the generation ref last
// read or wrote: written by no one since.
func (ref *Ref) slotUnchanged() bool { return ref.slot.gen.Load() == ref.gen }

// writeSlot keeps tr as key's tracker and returns the slot's new generation.
func writeSlot(key uint64, tr Tracker) (gen uint32) {
	s := memSlotOf(key)
	s.mu.Lock()
	s.key, s.tr = key, tr
	gen = s.gen.Load() + 1
	s.gen.Store(gen)
	writes.Add(1) // after the generation: see writes
	s.mu.Unlock()
	return gen
}

// ForgetAll empties the memory (pgcache.ResetCache). Every slot's
// generation moves on, so that kept trackers are forgotten too.
func ForgetAll() {
	for i := range backoffMemory {
		s := &backoffMemory[i]
		s.mu.Lock()
		s.key, s.tr = 0, Tracker{}
		s.gen.Add(1)
		s.mu.Unlock()
	}
	writes.Add(1)
}

// Stats counts the remembered columns, and those of them in a skip: the
// columns whose next result set starts bypassed.
func Stats() (columns, skipping int) {
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

// SameSlot reports whether ref's column and o's share a slot of the
// memory, which remembers one of them at a time: for tests that count the
// columns it remembers.
func (ref *Ref) SameSlot(o *Ref) bool { return ref.slot == o.slot }

// Remembered returns the tracker the memory holds for ref's column, if
// any, for tests that check what a result set left there.
func (ref *Ref) Remembered() (t Tracker, ok bool) {
	t, _, owner := readSlot(ref.key)
	ok = owner == ref.key
	return t, ok
}

// WindowLeft is the number of lookups left in the tracker's current window
// (or its early part), for tests that follow a column's progress.
func (t *Tracker) WindowLeft() int32 { return t.left }

// WindowsEnded is the number of windows the tracker has ended, modulo 256,
// for tests that check what one result set judged.
func (t *Tracker) WindowsEnded() uint8 { return t.ends }
