package cache

// entry is one published key and value of a [Short]. It is never modified
// after it is stored in a slot.
type entry[V any] struct {
	key uint64
	val V
}

// Short is a direct-mapped table of [Slots] entries keyed by short texts packed
// with [Pack] or [PackString]. Create one with [NewShort], or declare one and
// call [Short.Init] before any other use; the zero value is not usable.
//
// A lookup is [Short.Get]; on a miss the caller calls [Short.Sight] and, when
// it reports the second sighting in a row, builds the value and publishes it
// with [Short.Put]. Get is lock-free and costs one multiply, one atomic load
// and one compare. Values are shared between all readers and must not be
// mutated.
//
// On 64-bit platforms a Short occupies 65,584 bytes (72 KiB of pages) and holds
// at most 4096 entries of 8+sizeof(V) bytes each; what V points to is the
// caller's. All methods are safe for concurrent use.
type Short[V any] struct {
	table[entry[V]] // sentinels: key 0 everywhere, key 1<<63 (slot 2048) in zeroSlot
}

// NewShort returns an empty table.
func NewShort[V any]() *Short[V] {
	t := new(Short[V])
	t.Init()
	return t
}

// Init readies a declared table, empty, as NewShort does a new one. It must
// come before any other use of t and not be repeated: it is not safe for
// concurrent use. (A table that is a variable, not a pointer to one, spares
// its callers' loops a nil check of the pointer.)
func (t *Short[V]) Init() {
	t.init(&entry[V]{key: 0}, &entry[V]{key: 1 << 63})
}

// Get returns the value published for key and true, or the zero V and false.
// It never returns a value put under another key. Get is the hit path: it
// writes nothing and takes no lock; callers count hits in a [Counts].
func (t *Short[V]) Get(key uint64) (V, bool) {
	// Every slot holds an entry (a sentinel when empty): its value is read
	// without a branch, which leaves the caller's one test of found.
	// (The slot is shortSlot's, written out: its multiply then stands on
	// this line, where the inline mark of Load finds an instruction rather
	// than costing a caller's loop a NOP.)
	e := t.slots[key*shortMul>>slotShift].Load()
	return e.val, e.key == key
}

// Sight records a miss of key in its slot and reports whether the previous
// miss recorded in that slot was the same key. True means this is the second
// sighting in a row: the caller should build the value and [Short.Put] it.
// A sighting of another key in between resets the count, so values that
// never repeat are never admitted. Sight never admits key 0, which [Pack]
// never returns. It records key with one atomic swap, whose old value is
// the test: a first sighting, the common miss, changes the recorded key
// anyway.
func (t *Short[V]) Sight(key uint64) (admit bool) {
	// table.sight's body, not a call to it: an inlined call with no
	// instruction on its line costs a caller's loop a NOP (the compiler's
	// inline mark).
	return t.seen[shortSlot(key)].Swap(key) == key && key != 0
}

// Put publishes v for key, replacing whatever entry the key's slot held with
// one atomic pointer store. key should come from [Pack] or [PackString]. The
// table keeps v as is; v must not be modified afterwards.
func (t *Short[V]) Put(key uint64, v V) {
	t.slots[shortSlot(key)].Store(&entry[V]{key: key, val: v})
}

// Record adds a reader's counts to the table's cumulative [Stats].
func (t *Short[V]) Record(c Counts) { t.counts.record(c) }

// Stats returns a snapshot of the counts and the number of entries. It scans
// all slots and is meant for monitoring, not for hot paths.
func (t *Short[V]) Stats() Stats { return t.stats() }

// Reset drops every entry and every seen word, so the entries' memory can be
// collected once no reader holds their values. The counts are cumulative and
// stay. Reset may run concurrently with other methods; a Put that races with it
// may survive it.
func (t *Short[V]) Reset() { t.reset() }
