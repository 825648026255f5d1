package backoff

import (
	"testing"
	"unsafe"
)

// TestBackoffMemoryFootprint: the back-off's memory is memSlots slots of a
// fixed size, whatever the number of columns and queries seen.
func TestBackoffMemoryFootprint(t *testing.T) {
	if got := unsafe.Sizeof(backoffMemory); got != memSlots*48 {
		t.Errorf("the back-off's memory is %d bytes, want %d (memory.go documents it)", got, memSlots*48)
	}
}

// TestColumnKey: table columns are known by table and attribute, wherever
// they appear and whatever the query; expressions by the query and their
// position.
func TestColumnKey(t *testing.T) {
	q1, q2 := uint64(0x1234_5678_9abc), uint64(0x0fed_cba9_8765)
	for _, tt := range []struct {
		name string
		a, b uint64
		same bool
	}{
		{"table column in two queries", ColumnKey(16384, 2, 0, q1), ColumnKey(16384, 2, 5, q2), true},
		{"two attributes", ColumnKey(16384, 2, 0, q1), ColumnKey(16384, 3, 0, q1), false},
		{"expression in two positions", ColumnKey(0, 0, 0, q1), ColumnKey(0, 0, 1, q1), false},
		{"expression in two queries", ColumnKey(0, 0, 0, q1), ColumnKey(0, 0, 0, q2), false},
		{"table column and expression", ColumnKey(16384, 2, 0, 16384<<16|2), ColumnKey(0, 0, 0, 16384<<16|2), false},
	} {
		if (tt.a == tt.b) != tt.same || tt.a == 0 || tt.b == 0 {
			t.Errorf("%s: keys %#x and %#x; want same %t, never 0", tt.name, tt.a, tt.b, tt.same)
		}
	}
}

// TestQuickAdmissions: a column whose values come twice in a row and never
// again fails its window after QuickAdmissions admissions; one that repeats
// a value on consecutive rows and then hits it (a constant, an order's lines)
// does not.
func TestQuickAdmissions(t *testing.T) {
	tr := New()
	for i := range QuickAdmissions {
		if tr.ObserveAdmission(Missed, false) {
			t.Fatalf("pairs: a skip at miss %d", i)
		}
		started := tr.ObserveAdmission(Admitted, true)
		if started != (i == QuickAdmissions-1) {
			t.Fatalf("pairs: skip started %t at admission %d, want it at the %dth", started, i+1, QuickAdmissions)
		}
	}
	tr = New()
	for i := range 10 * QuickAdmissions {
		// Each value on three rows: a miss, a quick admission, a hit.
		if tr.ObserveAdmission(Missed, false) || tr.ObserveAdmission(Admitted, true) || tr.ObserveHit() {
			t.Fatalf("triples: a skip at value %d", i)
		}
	}
}

// TestCatalogKey: for each catalog, CatalogKey keeps distinct keys
// distinct, keeps a table column's key apart from an expression's (bit
// 63) and a key from 0; a catalog of 0 leaves keys as they are, and two
// catalogs give one column two keys.
func TestCatalogKey(t *testing.T) {
	q := HashQuery("select price from items")
	keys := []uint64{
		ColumnKey(16384, 1, 0, q), ColumnKey(16384, 2, 0, q), ColumnKey(16385, 1, 0, q),
		ColumnKey(0, 0, 0, q), ColumnKey(0, 0, 1, q), ColumnKey(0, 0, 0, HashQuery("select 1")),
	}
	for _, catalog := range []uint64{0, 1, 2, 1<<63 | 1, ^uint64(0), 0x9e3779b97f4a7c15} {
		seen := map[uint64]bool{}
		for i, k := range keys {
			ck := CatalogKey(k, catalog)
			if ck == 0 || seen[ck] {
				t.Errorf("catalog %#x: key %d (%#x) becomes %#x, zero or taken", catalog, i, k, ck)
			}
			seen[ck] = true
			if ck>>63 != k>>63 {
				t.Errorf("catalog %#x: key %#x becomes %#x, of the other kind", catalog, k, ck)
			}
			if catalog == 0 && ck != k {
				t.Errorf("catalog 0 changes key %#x to %#x", k, ck)
			}
		}
	}
	k := ColumnKey(16384, 1, 0, q)
	if CatalogKey(k, 0x1234_5678_9abc_def0) == CatalogKey(k, 0x0fed_cba9_8765_4320) {
		t.Error("one column has the same key on two catalogs")
	}
}

// TestSharedSlotKeepsTrackers: two columns whose keys share a slot, each
// with a kept tracker, do not start each other afresh when one writes its
// judgement there: each goes on with its own, and a column new to the
// connection whose slot another column holds starts new.
func TestSharedSlotKeepsTrackers(t *testing.T) {
	ForgetAll()
	defer ForgetAll()
	a := uint64(12345)
	b := a + 1
	for memSlotOf(b) != memSlotOf(a) {
		b++
	}
	ra, rb := NewRef(a), NewRef(b)
	ta, tb := New(), New()
	ra.Start(&ta, true)
	rb.Start(&tb, true)
	// Each judges a window (distinct values) and writes it at its Close.
	for range ProbeWindow {
		ta.Observe(Missed)
		tb.Observe(Missed)
	}
	if !ta.Skipping() || !tb.Skipping() {
		t.Fatal("the all-distinct windows did not start skips")
	}
	ra.Close(&ta, false)
	rb.Close(&tb, false) // takes the slot from a
	keptA := ta
	if loaded := ra.Start(&ta, false); loaded || ta != keptA {
		t.Errorf("a's kept tracker was replaced (loaded %t) after b took the slot: %+v, want %+v", loaded, ta, keptA)
	}
	if got, ok := rb.Remembered(); !ok || got != tb {
		t.Errorf("the slot holds %+v (b's: %t), want b's %+v", got, ok, tb)
	}
	// A fresh Rows of a on another connection: the memory does not know a.
	fresh := ta
	ra2 := NewRef(a)
	if loaded := ra2.Start(&fresh, true); !loaded || fresh != New() {
		t.Errorf("a fresh result set of a whose slot b holds starts from %+v, want a new tracker", fresh)
	}
}

// TestWrites: every change the memory's slots see is a write that Writes
// counts — a judgement or a column's first close (Ref.Close), a flushed
// tracker (Ref.Flush) and ForgetAll — and a result set that changes nothing (no window ended, a
// Start that keeps the kept tracker) is none. Rows.start skips its Refs'
// Start calls while Writes() is what it was at its last check, so a write
// it did not count would leave a kept tracker in use after the memory had
// something newer.
func TestWrites(t *testing.T) {
	ref := NewRef(ColumnKey(99999, 7, 0, 0))
	var tr Tracker
	step := func(what string, f func(), wantWrite bool) {
		t.Helper()
		before := Writes()
		f()
		if wrote := Writes() != before; wrote != wantWrite {
			t.Errorf("%s: a write counted %t, want %t", what, wrote, wantWrite)
		}
		if !ref.slotUnchanged() && !wantWrite {
			t.Errorf("%s: the slot changed", what)
		}
	}
	step("a fresh start", func() { ref.Start(&tr, true) }, false)
	step("the first close of a column not known", func() { ref.Close(&tr, false) }, true)
	step("a kept start", func() { ref.Start(&tr, false) }, false)
	step("a close that judged nothing", func() { ref.Close(&tr, false) }, false)
	step("a close that judged a window", func() {
		for !tr.ObserveMiss() && tr.WindowsEnded() == ref.ends {
		}
		ref.Close(&tr, false)
	}, true)
	step("a flush", func() { ref.Flush(&tr) }, true)
	step("ForgetAll", ForgetAll, true)
	if ref.slotUnchanged() {
		t.Error("ForgetAll left the slot's generation as it was")
	}
}
