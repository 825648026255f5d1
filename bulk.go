package pgcache

import (
	sqldriver "database/sql/driver"
	"fmt"
	"math/bits"

	"github.com/pgcache/pgcache/cache"
)

// Rows passed in bulk. When every cached column of a result set is in a
// skip, advance passes the rows until the shortest skip ends without looking
// at them: no lookup, no tracker, only a count. startBulk shortens every
// column's skip by the whole pass at once; the rows passed are counted in
// bulkHere and become bypasses at publish (countBulk), one for each cached
// column of each row, less the exceptions counted as the rows come — NULLs
// (no bypass at all) and text-kind texts of more than 8 bytes (the hashed
// table's bypasses) — by nextBulk on Go 1.26 and NextRow on Go 1.27,
// straight into the result set's counts.
//
// A pass outlives the result set it started in: a kept Rows whose result
// sets passed every row in bulk goes on with the same pass in its next
// result set, so that a short query of columns the back-off has judged
// costs neither a pass's start nor its end. The trackers, which already
// count the whole pass, get back the rows it did not pass (endBulk) before
// anything else reads them: when the pass ends early in a result set that
// also looks values up, when a lazy column wakes, and before the memory is
// read (start) or written (publish's slow path, flushMemory).

// keepPasses lets a bulk pass outlive its result set. Tests turn it off to
// compare with a Rows that settles every pass at publish.
var keepPasses = true

// startBulk starts passing rows in bulk: every cached column is in a skip.
// The columns' skips are shortened by the n rows until the shortest ends,
// and the cells, which may hold the previous row's entries, are emptied.
func (r *Rows) startBulk() {
	r.touched = true
	n := r.cached[0].reuse.SkipLeft()
	for k := range r.cached {
		n = min(n, r.cached[k].reuse.SkipLeft())
	}
	for k := range r.cached {
		cc := &r.cached[k]
		if cc.reuse.SkipRows(n) {
			r.backedOff--
		}
		r.empty(cc)
	}
	r.bulkRows = n
}

// endBulk ends a bulk pass after the current row, giving each column's
// skip back the rows startBulk took for it that are still to come.
func (r *Rows) endBulk() {
	left := r.bulkRows
	if left == 0 {
		return
	}
	r.touched = true
	for k := range r.cached {
		if r.cached[k].reuse.UnskipRows(left) {
			r.backedOff++
		}
	}
	r.bulkRows = 0
}

// countBulk counts the rows this result set passed in bulk as bypasses: one
// for each cached column, in its table. (Their exceptions were taken back
// from the counts as the rows came.)
func (r *Rows) countBulk() {
	n, p := uint64(r.bulkHere), r.plan
	for tabs := p.tabs; tabs != 0; tabs &= tabs - 1 {
		id := tableID(bits.TrailingZeros16(tabs))
		r.counts[id].Bypasses += n * uint64(p.tabCols[id])
	}
	r.bulkHere = 0
}

// countBypass counts a value of cc that a skip passed by: NULLs not at
// all, text-kind texts the packed table does not take in the hashed one.
// (Such a text is counted in cc.bypassed with the rest and moved from the
// column's table to the hashed one in r.counts at once: the counts are
// modular, and flush adds cc.bypassed later.)
func (r *Rows) countBypass(cc *cachedColumn, raw []byte) {
	if raw != nil {
		cc.bypassed++
		if !packable(raw) && cc.kind == kindText {
			r.counts[tabLongText].Bypasses++
			r.counts[cc.tab].Bypasses--
		}
	}
}

// packable reports whether a text-kind value goes to the packed text table
// (1 to 8 bytes) rather than the hashed one's counts, as lookupTextRaw
// sorts them.
func packable(raw []byte) bool { return uint(len(raw))-1 < cache.MaxShortKey }

// flush adds the counts cc keeps itself to counts: its hits, and the values
// its skip passed by in rows not passed in bulk as bypasses of its own table
// (countBypass has moved those of the hashed text table there already).
func (cc *cachedColumn) flush(counts *[numTables]cache.Counts) {
	if cc.hits|cc.bypassed == 0 {
		return // a short result set's looked-up column
	}
	counts[cc.tab].Hits += cc.hits
	counts[cc.tab].Bypasses += cc.bypassed
	cc.hits, cc.bypassed = 0, 0
}

// nextBulk is Next for a row passed in bulk: stdlib's loop, which also
// takes the NULLs of cached columns back from the bypasses countBulk counts,
// where a NULL costs a test the loop makes anyway, and moves the text-kind
// texts that belong to the hashed table's counts there, where a short text
// costs a length test. (NextRow does the same with countBulkRow.)
func (r *Rows) nextBulk(dest []sqldriver.Value, raws [][]byte) error {
	// One bounds check each, not one a column (see Next).
	conv, cols, dest := r.plan.conv[:len(raws)], r.cols[:len(raws)], dest[:len(raws)]
	for i, raw := range raws {
		if raw == nil {
			dest[i] = nil
			r.uncountNull(i)
			continue
		}
		if uint(len(raw)) > cache.MaxShortKey && cols[i].kind == kindText {
			// A text-kind text the packed table does not take.
			r.countLong()
		}
		v, err := conv[i](raw)
		if err != nil {
			// The NULLs the loop will not reach are still no bypasses.
			r.uncountNulls(raws, i+1)
			return fmt.Errorf("convert field %d failed: %w", i, err)
		}
		dest[i] = v
	}
	return nil
}

// countLong moves a bypass of a row passed in bulk from the packed text
// table, where countBulk counts it, to the hashed one: a text-kind text of
// more than 8 bytes.
func (r *Rows) countLong() {
	r.counts[tabText].Bypasses--
	r.counts[tabLongText].Bypasses++
}

// uncountNulls takes the NULLs of a row passed in bulk, from column from
// on, back from the bypasses countBulk counts.
func (r *Rows) uncountNulls(raws [][]byte, from int) {
	for i := from; i < len(raws); i++ {
		if raws[i] == nil {
			r.uncountNull(i)
		}
	}
}

// uncountNull takes a NULL in column i of a row passed in bulk back from the
// bypasses countBulk counts, if the column is cached. (The counts are
// unsigned and may wrap below zero until countBulk adds the rows: the sum is
// right when publish records it.)
func (r *Rows) uncountNull(i int) {
	if col := &r.cols[i]; col.kind != kindPlain {
		r.counts[col.tab].Bypasses--
	}
}
