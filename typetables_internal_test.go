package pgcache

import (
	sqldriver "database/sql/driver"
	"encoding/binary"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/pgcache/pgcache/cache"
)

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
