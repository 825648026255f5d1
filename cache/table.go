package cache

import "sync/atomic"

// table is the part of [Short] and [Long] that does not depend on how an entry
// is keyed: the slot array, the seen words, the sentinels and the counts. E is
// the entry type (entry[V] or textEntry[V]).
//
// The slots, seen words and counts use sync/atomic's typed atomics, the one
// atomic package of this package: each method compiles to one plain load, one
// exchange or one locked add, and being small it leaves the inliner's budget
// to the callers (sight inlines, through Sight, into the miss path). Uint64
// is 64-bit aligned on every platform, 32-bit ones included, and go vet's
// copylocks check catches a table copied by value.
type table[E any] struct {
	// Sentinels: none fills every slot except zeroSlot, which gets noneZero.
	// Their keys (or hashes) do not belong to the slot they sit in, so neither
	// can match a Get. Read only by reset and stats; kept first so the seen
	// words' writes never share their line.
	none, noneZero *E

	slots [Slots]atomic.Pointer[E] // read by Get, written by Put
	seen  [Slots]atomic.Uint64     // keys or hashes, written by sight

	counts counters
}

// init installs the sentinels and fills the slots with them.
func (t *table[E]) init(none, noneZero *E) {
	t.none, t.noneZero = none, noneZero
	t.reset()
}

// sight records a miss of key in slot and reports whether the previous miss
// recorded there was the same key: the second sighting in a row. It never
// admits key 0, which stands for "nothing seen".
func (t *table[E]) sight(slot, key uint64) (admit bool) {
	// One swap, not a load and a store when the key changes: the common
	// miss, a first sighting, changes it, and the swap leaves the caller
	// one compare to test. (A second sighting stores the same key again.)
	return t.seen[slot].Swap(key) == key && key != 0
}

// stats returns the cumulative counts and the number of real entries. It
// scans all slots.
func (t *table[E]) stats() Stats {
	s := t.counts.snapshot()
	for i := range t.slots {
		if e := t.slots[i].Load(); e != t.none && e != t.noneZero {
			s.Entries++
		}
	}
	return s
}

// reset drops every entry and seen word; the counts stay.
func (t *table[E]) reset() {
	// Store only where something changes: an atomic store is a full
	// barrier on amd64, while a load is as cheap as a plain one.
	for i := range t.slots {
		none := t.none
		if i == zeroSlot {
			none = t.noneZero
		}
		if t.slots[i].Load() != none {
			t.slots[i].Store(none)
		}
		if t.seen[i].Load() != 0 {
			t.seen[i].Store(0)
		}
	}
}
