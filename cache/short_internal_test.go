package cache

import (
	"fmt"
	"testing"
	"unsafe"
)

// collidingKeys returns n packed decimal texts that share one Short slot,
// found by brute force, with their texts.
func collidingKeys(t testing.TB, n int) ([]uint64, []string) {
	t.Helper()
	bySlot := make(map[uint64][]int)
	for i := 0; ; i++ {
		key := mustPack(t, fmt.Sprint(i))
		s := shortSlot(key)
		bySlot[s] = append(bySlot[s], i)
		if len(bySlot[s]) == n {
			keys := make([]uint64, n)
			texts := make([]string, n)
			for j, v := range bySlot[s] {
				texts[j] = fmt.Sprint(v)
				keys[j] = mustPack(t, texts[j])
			}
			return keys, texts
		}
	}
}

func mustPack(t testing.TB, s string) uint64 {
	t.Helper()
	key, ok := PackString(s)
	if !ok {
		t.Fatalf("PackString(%q) failed", s)
	}
	return key
}

func TestShortSlots(t *testing.T) {
	if Slots != 4096 {
		t.Errorf("Slots = %d, want 4096", Slots)
	}
	if shortSlot(0) != zeroSlot {
		t.Errorf("key 0 is in slot %d, not zeroSlot", shortSlot(0))
	}
	if shortSlot(1<<63) == zeroSlot {
		t.Error("the zeroSlot sentinel's key 1<<63 belongs to zeroSlot")
	}
	// Consecutive decimals should spread: 4096 of them fill most slots.
	used := make(map[uint64]bool)
	for i := range Slots {
		used[shortSlot(mustPack(t, fmt.Sprintf("%d.%02d", i/100, i%100)))] = true
	}
	if len(used) < Slots*6/10 {
		t.Errorf("4096 consecutive decimals use only %d slots", len(used))
	}
}

func TestShortAdmission(t *testing.T) {
	keys, texts := collidingKeys(t, 3)
	a, b, c := keys[0], keys[1], keys[2]
	t.Logf("%q, %q and %q share slot %d", texts[0], texts[1], texts[2], shortSlot(a))

	for _, tt := range []struct {
		name   string
		seq    []uint64
		admits []bool
	}{
		{"A,A", []uint64{a, a}, []bool{false, true}},
		{"A,B,A", []uint64{a, b, a}, []bool{false, false, false}},
		{"A,B,A,A", []uint64{a, b, a, a}, []bool{false, false, false, true}},
		{"A,A,A", []uint64{a, a, a}, []bool{false, true, true}},
		{"A,B,C,B", []uint64{a, b, c, b}, []bool{false, false, false, false}},
		{"A,B,B,A", []uint64{a, b, b, a}, []bool{false, false, true, false}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tab := NewShort[string]()
			for i, key := range tt.seq {
				if got := tab.Sight(key); got != tt.admits[i] {
					t.Errorf("sighting %d: Sight = %v, want %v", i, got, tt.admits[i])
				}
			}
		})
	}

	// Keys in other slots do not disturb the seen word.
	other := mustPack(t, "x")
	for shortSlot(other) == shortSlot(a) {
		other++
	}
	tab := NewShort[string]()
	tab.Sight(a)
	tab.Sight(other)
	if !tab.Sight(a) {
		t.Error("a sighting in another slot broke A,A")
	}
}

func TestShortSeenStoresOnlyOnChange(t *testing.T) {
	tab := NewShort[int]()
	key := mustPack(t, "1.5")
	tab.Sight(key)
	if got := tab.seen[shortSlot(key)].Load(); got != key {
		t.Fatalf("seen word = %#x, want %#x", got, key)
	}
	tab.Put(key, 1)
	if got := tab.seen[shortSlot(key)].Load(); got != key {
		t.Errorf("Put changed the seen word to %#x", got)
	}
}

func TestShortGet(t *testing.T) {
	keys, texts := collidingKeys(t, 2)
	a, b := keys[0], keys[1]
	tab := NewShort[string]()
	if v, ok := tab.Get(a); ok {
		t.Fatalf("empty table: Get = %q, true", v)
	}
	tab.Put(a, texts[0])
	if v, ok := tab.Get(a); !ok || v != texts[0] {
		t.Errorf("Get(a) = %q, %v; want %q, true", v, ok, texts[0])
	}
	if v, ok := tab.Get(b); ok {
		t.Errorf("Get(b) returned a's value %q", v)
	}
	tab.Put(b, texts[1])
	if v, ok := tab.Get(a); ok {
		t.Errorf("Get(a) after b replaced it = %q, true", v)
	}
	if v, ok := tab.Get(b); !ok || v != texts[1] {
		t.Errorf("Get(b) = %q, %v; want %q, true", v, ok, texts[1])
	}
}

// TestShortSentinel checks that no key, not even 0 or the zeroSlot sentinel's
// key, matches a slot that was never put.
func TestShortSentinel(t *testing.T) {
	tab := NewShort[int]()
	for _, key := range []uint64{0, 1 << 63, 1, ^uint64(0)} {
		if v, ok := tab.Get(key); ok {
			t.Errorf("empty table: Get(%#x) = %d, true", key, v)
		}
	}
	for i := range uint64(1 << 16) {
		if _, ok := tab.Get(i*0x10001 + 1); ok {
			t.Fatalf("empty table: Get(%d) hit", i)
		}
	}
	// Two sightings in a row of the "nothing seen" word must still not admit.
	if first, second := tab.Sight(0), tab.Sight(0); first || second {
		t.Error("Sight admitted key 0")
	}
	if e := tab.Stats().Entries; e != 0 {
		t.Errorf("empty table has %d entries", e)
	}
}

func TestShortResetAndStats(t *testing.T) {
	tab := NewShort[int]()
	keys := make(map[uint64]int)
	for i := range 1000 {
		key := mustPack(t, fmt.Sprint(i))
		tab.Put(key, i)
		keys[shortSlot(key)] = i
	}
	tab.Sight(mustPack(t, "a"))
	tab.Record(Counts{Hits: 7, Misses: 2})
	tab.Record(Counts{Hits: 2, Admissions: 1, Bypasses: 4})

	s := tab.Stats()
	want := Stats{Hits: 9, Misses: 2, Admissions: 1, Bypasses: 4, Slots: Slots, Entries: len(keys)}
	if s != want {
		t.Errorf("Stats = %+v, want %+v", s, want)
	}
	if r := s.HitRatio(); r != 0.75 {
		t.Errorf("HitRatio = %v, want 0.75", r)
	}

	tab.Reset()
	for i := range 1000 {
		if v, ok := tab.Get(mustPack(t, fmt.Sprint(i))); ok {
			t.Fatalf("after Reset: Get(%d) = %d, true", i, v)
		}
	}
	for i := range tab.seen {
		if w := tab.seen[i].Load(); w != 0 {
			t.Fatalf("after Reset: seen[%d] = %#x", i, w)
		}
	}
	want.Entries = 0
	if s := tab.Stats(); s != want {
		t.Errorf("after Reset: Stats = %+v, want %+v", s, want)
	}
	if _, ok := tab.Get(0); ok {
		t.Error("after Reset: Get(0) hit")
	}
}

func TestHitRatioEmpty(t *testing.T) {
	if r := (Stats{Bypasses: 5}).HitRatio(); r != 0 {
		t.Errorf("HitRatio with no lookups = %v", r)
	}
}

// TestFootprint pins the struct sizes the package documentation quotes.
func TestFootprint(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("the documented figures are for 64-bit platforms")
	}
	if got := unsafe.Sizeof(Short[*int]{}); got != 65584 {
		t.Errorf("Short is %d bytes, the docs say 65,584", got)
	}
	if got := unsafe.Sizeof(Long[*int]{}); got != 65592 {
		t.Errorf("Long is %d bytes, the docs say 65,592", got)
	}
	if got := unsafe.Sizeof(entry[*int]{}); got != 16 {
		t.Errorf("entry[*int] is %d bytes, the docs say 16", got)
	}
	if got := unsafe.Sizeof(textEntry[*int]{}); got != 32 {
		t.Errorf("textEntry[*int] is %d bytes, the docs say 32", got)
	}
	if got := unsafe.Offsetof(Short[*int]{}.seen) - unsafe.Offsetof(Short[*int]{}.slots); got != 8*Slots {
		t.Errorf("seen starts %d bytes after slots", got)
	}
}

func TestAllocs(t *testing.T) {
	short := NewShort[*int]()
	key := mustPack(t, "12.50")
	short.Put(key, new(int))
	long := NewLong[*int](256)
	text := []byte("a long enough text to need the Long table, far over eight bytes")
	h := long.Hash(text)
	long.Put(h, string(text), new(int))
	var sink int
	if n := testing.AllocsPerRun(100, func() {
		if _, ok := short.Get(key); ok {
			sink++
		}
		short.Sight(key + 1)
		h := long.Hash(text)
		if _, ok := long.Get(h, text); ok {
			sink++
		}
		if _, ok := long.GetString(long.HashString("abc"), "abc"); ok {
			sink++
		}
		long.Sight(h + 1)
		short.Record(Counts{Hits: 1})
	}); n != 0 {
		t.Errorf("the lookup paths allocated %v times", n)
	}
	if sink != 2*101 { // AllocsPerRun adds a warm-up run
		t.Errorf("%d hits, want 202", sink)
	}
}
