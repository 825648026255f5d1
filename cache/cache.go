// Package cache holds small, fixed-size, direct-mapped tables that map the text
// of a value to a shared, immutable value built from it, so that a text seen
// again costs a lookup instead of a parse and an allocation. It knows nothing
// about PostgreSQL and does no I/O.
//
//	numerics := cache.NewShort[*apd.Decimal]() // one per process
//	...
//	if key, ok := cache.PackString(text); ok {
//		if d, hit := numerics.Get(key); hit {
//			return d // shared: must not be modified
//		}
//		...
//	}
//
// The package example shows the whole read path.
//
// # Tables
//
// [Short] is keyed by a text of 1 to [MaxShortKey] bytes packed into a uint64 by
// [Pack] or [PackString]. [Long] is keyed by a 64-bit hash ([Long.Hash]) plus
// the full text, for texts of any length up to a limit fixed at [NewLong]. Each
// table has [Slots] slots. A key can live in exactly one slot, which holds at most
// one entry; a new entry replaces the old one whole. There is no eviction policy
// and no resizing, so a table never grows beyond the footprint given below.
//
// # Hit path
//
// [Short.Get] costs one multiply and shift (the slot), one atomic pointer load
// and one compare. [Long.Get] compares the hash and then the text bytes. Reads
// take no lock and write nothing, not even a counter. An entry is never mutated
// after [Short.Put] or [Long.Put] publishes it with a single atomic pointer
// store, so a reader sees the old entry or the new one, never a mix. Every slot
// starts with a sentinel entry that matches no key, so Get has no nil check.
//
// Values come back shared: every reader that hits gets the same V. Callers must
// treat a V (and whatever it points to) as read-only.
//
// # Admission
//
// A miss does not insert. The caller reports it with Sight, which records the
// key in a per-slot "seen" word, and only builds and Puts the value when Sight
// says this is the second sighting of the key in a row in that slot: "A, A"
// admits A, "A, B, A" admits nothing. The reason is columns whose values never
// repeat (ids, amounts, timestamps stored as numeric). Without the rule every
// such value would allocate an entry and evict one that was being reused. With
// it, a stream of distinct values pays, beyond the failed lookup, one load and
// at most one store per value and allocates nothing, while a value that
// repeats is admitted on its second miss. The seen words live in an array apart from the entry pointers, so
// the stores made on the miss path do not invalidate the cache lines that
// hit-path readers load.
//
// # Statistics
//
// Nothing is counted on the hit or miss path. A reader tallies its own
// hits, misses, admissions and bypasses in a private, non-atomic [Counts] (for
// example one per result set) and publishes them once with Record: at most four
// atomic adds per result set. [Stats] is a snapshot.
//
// # Memory
//
// The figures are exact for 64-bit platforms. A table is one allocation made by
// [NewShort] or [NewLong] holding two arrays of [Slots] 8-byte words (entry
// pointers and seen words, 64 KiB) and a small header: a Short is 65,584 bytes
// and a Long 65,592 bytes, which the runtime rounds up to whole 8 KiB pages
// (73,728 bytes), plus two sentinel entries. Beyond that a table holds at most
// [Slots] entries at a time:
//
//   - Short[V]: an entry is 8+sizeof(V) bytes, rounded up to a Go size class.
//     For a pointer V that is 16 bytes: at most 64 KiB of entries, 136 KiB
//     for the whole table.
//   - Long[V]: an entry is 24+sizeof(V) bytes plus its text of at most maxText
//     bytes, each rounded up to a size class. For a pointer V and maxText 256
//     that is at most 128 KiB of entries and 1 MiB of text, 1,224 KiB for the
//     whole table.
//
// The footprint of V itself (what it points to) is the caller's. A table keeps
// only its current entries reachable; an entry it replaces becomes garbage
// once no reader holds its value.
//
// # Concurrency
//
// Every method of [Short] and [Long] may be called from any number of
// goroutines at once. Concurrent Puts of the same key are harmless: the last
// one wins, and the values are equal by construction.
package cache

import (
	"encoding/binary"
	"unsafe"
)

const (
	// Slots is the number of slots in every table, a power of two.
	Slots = 1 << slotBits

	// MaxShortKey is the longest text, in bytes, that [Pack] accepts and so
	// the longest a [Short] table can hold.
	MaxShortKey = 8
)

const (
	slotBits  = 12
	slotShift = 64 - slotBits

	// shortMul spreads a packed key over the slots (Fibonacci hashing): it is
	// odd, so multiplication is a bijection on uint64, and the top bits of the
	// product depend on every byte of the key.
	shortMul = 0x9e3779b97f4a7c15

	// zeroSlot is the slot of key 0 in a Short and of hash 0 in a Long, the
	// one slot whose sentinel must carry another key.
	zeroSlot = 0
)

// shortSlot returns the slot of a packed key: the top slotBits bits of
// key*shortMul.
func shortSlot(key uint64) uint64 {
	return key * shortMul >> slotShift
}

// Pack packs a text of 1 to [MaxShortKey] bytes into a non-zero key: the bytes
// little-endian, zero padded. ok is false, and key 0, for an empty text, a text
// longer than MaxShortKey bytes or one whose last byte is NUL; zero padding
// would otherwise give "1" and "1\x00" the same key. Distinct texts that Pack
// accepts get distinct keys: a key's highest non-zero byte is its text's last,
// so the key gives the text's length and then its bytes. (NUL bytes before
// the last are accepted; PostgreSQL's texts have none anyway.) Pack neither
// retains nor modifies b and does not allocate.
func Pack(b []byte) (key uint64, ok bool) {
	switch n := uint(len(b)); {
	case n-4 <= 4:
		if key, ok := PackMid(b); ok {
			return key, true
		}
	case n-1 < 3:
		return packTiny(b)
	}
	return 0, false
}

// PackMid is [Pack] for a text of 4 to 8 bytes, the common length of a
// numeric's text, small enough to be inlined into a caller's loop, where a
// call would spill the loop's live registers. It must not be given a text
// of another length (it panics); Pack takes any. Unlike
// Pack's, its key is meaningless when ok is false: a caller then tests one
// compare's flag, not a key merged from two paths.
func PackMid(b []byte) (key uint64, ok bool) {
	// Two 4-byte loads that overlap when n < 8; the last one's top byte is
	// the text's last. A multiply moves it to its place, not a shift by a
	// variable count, which amd64 makes in CX: a caller's loop keeps its
	// own values in the registers. (All on one line, the line of the
	// instructions that combine the loads: an inlined call with no
	// instruction on its line costs a caller's loop a NOP, the compiler's
	// inline mark. The last load is made once.)
	m := len(b) - 4
	return uint64(binary.LittleEndian.Uint32(b)) | uint64(binary.LittleEndian.Uint32(b[m:]))*midScale[m], binary.LittleEndian.Uint32(b[m:]) >= 1<<24
}

// midScale[n-4] moves the last 4 bytes of an n-byte text to their place in
// its key.
var midScale = [5]uint64{1, 1 << 8, 1 << 16, 1 << 24, 1 << 32}

// packTiny is [Pack] for a text of 1 to 3 bytes.
func packTiny(b []byte) (key uint64, ok bool) {
	// The first, middle and last byte, some of them the same.
	n := uint(len(b))
	last := b[n-1]
	if last == 0 {
		return 0, false
	}
	return uint64(b[0]) | uint64(b[n/2])<<(8*(n/2)) | uint64(last)<<(8*(n-1)), true
}

// PackString is [Pack] for a string: it returns the same result as
// Pack([]byte(s)) without converting or allocating.
func PackString(s string) (key uint64, ok bool) {
	// Pack only reads its argument, so viewing the string's bytes is safe.
	return Pack(unsafe.Slice(unsafe.StringData(s), len(s)))
}

// fixedMask moves the key of the all-zero 8-byte value (0, the epoch of a
// date or timestamp) away from 0, which a table never admits; the one value
// that packs to 0 instead is fixedMask itself.
const fixedMask = shortMul

// PackFixed packs a fixed-size binary value of 1 to 8 bytes, zero bytes
// allowed, into a key: the bytes big-endian, with a marker bit above them
// when there are fewer than 8, XORed with a constant. Distinct values of the
// same length get distinct keys, and so do values of different lengths
// below 8 bytes; an 8-byte value can share its key with a shorter one, so a
// table must not mix 8-byte values with shorter ones. ok is false for an
// empty or longer value. Like [Pack], it does not retain b or allocate.
func PackFixed(b []byte) (key uint64, ok bool) {
	switch len(b) {
	case 8:
		key = binary.BigEndian.Uint64(b)
	case 4:
		key = uint64(binary.BigEndian.Uint32(b)) | 1<<32
	case 2:
		key = uint64(binary.BigEndian.Uint16(b)) | 1<<16
	default:
		if len(b) == 0 || len(b) > 8 {
			return 0, false
		}
		for _, c := range b {
			key = key<<8 | uint64(c)
		}
		key |= 1 << (8 * len(b))
	}
	return key ^ fixedMask, true
}
