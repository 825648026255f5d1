package cache

import "hash/maphash"

// seed is the one maphash seed of the process, shared by every [Long] so a
// hash computed for one table is valid for all of them.
var seed = maphash.MakeSeed()

// textEntry is one published text and value of a [Long]. It is never modified
// after it is stored in a slot.
type textEntry[V any] struct {
	hash uint64
	text string
	val  V
}

// Long is a direct-mapped table of [Slots] entries keyed by whole texts of 1 to
// maxText bytes, for texts too long for a [Short]. Create one with [NewLong];
// the zero value is not usable.
//
// A text's slot is the top 12 bits of its [Long.Hash]; a hit requires the same
// hash and a byte-identical text. The admission rule and the immutability of
// entries are those of [Short]: Get, then on a miss Sight, then Put on the
// second sighting in a row. Get is lock-free and allocates nothing. Values are
// shared between all readers and must not be mutated.
//
// On 64-bit platforms a Long occupies 65,592 bytes (72 KiB of pages) and holds
// at most 4096 entries of 24+sizeof(V) bytes each plus their texts, each at
// most maxText bytes; what V points to is the caller's. All methods are safe
// for concurrent use.
type Long[V any] struct {
	maxText             int
	table[textEntry[V]] // sentinels: hash 0 everywhere, hash ^0 (slot 4095) in zeroSlot
}

// NewLong returns an empty table for texts of 1 to maxText bytes. maxText
// bounds the memory the table's texts can take: [Slots] × maxText bytes. It
// panics if maxText < 1.
func NewLong[V any](maxText int) *Long[V] {
	if maxText < 1 {
		panic("cache: NewLong: maxText must be at least 1")
	}
	t := &Long[V]{maxText: maxText}
	t.init(&textEntry[V]{hash: 0}, &textEntry[V]{hash: ^uint64(0)})
	return t
}

// MaxText returns the longest text the table takes, as given to [NewLong].
// Callers should bypass the table for longer texts.
func (t *Long[V]) MaxText() int {
	return t.maxText
}

// Hash returns the hash of text used to address the table: a [maphash] hash
// with one process-wide seed, never 0 (0 is mapped to 1), so that 0 can stand
// for "nothing seen". It does not allocate.
func (t *Long[V]) Hash(text []byte) uint64 {
	return nonZero(maphash.Bytes(seed, text))
}

// HashString returns the same value as [Long.Hash] for the same bytes.
func (t *Long[V]) HashString(text string) uint64 {
	return nonZero(maphash.String(seed, text))
}

func nonZero(h uint64) uint64 {
	if h == 0 {
		return 1
	}
	return h
}

// Get returns the value published for text and true, or the zero V and false.
// h must be t.Hash(text). Get matches only an entry with the same hash and a
// byte-identical text; it writes nothing, takes no lock and does not allocate.
func (t *Long[V]) Get(h uint64, text []byte) (V, bool) {
	e := t.slots[h>>slotShift].Load()
	if e.hash == h && e.text == string(text) {
		return e.val, true
	}
	var zero V
	return zero, false
}

// GetString is [Long.Get] for a string text.
func (t *Long[V]) GetString(h uint64, text string) (V, bool) {
	e := t.slots[h>>slotShift].Load()
	if e.hash == h && e.text == text {
		return e.val, true
	}
	var zero V
	return zero, false
}

// Sight records a miss of the text with hash h in its slot and reports
// whether the previous miss recorded in that slot had the same hash, that is,
// whether this is the second sighting in a row and the caller should build
// the value and [Long.Put] it. See [Short.Sight]. Sight never admits hash 0,
// which [Long.Hash] never returns.
func (t *Long[V]) Sight(h uint64) (admit bool) {
	return t.sight(h>>slotShift, h)
}

// Put publishes v for text, replacing whatever entry the slot of h held with
// one atomic pointer store. h must be t.Hash(text). The entry keeps text, so
// the caller must pass a string it owns that is never modified (not one
// aliasing a reused read buffer) and that is not a slice of a larger string,
// which the entry would keep reachable whole. A text that is empty or longer
// than [Long.MaxText] is not stored, which keeps the table within its memory
// bound.
func (t *Long[V]) Put(h uint64, text string, v V) {
	if len(text) == 0 || len(text) > t.maxText {
		return
	}
	t.slots[h>>slotShift].Store(&textEntry[V]{hash: h, text: text, val: v})
}

// Record adds a reader's counts to the table's cumulative [Stats].
func (t *Long[V]) Record(c Counts) { t.counts.record(c) }

// Stats returns a snapshot of the counts and the number of entries. It scans
// all slots and is meant for monitoring, not for hot paths.
func (t *Long[V]) Stats() Stats { return t.stats() }

// Reset drops every entry and every seen word, so the entries' memory can be
// collected once no reader holds their values. The counts are cumulative and
// stay. Reset may run concurrently with other methods; a Put that races with it
// may survive it.
func (t *Long[V]) Reset() { t.reset() }
