package cache

import (
	"fmt"
	"strings"
	"testing"
)

// collidingTexts returns n texts built from prefix whose hashes share one
// Long slot, found by brute force (the seed differs per process).
func collidingTexts(t testing.TB, tab *Long[string], prefix string, n int) []string {
	t.Helper()
	bySlot := make(map[uint64][]string)
	for i := 0; ; i++ {
		text := fmt.Sprintf("%s%d", prefix, i)
		s := tab.HashString(text) >> slotShift
		bySlot[s] = append(bySlot[s], text)
		if len(bySlot[s]) == n {
			return bySlot[s]
		}
	}
}

func TestLongHash(t *testing.T) {
	tab := NewLong[int](64)
	for _, s := range []string{"", "a", `"a"=>"1"`, strings.Repeat("x", 1000)} {
		if h, hs := tab.Hash([]byte(s)), tab.HashString(s); h != hs || h == 0 {
			t.Errorf("Hash(%q) = %#x, HashString = %#x", s, h, hs)
		}
	}
	if h := NewLong[bool](1).HashString("a"); h != tab.HashString("a") {
		t.Error("two tables hash the same text differently")
	}
	if nonZero(0) != 1 || nonZero(5) != 5 {
		t.Error("nonZero does not map 0, and only 0, to 1")
	}
	if tab.MaxText() != 64 {
		t.Errorf("MaxText = %d", tab.MaxText())
	}
}

func TestLongAdmission(t *testing.T) {
	tab := NewLong[string](64)
	texts := collidingTexts(t, tab, `"k"=>"v`, 2)
	a, b := tab.HashString(texts[0]), tab.HashString(texts[1])
	if tab.Sight(a) || tab.Sight(b) || tab.Sight(a) {
		t.Error("A,B,A admitted")
	}
	if !tab.Sight(a) {
		t.Error("A,B,A,A did not admit A on the second sighting in a row")
	}
	// Two sightings in a row of the "nothing seen" word must still not admit.
	if first, second := tab.Sight(0), tab.Sight(0); first || second {
		t.Error("Sight admitted hash 0")
	}
}

func TestLongGet(t *testing.T) {
	tab := NewLong[string](64)
	texts := collidingTexts(t, tab, `"key"=>"value `, 2)
	a, b := texts[0], texts[1]
	ha, hb := tab.HashString(a), tab.HashString(b)
	tab.Put(ha, a, "value of "+a)
	if v, ok := tab.GetString(ha, a); !ok || v != "value of "+a {
		t.Errorf("GetString(a) = %q, %v", v, ok)
	}
	if v, ok := tab.Get(ha, []byte(a)); !ok || v != "value of "+a {
		t.Errorf("Get(a) = %q, %v", v, ok)
	}
	if v, ok := tab.GetString(hb, b); ok {
		t.Errorf("GetString(b) returned %q from the same slot", v)
	}

	// A hit needs the very bytes, even when the hash matches (here it is
	// forged: a real collision of 64-bit hashes cannot be found in a test).
	for _, other := range []string{a[:len(a)-1], a + " ", strings.ToUpper(a), a[:len(a)-1] + "\x00", b} {
		if v, ok := tab.GetString(ha, other); ok {
			t.Errorf("GetString(hash of %q, %q) = %q, true", a, other, v)
		}
		if v, ok := tab.Get(ha, []byte(other)); ok {
			t.Errorf("Get(hash of %q, %q) = %q, true", a, other, v)
		}
	}
	// The same text under the wrong hash does not match either.
	if _, ok := tab.GetString(ha^1, a); ok {
		t.Error("GetString matched with another hash")
	}

	tab.Put(hb, b, "value of "+b)
	if _, ok := tab.GetString(ha, a); ok {
		t.Error("a still found after b replaced it")
	}
	if v, ok := tab.GetString(hb, b); !ok || v != "value of "+b {
		t.Errorf("GetString(b) = %q, %v", v, ok)
	}
}

func TestLongPutBounds(t *testing.T) {
	tab := NewLong[int](10)
	for _, text := range []string{"", "12345678901"} {
		h := tab.HashString(text)
		tab.Put(h, text, 1)
		if _, ok := tab.GetString(h, text); ok {
			t.Errorf("Put stored a %d-byte text in a table of MaxText 10", len(text))
		}
	}
	text := "1234567890"
	tab.Put(tab.HashString(text), text, 1)
	if _, ok := tab.GetString(tab.HashString(text), text); !ok {
		t.Error("Put did not store a text of exactly MaxText bytes")
	}

	defer func() {
		if recover() == nil {
			t.Error("NewLong(0) did not panic")
		}
	}()
	NewLong[int](0)
}

func TestLongSentinel(t *testing.T) {
	tab := NewLong[int](64)
	for _, h := range []uint64{0, 1, ^uint64(0), 1 << 52} {
		for _, text := range []string{"", "a"} {
			if v, ok := tab.GetString(h, text); ok {
				t.Errorf("empty table: GetString(%#x, %q) = %d, true", h, text, v)
			}
		}
	}
	if e := tab.Stats().Entries; e != 0 {
		t.Errorf("empty table has %d entries", e)
	}
}

func TestLongResetAndStats(t *testing.T) {
	tab := NewLong[int](64)
	slots := make(map[uint64]bool)
	for i := range 1000 {
		text := fmt.Sprintf(`"id"=>"%d"`, i)
		h := tab.HashString(text)
		tab.Put(h, text, i)
		slots[h>>slotShift] = true
	}
	tab.Record(Counts{Hits: 1, Misses: 1, Admissions: 1, Bypasses: 1})
	want := Stats{Hits: 1, Misses: 1, Admissions: 1, Bypasses: 1, Slots: Slots, Entries: len(slots)}
	if s := tab.Stats(); s != want {
		t.Errorf("Stats = %+v, want %+v", s, want)
	}
	tab.Reset()
	want.Entries = 0
	if s := tab.Stats(); s != want {
		t.Errorf("after Reset: Stats = %+v, want %+v", s, want)
	}
	text := `"id"=>"1"`
	if _, ok := tab.GetString(tab.HashString(text), text); ok {
		t.Error("after Reset: Get hit")
	}
}
