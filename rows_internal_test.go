package pgcache

import (
	sqldriver "database/sql/driver"
	"testing"
	"unsafe"
)

// TestRowsSkippingCount: Rows.backedOff, by which advance decides to pass
// whole rows in bulk, is the number of cached columns in a skip after every
// row. A window that does not pay can be closed by a hit (a column churning
// the table): that skip must be counted too, or rows of such result sets
// would never pass in bulk.
func TestRowsSkippingCount(t *testing.T) {
	c, closeDB := rawConn(t, "pgcache_types=all")
	defer closeDB()
	rec := record(t, c, `SELECT 1000 + abs(hashint8extended(g, 0)) % 6000 AS id, 1000 + abs(hashint8extended(-g, 0)) % 6000 AS ref,
		hashint8extended(g, 1) AS distinct_id FROM generate_series(1, 200000) g`)
	dest := make([]sqldriver.Value, len(rec.fields))
	r := newRows(c, rec, true, rec.query)
	defer r.Close()
	var rows, bulk int
	for r.Next(dest) == nil {
		rows++
		n := 0
		for k := range r.cached {
			if r.cached[k].reuse.Skipping() {
				n++
			}
		}
		if r.backedOff != n {
			t.Fatalf("row %d: skipping is %d, %d columns are in a back-off", rows, r.backedOff, n)
		}
		if r.inBulk {
			bulk++
		}
	}
	t.Logf("%d of %d rows passed in bulk", bulk, rows)
	if rows != 200000 || bulk < rows/2 {
		t.Fatalf("%d of %d rows passed in bulk, want over half of 200000", bulk, rows)
	}
}

// TestCachedColumnSize: advance's per-row loop walks Rows.cached; an element
// of one cache line keeps its index arithmetic a shift.
func TestCachedColumnSize(t *testing.T) {
	if got := unsafe.Sizeof(cachedColumn{}); got != 64 {
		t.Errorf("cachedColumn is %d bytes, want 64", got)
	}
}
