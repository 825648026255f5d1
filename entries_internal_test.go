package pgcache

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/pgcache/pgcache/cache"
)

// The README states the worst-case footprint of both tables. These tests fill
// a private table with 4096 worst-case entries — every slot admitted, each
// entry as large as the size limit allows — and check the heap they keep
// reachable against the documented bound.

// heapAfterGC returns the live heap after a full collection.
func heapAfterGC() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// fillSlots admits texts until every slot of a table holds an entry, feeding
// each text twice (the second sighting admits it).
func fillSlots(t *testing.T, entries func() int, admit func(text []byte), next func(i int) []byte) {
	t.Helper()
	for i := 0; entries() < cache.Slots; i++ {
		if i > 1_000_000 {
			t.Fatalf("only %d of %d slots filled", entries(), cache.Slots)
		}
		text := next(i)
		admit(text)
		admit(text)
	}
}

func TestNumericTableFootprint(t *testing.T) {
	before := heapAfterGC()
	tbl := cache.NewShort[*numEntry]()
	var c cache.Counts
	fillSlots(t, func() int { return tbl.Stats().Entries },
		func(text []byte) { numericValueIn(tbl, text, &c) },
		func(i int) []byte { return []byte(fmt.Sprintf("%d.%02d", 10000+i/100, i%100)) }) // 8 bytes each
	used := heapAfterGC() - before
	runtime.KeepAlive(tbl)
	t.Logf("numeric table with %d entries of 8-byte texts: %d KiB", cache.Slots, used/1024)
	if limit := uint64(1 << 20); used > limit {
		t.Fatalf("numeric table keeps %d bytes, README promises under %d", used, limit)
	}
}

// worstHstore returns a text of nearly MaxHstoreText bytes with as many pairs
// as fit and an escape in every key, so that the parsed value carries both
// the pair index and an unescaped copy of every key.
func worstHstore(i int) []byte {
	var b strings.Builder
	b.WriteString(`"\\` + strconv.Itoa(i) + `"=>NULL`)
	for k := 0; ; k++ {
		pair := `, "\\` + strconv.FormatInt(int64(k), 36) + `"=>""`
		if b.Len()+len(pair) > MaxHstoreText {
			break
		}
		b.WriteString(pair)
	}
	return []byte(b.String())
}

func TestHstoreTableFootprint(t *testing.T) {
	before := heapAfterGC()
	tbl := cache.NewLong[*hsEntry](MaxHstoreText)
	var c cache.Counts
	fillSlots(t, func() int { return tbl.Stats().Entries },
		func(text []byte) { hstoreValueIn(tbl, text, &c) },
		worstHstore)
	used := heapAfterGC() - before
	runtime.KeepAlive(tbl)
	t.Logf("hstore table with %d entries of %d-byte texts: %.1f MiB", cache.Slots, len(worstHstore(0)), float64(used)/(1<<20))
	if c.Bypasses != 0 {
		t.Fatalf("%d worst-case texts bypassed the cache; the test no longer measures the worst case", c.Bypasses)
	}
	if limit := uint64(16 << 20); used > limit {
		t.Fatalf("hstore table keeps %d bytes, README promises under %d", used, limit)
	}
}
