package pgcache_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/pgcache/pgcache"
	"github.com/pgcache/pgcache/internal/pgtest"
)

// heapGrowthLimit bounds how much the live heap may grow while a result of
// all-distinct values streams. The tables' own worst case is well under it
// for numeric (776 KiB), and the hstore texts here are short.
const heapGrowthLimit = 8 << 20

// TestHeapFlatStreaming streams heapRows rows of all-distinct numeric and
// hstore values (10M without -race, 2M with it, at most 1M with -short: see
// heap_race_test.go) and checks, after a forced GC at every tenth of the way
// and after the end, that the live heap has not grown by more than
// heapGrowthLimit: nothing a result set reads is kept, by the cache or by the
// driver.
func TestHeapFlatStreaming(t *testing.T) {
	needHstore(t)
	rows := heapRows
	if testing.Short() {
		rows = min(rows, 1_000_000)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	db := openDB(t, pcDriver, pgtest.DSN(t))
	db.SetMaxOpenConns(1)
	if err := db.PingContext(ctx); err != nil {
		t.Fatal(err)
	}
	pgcache.ResetCache()
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	base := heap()
	start := time.Now()
	var peak uint64
	res, err := db.QueryContext(ctx, fmt.Sprintf(
		`select i::numeric + 0.5, hstore('k', i::text) from (select generate_series(1, %d) i) s`, rows))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	var num, hs string
	for res.Next() {
		if err := res.Scan(&num, &hs); err != nil {
			t.Fatal(err)
		}
		n++
		if n%(rows/10) == 0 {
			if want := fmt.Sprintf("%d.5", n); num != want {
				t.Fatalf("row %d: %q, want %q", n, num, want)
			}
			h := heap()
			peak = max(peak, h)
			if h > base+heapGrowthLimit {
				t.Fatalf("after %d rows the live heap is %d bytes, %d more than before the query (limit %d)", n, h, h-base, heapGrowthLimit)
			}
		}
	}
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
	res.Close()
	if n != rows {
		t.Fatalf("%d rows, want %d", n, rows)
	}
	end := heap()
	if end > base+heapGrowthLimit {
		t.Errorf("after the query the live heap is %d bytes, %d more than before (limit %d)", end, end-base, heapGrowthLimit)
	}
	s := pgcache.Stats()
	t.Logf("%d rows in %v; live heap %d before, peak %d while streaming, %d after; numeric entries %d, hstore entries %d",
		rows, time.Since(start).Round(time.Millisecond), base, peak, end, s.Numeric.Entries, s.Hstore.Entries)
}
