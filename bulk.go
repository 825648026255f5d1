package pgcache

import (
	sqldriver "database/sql/driver"
	"fmt"

	"github.com/pgcache/pgcache/cache"
)

// Rows passed in bulk. When every cached column of a result set is in a
// skip, advance passes the rows until the shortest skip ends without looking
// at them: no lookup, no tracker, only the counts. They are counted in
// advance as bypasses, n rows for each column, and the exceptions taken back
// as the rows come — NULLs (no bypass at all) and text-kind texts of more
// than 8 bytes (the hashed table's bypasses) — by nextBulk on Go 1.26 and
// NextRow on Go 1.27; publish takes back the rows the result set did not
// have.

// startBulk starts passing rows in bulk: every cached column is in a skip.
// The columns' skips are shortened by the n rows until the shortest ends,
// each column counts n bypasses, and the cells, which may hold the previous
// row's entries, are emptied.
func (r *Rows) startBulk() {
	n := r.cached[0].reuse.SkipLeft()
	for k := range r.cached {
		n = min(n, r.cached[k].reuse.SkipLeft())
	}
	for k := range r.cached {
		cc := &r.cached[k]
		if cc.reuse.SkipRows(n) {
			r.backedOff--
		}
		cc.bypassed += uint64(n)
		r.empty(cc)
	}
	r.bulkRows = n
}

// endBulk ends a bulk pass after the current row, giving back what
// startBulk took for the rows still to come: each column's skip and its
// bypasses.
func (r *Rows) endBulk() {
	left := r.bulkRows
	if left == 0 {
		return
	}
	for k := range r.cached {
		cc := &r.cached[k]
		if cc.reuse.UnskipRows(left) {
			r.backedOff++
		}
		cc.bypassed -= uint64(left)
	}
	r.bulkRows = 0
}

// countBypass counts a value of cc that a skip passed by: NULLs not at
// all, text-kind texts the packed table does not take in the hashed one.
func (cc *cachedColumn) countBypass(raw []byte) {
	if raw != nil {
		cc.bypassed++
		if !packable(raw) && cc.kind == kindText {
			cc.bypassedLong++
		}
	}
}

// packable reports whether a text-kind value goes to the packed text table
// (1 to 8 bytes) rather than the hashed one's counts, as lookupTextRaw
// sorts them.
func packable(raw []byte) bool { return uint(len(raw))-1 < cache.MaxShortKey }

// flush adds the counts cc keeps itself to counts: its hits, and the values
// skips and bulk rows passed by as bypasses, of its own table or, for the text-kind texts
// that belong there, of the hashed text table.
func (cc *cachedColumn) flush(counts *[numTables]cache.Counts) {
	if cc.hits|cc.bypassed == 0 {
		return // a short result set's looked-up column (bypassedLong counts some of bypassed)
	}
	counts[cc.tab].Hits += cc.hits
	counts[cc.tab].Bypasses += cc.bypassed - cc.bypassedLong
	counts[tabLongText].Bypasses += cc.bypassedLong
	cc.hits, cc.bypassed, cc.bypassedLong = 0, 0, 0
}

// nextBulk is Next for a row passed in bulk: stdlib's loop, which also
// takes back the NULLs of cached columns from the bypasses startBulk
// counted, where a NULL costs a test the loop makes anyway; the text-kind
// texts that belong to the hashed table's counts first. (NextRow does the
// same with countBulkRow.)
func (r *Rows) nextBulk(dest []sqldriver.Value, raws [][]byte) error {
	r.countLongTexts(raws)
	conv := r.plan.conv
	for i, raw := range raws {
		if raw == nil {
			dest[i] = nil
			r.uncountNull(i)
			continue
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

// countLongTexts counts, in a row passed in bulk, the text-kind texts that
// the packed text table does not take: startBulk counted them as its
// bypasses, and they are the hashed table's.
func (r *Rows) countLongTexts(raws [][]byte) {
	for _, i := range r.plan.bulkText {
		if raw := raws[i]; !packable(raw) && raw != nil {
			r.cached[r.cols[i].cachedIdx].bypassedLong++
		}
	}
}

// uncountNulls takes the NULLs of a row passed in bulk, from column from
// on, back from the bypasses startBulk counted.
func (r *Rows) uncountNulls(raws [][]byte, from int) {
	for i := from; i < len(raws); i++ {
		if raws[i] == nil {
			r.uncountNull(i)
		}
	}
}

// uncountNull takes a NULL in column i of a row passed in bulk back from the
// bypasses startBulk counted, if the column is cached.
func (r *Rows) uncountNull(i int) {
	if col := &r.cols[i]; col.kind != kindPlain {
		r.cached[col.cachedIdx].bypassed--
	}
}
