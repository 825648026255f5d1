package pgcache

import (
	sqldriver "database/sql/driver"

	"github.com/pgcache/pgcache/cache"
	"github.com/pgcache/pgcache/decode"
	"github.com/pgcache/pgcache/internal/backoff"
	"github.com/pgcache/pgcache/internal/box"
)

// The lookups of the tables. advance serves a packed-key hit itself; a miss
// and its admission (admit), the hashed tables and the texts that do not
// pack (sight) come here, with what they leave in the row, and below them
// the lookups every kind shares: the read path of the packed-key tables
// (sightShort, admitShort) and of the hashed ones (sightLong), each with a
// build callback that makes an entry on admission (buildNumEntry,
// buildHsEntry, buildValue). Decimal's and Hstore's Scan look their texts up
// here too (lookupNumeric, lookupHstore).

// empty drops the entry cc's cell may hold from the previous row. It stores
// only when there may be one: a pointer store costs a write barrier while
// the GC runs.
func (r *Rows) empty(cc *cachedColumn) {
	if cc.hasEntry {
		if directRoutes {
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
	var o backoff.Outcome
	var v sqldriver.Value
	switch cc.kind {
	case kindNumeric:
		var e *numEntry
		if e, o = lookupNumericRaw(&numericTable, raw, &r.counts[tabNumeric]); e != nil {
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
			v, o = lookupTextRaw(r.plan.text, r.longText, raw, r.plan.conv[cc.col], &r.counts)
		} else {
			v, o = lookupFixedRaw(cc.table, raw, r.plan.conv[cc.col], &r.counts[cc.tab])
		}
	}
	r.recordLookup(cc, v, o)
}

// admit is sight for a value of a packed-key kind whose key advance has
// looked up and not found, and whose Sight in the table reported the
// second sighting in a row: its admission.
//
// k is cc's index in Rows.cached.
func (r *Rows) admit(cc *cachedColumn, k int, key uint64, raw []byte) {
	var v sqldriver.Value
	var o backoff.Outcome
	c := &r.counts[cc.tab]
	switch cc.kind {
	case kindNumeric:
		var e *numEntry
		if e, o = putShort(&numericTable, key, raw, c, buildNumEntry); e != nil {
			v = e.value
		}
		if directRoutes {
			r.cols[cc.col].cell.num = e
		}
	case kindText, kindFixed:
		conv := r.plan.conv[cc.col]
		v, o = putShort(cc.table, key, raw, c, func(raw []byte) (sqldriver.Value, bool) { return buildValue(raw, conv) })
	}
	r.keepValue(cc, v)
	// An admission of the value the column missed on its previous lookup
	// is a value repeated on consecutive rows, which the back-off watches
	// for admissions that never hit (see backoff.Tracker.ObserveAdmission).
	last := &cc.lastMiss
	quick := key == *last
	if o == backoff.Missed {
		*last = key
	}
	if cc.reuse.ObserveAdmission(o, quick) {
		r.backedOff++
	}
}

// keepValue makes v, an entry's driver value or nil for none, the cached
// column's value for the current row, and notes an entry in r.entries.
func (r *Rows) keepValue(cc *cachedColumn, v sqldriver.Value) {
	r.vals[cc.col] = v
	if cc.hasEntry = v != nil; cc.hasEntry {
		r.entries = true
	}
}

// recordLookup ends sight and admit: the cell's driver value, and the lookup's
// outcome for the column's back-off.
func (r *Rows) recordLookup(cc *cachedColumn, v sqldriver.Value, o backoff.Outcome) {
	r.keepValue(cc, v)
	if cc.reuse.Observe(o) {
		r.backedOff++
	}
}

// sightShort is the read path every packed-key table shares. A hit returns
// the entry. A miss records a sighting; on the second sighting in a row in
// its slot, build makes the entry from the text and it is published —
// unless build fails (the text does not decode, which the server never
// sends), a bypass. build runs only on admission. The caller, given no entry
// (o == missed), uses the text itself, exactly as stdlib does.
func sightShort[V any](t *cache.Short[V], key uint64, raw []byte, c *cache.Counts, build func(raw []byte) (V, bool)) (v V, o backoff.Outcome) {
	if v, ok := t.Get(key); ok {
		c.Hits++
		return v, backoff.Hit
	}
	return admitShort(t, key, raw, c, build)
}

// admitShort is sightShort after its lookup missed: the sighting, and the
// admission on a second one.
func admitShort[V any](t *cache.Short[V], key uint64, raw []byte, c *cache.Counts, build func(raw []byte) (V, bool)) (v V, o backoff.Outcome) {
	if !t.Sight(key) {
		c.Misses++
		var none V
		return none, backoff.Missed
	}
	return putShort(t, key, raw, c, build)
}

// putShort is admitShort after a second sighting: build makes the entry,
// which is published, or fails, a bypass. Rows.admit calls it when
// advance's own lookup and sighting came to that.
func putShort[V any](t *cache.Short[V], key uint64, raw []byte, c *cache.Counts, build func(raw []byte) (V, bool)) (v V, o backoff.Outcome) {
	var none V
	v, ok := build(raw)
	if !ok {
		c.Bypasses++
		return none, backoff.Missed
	}
	t.Put(key, v)
	c.Admissions++
	return v, backoff.Admitted
}

// sightLong is sightShort for the hashed tables: raw (at most t.MaxText()
// bytes, not empty) is keyed by its hash and a hit needs the same bytes.
// build returns the entry and the text the table keeps, which may share the
// entry's own copy.
func sightLong[V any](t *cache.Long[V], raw []byte, c *cache.Counts, build func(raw []byte) (V, string, bool)) (v V, o backoff.Outcome) {
	var none V
	h := t.Hash(raw)
	if v, ok := t.Get(h, raw); ok {
		c.Hits++
		return v, backoff.Hit
	}
	if !t.Sight(h) {
		c.Misses++
		return none, backoff.Missed
	}
	v, text, ok := build(raw)
	if !ok {
		c.Bypasses++
		return none, backoff.Missed
	}
	t.Put(h, text, v)
	c.Admissions++
	return v, backoff.Admitted
}

// lookupNumericRaw records one sighting of a numeric text (see sightShort);
// texts too long to pack bypass the table.
func lookupNumericRaw(t *cache.Short[*numEntry], raw []byte, c *cache.Counts) (e *numEntry, o backoff.Outcome) {
	key, ok := cache.Pack(raw)
	if !ok {
		c.Bypasses++
		return nil, backoff.Missed
	}
	return sightShort(t, key, raw, c, buildNumEntry)
}

// buildNumEntry decodes a numeric text into its entry; ok is false when it
// does not decode.
func buildNumEntry(raw []byte) (e *numEntry, ok bool) {
	s := string(raw)
	n, err := decode.ParseNumeric(s)
	if err != nil {
		return nil, false
	}
	return newNumEntry(s, n), true
}

// numericValueIn returns the driver value for one numeric text read through
// table t: the same string pgx stdlib returns, pre-boxed when the text is
// cached. Rows use lookupNumericRaw; tests use this with tables of their own.
func numericValueIn(t *cache.Short[*numEntry], raw []byte, c *cache.Counts) (v sqldriver.Value, reused bool) {
	if e, o := lookupNumericRaw(t, raw, c); e != nil {
		return e.value, o != backoff.Missed
	}
	return string(raw), false
}

// lookupNumeric finds the shared decimal for text without recording a
// sighting: Rows.Next already recorded this value, and [Decimal.Scan] must not
// count it a second time (or every value would be admitted on first read).
func lookupNumeric(text string) (*decode.Numeric, bool) {
	key, ok := cache.PackString(text)
	if !ok {
		return nil, false
	}
	e, ok := numericTable.Get(key)
	if !ok {
		return nil, false
	}
	return e.num, true
}

// lookupHstoreRaw is lookupNumericRaw for hstore texts, keyed by a hash of the
// whole text. The empty hstore is short enough to decode on every read.
func lookupHstoreRaw(t *cache.Long[*hsEntry], raw []byte, c *cache.Counts) (e *hsEntry, o backoff.Outcome) {
	if len(raw) == 0 || len(raw) > t.MaxText() {
		c.Bypasses++
		return nil, backoff.Missed
	}
	return sightLong(t, raw, c, buildHsEntry)
}

// buildHsEntry parses an hstore text into its entry and the text the table
// keeps; ok is false when it does not parse.
func buildHsEntry(raw []byte) (e *hsEntry, text string, ok bool) {
	s := string(raw)
	hs, err := decode.ParseHstore(s)
	if err != nil {
		return nil, "", false
	}
	return &hsEntry{value: s, text: s, hs: hs}, s, true
}

// hstoreValueIn is numericValueIn for hstore texts.
func hstoreValueIn(t *cache.Long[*hsEntry], raw []byte, c *cache.Counts) (v sqldriver.Value, reused bool) {
	if e, o := lookupHstoreRaw(t, raw, c); e != nil {
		return e.value, o != backoff.Missed
	}
	return string(raw), false
}

// lookupHstore is lookupNumeric for hstore: no sighting is recorded.
func lookupHstore(text string) (decode.Hstore, bool) {
	if len(text) == 0 || len(text) > hstoreTable.MaxText() {
		return decode.Hstore{}, false
	}
	e, ok := hstoreTable.GetString(hstoreTable.HashString(text), text)
	if !ok {
		return decode.Hstore{}, false
	}
	return e.hs, true
}

// lookupTextRaw records one sighting of a text-kind value and returns its
// entry (hit or admission) or nil. Texts of up to 8 bytes are keyed by
// cache.Pack, longer ones up to MaxTextKey by hash; the empty text and longer
// ones bypass (stdlib's string("") costs nothing anyway). conv is the
// column's stdlib conversion, run once at admission. long may be nil when raw
// is not a text for it.
func lookupTextRaw(short *cache.Short[sqldriver.Value], long *cache.Long[sqldriver.Value], raw []byte, conv func([]byte) (sqldriver.Value, error), counts *[numTables]cache.Counts) (sqldriver.Value, backoff.Outcome) {
	if key, ok := cache.Pack(raw); ok {
		return sightShort(short, key, raw, &counts[tabText], func(raw []byte) (sqldriver.Value, bool) { return buildValue(raw, conv) })
	}
	c := &counts[tabLongText]
	if len(raw) <= cache.MaxShortKey || len(raw) > MaxTextKey {
		c.Bypasses++
		return nil, backoff.Missed
	}
	return sightLong(long, raw, c, func(raw []byte) (sqldriver.Value, string, bool) {
		// The table keeps the value's own string rather than a second copy.
		v, ok := buildValue(raw, conv)
		s, isString := v.(string)
		return v, s, ok && isString
	})
}

// lookupFixedRaw is lookupTextRaw for fixed-size binary values, keyed by
// their own wire bytes (cache.PackFixed) in the column's type table.
func lookupFixedRaw(t *cache.Short[sqldriver.Value], raw []byte, conv func([]byte) (sqldriver.Value, error), c *cache.Counts) (sqldriver.Value, backoff.Outcome) {
	key, ok := cache.PackFixed(raw)
	if !ok {
		c.Bypasses++
		return nil, backoff.Missed
	}
	return sightShort(t, key, raw, c, func(raw []byte) (sqldriver.Value, bool) { return buildValue(raw, conv) })
}

// buildValue is stdlib's driver value for raw, boxed once, with ok false
// when the conversion fails (the caller then reports stdlib's error on every
// read).
func buildValue(raw []byte, conv func([]byte) (sqldriver.Value, error)) (sqldriver.Value, bool) {
	v, err := conv(raw)
	if err != nil {
		return nil, false
	}
	// An entry keeps its value for as long as it stays in the table: a
	// value of its own, not one of a conversion's slab (box.Alone).
	return box.Alone(v), true
}
