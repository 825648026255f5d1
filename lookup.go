package pgcache

import (
	sqldriver "database/sql/driver"

	"github.com/pgcache/pgcache/cache"
)

// The lookups advance makes for a cached column's value beyond its own
// packed-key hit path: a miss and its admission (admit), the hashed tables
// and the texts that do not pack (sight), and what they leave in the row.

// empty drops the entry cc's cell may hold from the previous row. It stores
// only when there may be one: a pointer store costs a write barrier while
// the GC runs.
func (r *Rows) empty(cc *cachedColumn) {
	if cc.hasEntry {
		if cellsRead {
			r.cols[cc.col].cell = cell{}
		}
		r.vals[cc.col] = nil
		cc.hasEntry = false
	}
}

// sight records one sighting of a cached column's value that advance could
// not key itself — hstore and text-kind texts for the hashed tables, and
// texts that do not pack — and keeps its entry, if any, in the column's
// cell. (Packed keys go through advance's own lookup, then admit.)
func (r *Rows) sight(cc *cachedColumn, col *column, raw []byte) {
	// Each lookup overwrites the value and the one typed field of the cell
	// its kind uses.
	var o outcome
	var v sqldriver.Value
	switch cc.kind {
	case kindNumeric:
		var e *numEntry
		if e, o = lookupNumericRaw(numericTable, raw, &r.counts[tabNumeric]); e != nil {
			v = e.value
		}
		col.cell.num = e
	case kindHstore:
		var e *hsEntry
		if e, o = lookupHstoreRaw(hstoreTable, raw, &r.counts[tabHstore]); e != nil {
			v = e.value
		}
		col.cell.hs = e
	case kindText, kindFixed:
		if cc.kind == kindText {
			if r.longText == nil && len(raw) > cache.MaxShortKey && len(raw) <= MaxTextKey {
				r.longText = typeTabs.longTable()
			}
			v, o = lookupTextRaw(r.text, r.longText, raw, r.conv[cc.col], &r.counts)
		} else {
			v, o = lookupFixedRaw(cc.table, raw, r.conv[cc.col], &r.counts[cc.tab])
		}
	}
	r.keep(cc, v, o)
}

// admit is sight for a value of a packed-key kind whose key advance has
// looked up and not found: its sighting, and its admission on a second one.
//
// k is cc's index in Rows.cached.
func (r *Rows) admit(cc *cachedColumn, k int, key uint64, raw []byte) {
	var v sqldriver.Value
	var o outcome
	switch cc.kind {
	case kindNumeric:
		var e *numEntry
		if e, o = admitShort(numericTable, key, raw, &r.counts[tabNumeric], buildNumEntry); e != nil {
			v = e.value
		}
		if cellsRead {
			r.cols[cc.col].cell.num = e
		}
	case kindText, kindFixed:
		t, c := cc.table, &r.counts[tabText]
		if cc.kind == kindFixed {
			c = &r.counts[cc.tab]
		}
		conv := r.conv[cc.col]
		v, o = admitShort(t, key, raw, c, func(raw []byte) (sqldriver.Value, bool) { return buildValue(raw, conv) })
	}
	r.vals[cc.col] = v
	cc.hasEntry = v != nil
	// An admission of the value the column missed on its previous lookup
	// is a value repeated on consecutive rows, which the back-off watches
	// for admissions that never hit (see reuseTracker.observeAdmission).
	last := &r.lastMiss[k]
	quick := key == *last
	if o == missed {
		*last = key
	}
	if cc.reuse.observeAdmission(o, quick) {
		r.backedOff++
	}
}

// keep ends sight and admit: the cell's driver value, and the lookup's
// outcome for the column's back-off.
func (r *Rows) keep(cc *cachedColumn, v sqldriver.Value, o outcome) {
	r.vals[cc.col] = v
	cc.hasEntry = v != nil
	if cc.reuse.observe(o) {
		r.backedOff++
	}
}
