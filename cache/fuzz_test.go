package cache

import (
	"encoding/binary"
	"fmt"
	"sync"
	"testing"
)

// The fuzz targets run random operation sequences against a table and a
// model of it (a map per slot for entries and for seen words), and check that
// a key never gets another key's value and that Sight admits exactly on the
// second sighting in a row.

// ops reads a fuzz input as operations: one byte each, some followed by an
// argument.
type ops struct{ data []byte }

func (o *ops) byte() (byte, bool) {
	if len(o.data) == 0 {
		return 0, false
	}
	b := o.data[0]
	o.data = o.data[1:]
	return b, true
}

func (o *ops) uint64() uint64 {
	var buf [8]byte
	n := copy(buf[:], o.data)
	o.data = o.data[n:]
	return binary.LittleEndian.Uint64(buf[:])
}

func (o *ops) bytes(max int) []byte {
	n, _ := o.byte()
	n %= byte(max + 1)
	if int(n) > len(o.data) {
		n = byte(len(o.data))
	}
	b := o.data[:n]
	o.data = o.data[n:]
	return b
}

// Tables are reused between runs of a fuzz function: a Reset of a table that
// is nearly empty is much cheaper than a new one.
var (
	shorts = sync.Pool{New: func() any { return NewShort[shortVal]() }}
	longs  = sync.Pool{New: func() any { return NewLong[longVal](fuzzMaxText) }}
)

type shortVal struct {
	key uint64
	n   int // which Put made it
}

func FuzzShort(f *testing.F) {
	// Universe: six keys in one slot, three in another, and keys 0 and 1<<63,
	// which sit in the zeroSlot and its sentinel's slot.
	group1, _ := collidingKeys(f, 6)
	var group2 []uint64
	for i := 0; len(group2) < 3; i++ {
		key := mustPack(f, fmt.Sprintf("-%d.5", i))
		if shortSlot(key) == shortSlot(group1[0]) {
			continue
		}
		if len(group2) == 0 || shortSlot(key) == shortSlot(group2[0]) {
			group2 = append(group2, key)
		}
	}
	universe := append(append(group1, group2...), 0, 1<<63, mustPack(f, "0"))

	f.Add([]byte{0x05, 0x05, 0x06}) // sight, sight, put: key 1
	f.Add([]byte{0x01, 0x05, 0x01, 0x02, 0x00})
	f.Add([]byte{0x05, 0x09, 0x05, 0x05, 0x0a, 0x04, 0x08})
	f.Add([]byte{0x31, 0x31, 0x32, 0x30, 0x33, 0x30})
	f.Add([]byte{0xfd, 1, 2, 3, 4, 5, 6, 7, 8, 0xfe, 1, 2, 3, 4, 5, 6, 7, 8, 0xfc, 1, 2, 3, 4, 5, 6, 7, 8})

	f.Fuzz(func(t *testing.T, data []byte) {
		tab := shorts.Get().(*Short[shortVal])
		defer shorts.Put(tab)
		tab.Reset()
		entries := make(map[uint64]shortVal) // slot -> entry
		seen := make(map[uint64]uint64)      // slot -> seen word
		puts := 0
		in := ops{data}
		for step := 0; ; step++ {
			op, more := in.byte()
			if !more {
				break
			}
			var key uint64
			if i := int(op >> 2); i < len(universe) {
				key = universe[i]
			} else {
				key = in.uint64()
			}
			s := shortSlot(key)
			switch op & 3 {
			case 0: // Get
				v, ok := tab.Get(key)
				e, inModel := entries[s]
				wantOK := inModel && e.key == key
				if ok != wantOK || (ok && v != e) {
					t.Fatalf("step %d: Get(%#x) = %+v, %v; model has %+v, %v", step, key, v, ok, e, wantOK)
				}
				if ok && v.key != key {
					t.Fatalf("step %d: Get(%#x) returned the value of %#x", step, key, v.key)
				}
			case 1: // Sight
				want := seen[s] == key && key != 0
				seen[s] = key
				if got := tab.Sight(key); got != want {
					t.Fatalf("step %d: Sight(%#x) = %v, want %v", step, key, got, want)
				}
			case 2: // Put
				puts++
				v := shortVal{key, puts}
				tab.Put(key, v)
				entries[s] = v
			case 3: // the caller's miss path, or now and then a Reset
				if op>>2 == 0 {
					tab.Reset()
					clear(entries)
					clear(seen)
					break
				}
				if _, ok := tab.Get(key); ok {
					break
				}
				admit := tab.Sight(key)
				modelAdmit := seen[s] == key && key != 0
				seen[s] = key
				if admit != modelAdmit {
					t.Fatalf("step %d: Sight(%#x) after a miss = %v, want %v", step, key, admit, modelAdmit)
				}
				if admit {
					puts++
					v := shortVal{key, puts}
					tab.Put(key, v)
					entries[s] = v
				}
			}
		}
		if got := tab.Stats().Entries; got != len(entries) {
			t.Fatalf("Stats().Entries = %d, model has %d", got, len(entries))
		}
	})
}

const fuzzMaxText = 16

type longVal struct {
	text string
	n    int // which Put made it
}

type longEntry struct {
	hash uint64
	val  longVal
}

func FuzzLong(f *testing.F) {
	const maxText = fuzzMaxText
	tab0 := NewLong[string](maxText)
	// Universe: five texts in one slot, two in another, and texts at and
	// just past the length limit.
	universe := collidingTexts(f, tab0, "t", 5)
	for _, text := range collidingTexts(f, tab0, "u", 2) {
		if tab0.HashString(text)>>slotShift != tab0.HashString(universe[0])>>slotShift {
			universe = append(universe, text)
		}
	}
	universe = append(universe, "0123456789abcdef", "0123456789abcdefg", "a")

	f.Add([]byte{0x05, 0x05, 0x06, 0x04})
	f.Add([]byte{0x07, 0x07, 0x0b, 0x07, 0x04, 0x08})
	f.Add([]byte{0x26, 0x24, 0x2a, 0x28}) // the 16- and 17-byte texts
	f.Add([]byte{0xfe, 3, 'a', 'b', 'c', 0xfc, 3, 'a', 'b', 'c', 0xfe, 3, 'a', 'b', 'd'})

	f.Fuzz(func(t *testing.T, data []byte) {
		tab := longs.Get().(*Long[longVal])
		defer longs.Put(tab)
		tab.Reset()
		entries := make(map[uint64]longEntry) // slot -> entry
		seen := make(map[uint64]uint64)       // slot -> seen hash
		puts := 0
		in := ops{data}
		for step := 0; ; step++ {
			op, more := in.byte()
			if !more {
				break
			}
			// op: bits 0-1 the operation, bit 2 "use another text's hash",
			// bits 3-7 the text: from the universe or read from the input.
			var text string
			if i := int(op >> 3); i < len(universe) {
				text = universe[i]
			} else {
				text = string(in.bytes(maxText + 2))
			}
			h := tab.HashString(text)
			if op&4 != 0 {
				// Often the hash of a text in the same slot: a forged
				// "collision" that only the byte comparison can tell apart.
				h = tab.HashString(universe[(int(op>>3)+1)%len(universe)])
			}
			s := h >> slotShift
			switch op & 3 {
			case 0, 1: // Get, GetString
				var v longVal
				var ok bool
				if op&1 == 0 {
					v, ok = tab.Get(h, []byte(text))
				} else {
					v, ok = tab.GetString(h, text)
				}
				e, inModel := entries[s]
				wantOK := inModel && e.hash == h && e.val.text == text
				if ok != wantOK || (ok && v != e.val) {
					t.Fatalf("step %d: Get(%#x, %q) = %+v, %v; model has %+v, %v", step, h, text, v, ok, e, wantOK)
				}
				if ok && v.text != text {
					t.Fatalf("step %d: Get(%q) returned the value of %q", step, text, v.text)
				}
			case 2: // Sight
				want := seen[s] == h
				seen[s] = h
				if got := tab.Sight(h); got != want {
					t.Fatalf("step %d: Sight(%#x) = %v, want %v", step, h, got, want)
				}
			case 3: // Put, or now and then a Reset
				if op>>3 == 0 && op&4 != 0 {
					tab.Reset()
					clear(entries)
					clear(seen)
					break
				}
				puts++
				v := longVal{text, puts}
				tab.Put(h, text, v)
				if len(text) > 0 && len(text) <= maxText {
					entries[s] = longEntry{h, v}
				}
			}
		}
		if got := tab.Stats().Entries; got != len(entries) {
			t.Fatalf("Stats().Entries = %d, model has %d", got, len(entries))
		}
	})
}
