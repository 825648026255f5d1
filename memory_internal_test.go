package pgcache

import (
	sqldriver "database/sql/driver"
	"encoding/binary"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"

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

// TestTypeTablesFootprint backs the README's bound for the pgcache_types
// tables: the hashed text table full of MaxTextKey-byte texts, and a fixed
// table full of time.Time values (the largest boxed value).
func TestTypeTablesFootprint(t *testing.T) {
	conv := func(raw []byte) (sqldriver.Value, error) { return string(raw), nil }
	before := heapAfterGC()
	long := cache.NewLong[sqldriver.Value](MaxTextKey)
	var c cache.Counts
	fillSlots(t, func() int { return long.Stats().Entries },
		func(text []byte) {
			sightLong(long, text, &c, func(raw []byte) (sqldriver.Value, string, bool) {
				v, ok := buildValue(raw, conv)
				return v, v.(string), ok
			})
		},
		func(i int) []byte { return []byte(fmt.Sprintf("%064d", i)) })
	usedLong := heapAfterGC() - before
	runtime.KeepAlive(long)

	before = heapAfterGC()
	fixed := cache.NewShort[sqldriver.Value]()
	epoch := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	timeConv := func(raw []byte) (sqldriver.Value, error) {
		return epoch.Add(time.Duration(binary.BigEndian.Uint64(raw))), nil
	}
	fillSlots(t, func() int { return fixed.Stats().Entries },
		func(raw []byte) {
			key, _ := cache.PackFixed(raw)
			sightShort(fixed, key, raw, &c, func(raw []byte) (sqldriver.Value, bool) { return buildValue(raw, timeConv) })
		},
		func(i int) []byte { return binary.BigEndian.AppendUint64(nil, uint64(i)*1_000_000) })
	usedFixed := heapAfterGC() - before
	runtime.KeepAlive(fixed)

	t.Logf("text table with %d entries of %d-byte texts: %d KiB; time table with %d entries: %d KiB",
		cache.Slots, MaxTextKey, usedLong/1024, cache.Slots, usedFixed/1024)
	if limit := uint64(1 << 20); usedLong > limit {
		t.Errorf("long text table keeps %d bytes, README promises under %d", usedLong, limit)
	}
	if limit := uint64(512 << 10); usedFixed > limit {
		t.Errorf("fixed-size table keeps %d bytes, README promises under %d", usedFixed, limit)
	}
}

// TestCachedColumnSize: advance's per-row loop walks Rows.cached; an element
// of one cache line keeps its index arithmetic a shift.
func TestCachedColumnSize(t *testing.T) {
	if got := unsafe.Sizeof(cachedColumn{}); got != 64 {
		t.Errorf("cachedColumn is %d bytes, want 64", got)
	}
}
