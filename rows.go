package pgcache

import (
	sqldriver "database/sql/driver"
	"fmt"
	"io"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/pgcache/pgcache/cache"
)

// Rows reads a result set. numeric and hstore columns that the cache applies to
// are turned into driver values through the process-wide cache; every other
// column is converted exactly as pgx stdlib converts it.
type Rows struct {
	conn *Conn
	rows pgx.Rows
	cols []column
	conv []convFunc // each column's stdlib conversion
	// vals holds, for each cached column, the current row's cache entry's
	// pre-boxed driver value, nil when there is none: what Next returns.
	vals  []sqldriver.Value
	names []string

	// cached holds the state of the columns that go through the cache, in
	// a dense array of its own for advance's per-row loop; each such column
	// keeps the current row's cache entry in its cell.
	cached []cachedColumn

	// skipping counts the cached columns in a back-off (reuse.skip > 0):
	// advance adds one when a lookup's observe starts a skip.
	// When that is all of them, advance takes the rows until the first of
	// them ends its skip, skipRows, in bulk (see skipAll).
	skipping int
	skipRows int32
	inSkip   bool // the current row was passed in bulk: no cached values

	// The cached columns' indices again, as countBulk's loops read them:
	// text kinds apart, as only they count long texts. They share one
	// backing array, bulkBuf when it is large enough.
	bulkPlain, bulkText []int32
	bulkBuf             [16]int32

	// The first row is read by QueryContext (so the columns are known);
	// the first Next returns it.
	pending     bool
	pendingMore bool

	// Cache traffic of this result set, published in bulk by Close so the
	// hit path writes no shared memory.
	counts    [numTables]cache.Counts
	published bool

	// hstoreTyped: the connection's type map knows hstore (the application
	// registered pgx's codec for it), so Go 1.27's map destinations of its
	// hstore columns scan as that type map scans them.
	hstoreTyped bool

	// The pgcache_types text tables, when this result set has a text-kind
	// column (the hashed one once it reads a text for it).
	text     *cache.Short[sqldriver.Value]
	longText *cache.Long[sqldriver.Value]
}

// columnKind says how a column's values become driver values.
type columnKind uint8

const (
	kindPlain   columnKind = iota // as pgx stdlib does it
	kindNumeric                   // text numeric through the numeric cache
	kindHstore                    // text hstore through the hstore cache
	kindText                      // a pgcache_types text kind through the text tables
	kindFixed                     // a pgcache_types fixed-size binary kind through its type table
)

// column is one result column.
type column struct {
	kind columnKind
	k    int32 // a cached column's index in Rows.cached
	cell cell  // numeric and hstore: the current row's entry
}

// textValue is stdlib's conversion of a text-format column pgx has no
// natural Go type for: the text itself.
func textValue(src []byte) (sqldriver.Value, error) { return string(src), nil }

// convFunc is a column's conversion as stdlib makes it: wire bytes (not
// NULL) to driver value.
type convFunc func(src []byte) (sqldriver.Value, error)

// cachedColumn is what advance keeps for a column that goes through the
// cache, in a dense array apart from column so that its loops stay short.
type cachedColumn struct {
	col   int32 // index in Rows.cols and in the row's raw values
	kind  columnKind
	tab   tableID // where its counts go
	set   bool    // the column's cell may hold an entry
	reuse reuseTracker
	short *cache.Short[sqldriver.Value] // kindText and kindFixed: the packed-key type table

	// Values (not NULL) skipped in back-offs, counted as bypasses when the
	// result set is closed; long are those of them that are text-kind texts
	// the packed table does not take, which the hashed table counts. hits
	// are the hits advance serves itself, in the column's own table.
	skipped, long, hits uint64
}

// Reuse tracking. A missed lookup is cheap but not free: it stores the text's
// key in its slot, and when several connections read all-distinct columns at
// once those stores bounce the table's cache lines between CPUs (measured with
// BenchmarkScanConcurrent before this existed: a fifth more client CPU than
// pgcache=off with two readers). So each cached column of a result set
// watches its own values in windows of probeWindow lookups: a window with no
// hit and no admission means the column is not repeating, and its values in
// the next rows bypass the cache without touching it — skipFirst rows, then
// twice as many after each further window without reuse, up to skipMax —
// before it probes again. (Windows count lookups, skips count rows, NULL or
// not, so that when every cached column of a result set is in a back-off,
// advance can pass whole rows at once.)
//
// The window is longer than the table has slots on purpose. A value is
// admitted when it comes back, so a column cycling through P distinct values
// shows its first reuse after P lookups; with P up to cache.Slots, a shorter
// window would take such a column for all-distinct and skip it (a 128-value
// window did: a column of 1000 repeating prices got 61% hits instead of 98%).
// With this window, a column that repeats with any period up to the table
// size never skips; an all-distinct column pays the window once per result
// set.
//
// Reuse alone is not enough, though. A column drawing at random from more
// values than the table has slots (a foreign key into a big table) hits and
// admits all the time, each admission allocating an entry that evicts
// another one soon missed, and it cost up to twice pgcache=off. And a column
// whose few hits are lost among misses pays for every miss and saves little
// (a re-read of an all-distinct table still hits, on about 1% of its
// lookups, the entries earlier reads admitted, and those hits kept several
// windows of it cached on every read). So a window pays only when at least
// 1/minShare of its lookups were reused — hits and admissions while the
// column warms up, hits alone after its first warmWindows windows, which
// must also show at least churnRatio hits per admission (re-probes
// included) — except a column's first window, which needs only some reuse.
// A window that does not pay starts a skip as one without reuse does.
//
// Every window but a column's first is also judged early: after earlyWindow
// lookups it goes on only if 1/minShare of them were hits or admissions, and
// fails there otherwise. A column that repeats shows reuse at once in any
// window but its first (its values come back), so this costs it nothing; it
// shortens the windows of a column that has stopped repeating, and those of
// a re-read of an all-distinct table, whose first window finds the values
// the previous read sighted and whose second little or nothing.
//
// Once a column has backed off, the probes that follow a skip are short
// (reprobeWindow): they are there to notice a column that has started
// repeating, not to measure a long period again, and on an all-distinct
// column they were the larger part of its lookups (two full windows of a
// 200k-row result set are 5% of its values, each lookup a miss with an
// atomic store). A short probe that pays ends the back-off, and the column
// is watched in full windows again. The price: a column that turns,
// mid-result-set, from all-distinct to a period P longer than
// reprobeWindow/(churnRatio+2) — P sightings and P admissions leave too few
// lookups of the probe for churnRatio hits per admission — stays in its
// back-off to the end of the result set, its values read as with
// pgcache=off.
const (
	probeWindow   = cache.Slots + cache.Slots/4
	reprobeWindow = probeWindow / 8
	earlyWindow   = cache.Slots / 16
	minShare      = 8
	skipFirst     = 8 * probeWindow
	skipMax       = 64 * probeWindow
)

// churnRatio is how many hits per admission a window past its warm-up
// needs for the column to stay cached, and minShare (above) the share of
// its lookups that must hit. A column drawing at random from more distinct
// values than the table has slots admits all the time, each admission
// evicting an entry that is then missed, and every lookup loads a slot and
// an entry from memory scattered over the heap. Cached without these rules
// (BenchmarkRowsReplay/data=random-keys-N/mode=types-reuse-only, two int8
// columns over N keys, against mode=off), 6000 keys cost ~70% more than
// pgcache=off at 4 hits per admission, 4000 broke even at 17, 3000 were a
// quarter cheaper at 38. It is a variable only so that the benchmark can turn
// the rules off.
var churnRatio = 8

// warmWindows is how many windows of a column are judged by the loose test
// (admissions count as reuse) before churnRatio applies. A column cycling
// through P values from an empty table shows P sightings, then P admissions,
// then only hits: at P = cache.Slots its first window has no hit and a few
// admissions, its second more admissions than hits, and from the third on
// it hits only. (Not every value: those that share their slot with another
// value of the cycle evict each other's sightings and are never admitted,
// so at that period about e⁻¹ = 37% of the lookups hit.)
const warmWindows = 2

// reuseTracker is one column's state; it lives in its Rows and needs no
// synchronisation. Make it with newReuseTracker.
type reuseTracker struct {
	skip int32 // rows still to bypass
	left int32 // lookups left in the current window, or in its early part
	rest int32 // lookups of the window after its early part, 0 once past it
	next int32 // length of the next skip, 0 meaning skipFirst (not backing off)
	hits int16 // hits in the current window (at most probeWindow, see below)
	adms int16 // admissions in the current window
	warm int8  // windows left that the loose test judges
}

// A window's counts fit reuseTracker's int16s: this fails to compile if
// probeWindow outgrows them.
var _ [math.MaxInt16 - probeWindow]struct{}

// newReuseTracker returns the state of a column that has not been read yet.
func newReuseTracker() reuseTracker { return reuseTracker{left: probeWindow, warm: warmWindows} }

// observe records the outcome of one lookup and closes the window when full.
// It reports whether that started a skip, which the caller counts in
// Rows.skipping.
func (t *reuseTracker) observe(o outcome) (skipStarted bool) {
	// Branch-free: hit is 2 and admitted 1.
	t.hits += int16(o >> 1)
	t.adms += int16(o & 1)
	return t.count()
}

// observeHit is observe(hit), small enough to inline in advance's hit path.
// (A hit can close a window that does not pay, and so start a skip.)
func (t *reuseTracker) observeHit() (skipStarted bool) {
	t.hits++
	return t.count()
}

// count counts a lookup in the window and closes it when full.
func (t *reuseTracker) count() (skipStarted bool) {
	if t.left--; t.left <= 0 {
		return t.closeWindow()
	}
	return false
}

// pays reports whether a window of n lookups, or the early part of one,
// that has just closed shows enough reuse to keep the column cached (see
// Reuse tracking): any at all in a column's first window; a share of
// 1/minShare reused, hits or admissions, in the early part of a window and
// while the column warms up; and after that as many hits and churnRatio hits
// per admission.
func (t *reuseTracker) pays(n int32, early bool) bool {
	hits, adms := int32(t.hits), int32(t.adms)
	switch {
	case t.warm == warmWindows && !early:
		return hits > 0 || adms > 0
	case early || t.warm > 0:
		return hits+adms >= n/minShare
	}
	return hits >= n/minShare && hits >= int32(churnRatio)*adms
}

// closeWindow starts a skip after a window that did not pay (or ends the
// back-off after one that did), opens the next window and reports whether
// it started a skip. At the end of a window's early part it lets a window
// that pays so far go on, and fails one that does not.
func (t *reuseTracker) closeWindow() (skipStarted bool) {
	if t.rest > 0 {
		if t.pays(earlyWindow, true) {
			t.left, t.rest = t.rest, 0
			return false
		}
		t.rest = 0
		skipStarted = true
	} else {
		skipStarted = !t.pays(t.window(), false)
	}
	if t.warm > 0 {
		t.warm--
	}
	if skipStarted {
		if t.next == 0 {
			t.next = skipFirst
		}
		t.skip = t.next
		t.next = min(2*t.next, skipMax)
	} else {
		t.next = 0
	}
	t.hits, t.adms = 0, 0
	t.left, t.rest = earlyWindow, t.window()-earlyWindow
	return skipStarted
}

// window is the length of the current window: a full one, or a re-probe
// while the column backs off.
func (t *reuseTracker) window() int32 {
	if t.next != 0 {
		return reprobeWindow
	}
	return probeWindow
}

func newRows(c *Conn, rows pgx.Rows, more bool) *Rows {
	r := &Rows{conn: c, rows: rows, pending: true, pendingMore: more}
	fields := rows.FieldDescriptions()
	r.cols = make([]column, len(fields))
	r.conv = make([]convFunc, len(fields))
	m := c.conn.TypeMap()
	for i := range fields {
		fd := &fields[i]
		col := &r.cols[i]
		var tab tableID
		var short *cache.Short[sqldriver.Value]
		switch {
		case fd.Format == pgx.TextFormatCode && fd.DataTypeOID == pgtype.NumericOID &&
			c.setup.Cached(fd.Name, fd.TableOID, fd.TableAttributeNumber):
			col.kind, tab = kindNumeric, tabNumeric
		case fd.Format == pgx.TextFormatCode && fd.DataTypeOID != 0 && fd.DataTypeOID == c.setup.HstoreOID &&
			c.setup.Cached(fd.Name, fd.TableOID, fd.TableAttributeNumber):
			col.kind, tab = kindHstore, tabHstore
			_, r.hstoreTyped = m.TypeForOID(fd.DataTypeOID)
		default:
			r.conv[i] = plainValueFunc(m, fd)
			// pgcache_types; Cached is false for every column when pgcache=off.
			types := c.setup.Options.Types
			if types == 0 || !c.setup.Cached(fd.Name, fd.TableOID, fd.TableAttributeNumber) {
				continue
			}
			col.kind, tab = typeColumn(m, fd, types)
			switch col.kind {
			case kindPlain:
				continue
			case kindFixed:
				short = typeTabs.fixedTable(tab)
			case kindText:
				r.text = typeTabs.textTable()
				short = r.text
			}
		}
		if r.conv[i] == nil {
			r.conv[i] = textValue // numeric and hstore arrive as text, which stdlib returns as is
		}
		col.k = int32(len(r.cached))
		r.cached = append(r.cached, cachedColumn{col: int32(i), kind: col.kind, tab: tab, reuse: newReuseTracker(), short: short})
	}
	if len(r.cached) > 0 {
		r.vals = make([]sqldriver.Value, len(fields))
		bulk := r.bulkBuf[:0]
		if len(r.cached) > len(r.bulkBuf) {
			bulk = make([]int32, 0, len(r.cached))
		}
		for _, cc := range r.cached {
			if cc.kind != kindText {
				bulk = append(bulk, cc.col)
			}
		}
		r.bulkPlain = bulk
		for _, cc := range r.cached {
			if cc.kind == kindText {
				bulk = append(bulk, cc.col)
			}
		}
		r.bulkText = bulk[len(r.bulkPlain):]
	}
	return r
}

// Columns returns the result column names.
func (r *Rows) Columns() []string {
	if r.names == nil {
		fields := r.rows.FieldDescriptions()
		r.names = make([]string, len(fields))
		for i := range fields {
			r.names[i] = fields[i].Name
		}
	}
	return r.names
}

// Close discards any unread rows and publishes this result set's cache counts.
func (r *Rows) Close() error {
	r.rows.Close()
	r.publish()
	return r.rows.Err()
}

func (r *Rows) publish() {
	if r.published {
		return
	}
	r.published = true
	for k := range r.cached {
		// A bulk skip the result set ended in counted rows it did not have.
		r.cached[k].skipped -= uint64(r.skipRows)
		r.cached[k].flush(&r.counts)
	}
	r.skipRows = 0
	if r.counts[tabNumeric] != (cache.Counts{}) {
		numericTable.Record(r.counts[tabNumeric])
	}
	if r.counts[tabHstore] != (cache.Counts{}) {
		hstoreTable.Record(r.counts[tabHstore])
	}
	typeTabs.record(&r.counts)
}

// advance moves to the next row and records one sighting of each cached
// value in it, whether or not the row is then scanned, and however often:
// Next (Go 1.26) and NextRow (Go 1.27's driver.RowsColumnScanner) both come
// here, so admission and the reuse back-off see the same stream of values
// under either. It keeps each cached column's entry for the row in its
// cell.
//
// It returns the row's wire values when some column is cached. A row passed
// in bulk (inSkip) looks nothing up: its caller counts the exceptions to the
// bypasses skipAll counted, with nextBulk or countBulk.
func (r *Rows) advance() (raws [][]byte, err error) {
	if r.skipRows > 0 {
		// The rest of a bulk skip: no pending row, nothing to look up.
		if !r.rows.Next() {
			return nil, r.end()
		}
		r.skipRows--
		return r.rows.RawValues(), nil
	}
	more := r.pendingMore
	if r.pending {
		r.pending = false
	} else {
		more = r.rows.Next()
	}
	if !more {
		return nil, r.end()
	}
	if len(r.cached) == 0 {
		return nil, nil
	}
	raws = r.rows.RawValues()
	if r.skipRows == 0 && r.skipping == len(r.cached) {
		r.skipAll()
	}
	if r.inSkip = r.skipRows > 0; r.inSkip {
		// The first row of a bulk skip.
		r.skipRows--
		return raws, nil
	}
	cols, cached, vals := r.cols, r.cached, r.vals
	for k := range cached {
		cc := &cached[k]
		raw := raws[cc.col]
		if cc.reuse.skip > 0 || raw == nil {
			// NULLs and columns in a back-off.
			r.empty(cc)
			if cc.reuse.skip > 0 {
				if cc.reuse.skip--; cc.reuse.skip == 0 {
					r.skipping--
				}
				cc.countSkipped(raw)
			}
			continue
		}
		// A hit in a packed-key table, the common case of a repeating
		// column, is served here, a miss goes on to admit with its key, and
		// everything else through sight.
		switch cc.kind {
		case kindNumeric:
			if key, ok := cache.Pack(raw); ok {
				if e, found := numericTable.Get(key); found {
					cc.hits++
					cols[cc.col].cell.num, vals[cc.col] = e, e.value
					cc.set = true
					if cc.reuse.observeHit() {
						r.skipping++
					}
					continue
				}
				r.admit(cc, &cols[cc.col], key, raw)
				continue
			}
		case kindText, kindFixed:
			var key uint64
			var ok bool
			if cc.kind == kindText {
				key, ok = cache.Pack(raw)
			} else {
				key, ok = cache.PackFixed(raw)
			}
			if ok {
				if v, found := cc.short.Get(key); found {
					cc.hits++
					vals[cc.col] = v
					cc.set = true
					if cc.reuse.observeHit() {
						r.skipping++
					}
					continue
				}
				r.admit(cc, &cols[cc.col], key, raw)
				continue
			}
		}
		r.sight(cc, &cols[cc.col], raw)
	}
	return raws, nil
}

// end is advance's error after the last row: the result set's, or io.EOF.
func (r *Rows) end() error {
	if err := r.rows.Err(); err != nil {
		return err
	}
	return io.EOF
}

// skipAll starts a bulk skip: all cached columns are in a back-off, and for
// the rows until the shortest of their skips ends, advance only counts
// bypasses. The columns' skips are shortened by as many rows, and their
// cells, which may hold the previous row's entries, emptied. Each column
// counts the n rows as n skipped values now, and advance takes back its
// NULLs as they come (and publish the rows the result set did not have).
func (r *Rows) skipAll() {
	n := r.cached[0].reuse.skip
	for k := range r.cached {
		n = min(n, r.cached[k].reuse.skip)
	}
	for k := range r.cached {
		cc := &r.cached[k]
		if cc.reuse.skip -= n; cc.reuse.skip == 0 {
			r.skipping--
		}
		cc.skipped += uint64(n)
		r.empty(cc)
	}
	r.skipRows = n
}

// empty drops the entry cc's cell may hold from the previous row. It stores
// only when there may be one: a pointer store costs a write barrier while
// the GC runs.
func (r *Rows) empty(cc *cachedColumn) {
	if cc.set {
		r.cols[cc.col].cell = cell{}
		r.vals[cc.col] = nil
		cc.set = false
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
			v, o = lookupFixedRaw(cc.short, raw, r.conv[cc.col], &r.counts[cc.tab])
		}
	}
	r.keep(cc, v, o)
}

// admit is sight for a value of a packed-key kind whose key advance has
// looked up and not found: its sighting, and its admission on a second one.
func (r *Rows) admit(cc *cachedColumn, col *column, key uint64, raw []byte) {
	var v sqldriver.Value
	var o outcome
	switch cc.kind {
	case kindNumeric:
		var e *numEntry
		if e, o = admitShort(numericTable, key, raw, &r.counts[tabNumeric], buildNumEntry); e != nil {
			v = e.value
		}
		col.cell.num = e
	case kindText, kindFixed:
		t, c := cc.short, &r.counts[tabText]
		if cc.kind == kindFixed {
			c = &r.counts[cc.tab]
		}
		conv := r.conv[cc.col]
		v, o = admitShort(t, key, raw, c, func(raw []byte) (sqldriver.Value, bool) { return buildValue(raw, conv) })
	}
	r.keep(cc, v, o)
}

// keep ends sight and admit: the cell's driver value, and the lookup's
// outcome for the column's back-off.
func (r *Rows) keep(cc *cachedColumn, v sqldriver.Value, o outcome) {
	r.vals[cc.col] = v
	cc.set = true
	if cc.reuse.observe(o) {
		r.skipping++
	}
}

// countSkipped counts a value of cc that a back-off passed by: NULLs not at
// all, text-kind texts the packed table does not take in the hashed one.
func (cc *cachedColumn) countSkipped(raw []byte) {
	if raw != nil {
		cc.skipped++
		if !packable(raw) && cc.kind == kindText {
			cc.long++
		}
	}
}

// packable reports whether a text-kind value goes to the packed text table
// (1 to 8 bytes) rather than the hashed one's counts, as lookupTextRaw
// sorts them.
func packable(raw []byte) bool { return uint(len(raw))-1 < cache.MaxShortKey }

// flush adds the counts cc keeps itself to counts: its hits, and the values
// it has skipped as bypasses, of its own table or, for the text-kind texts
// that belong there, of the hashed text table.
func (cc *cachedColumn) flush(counts *[numTables]cache.Counts) {
	counts[cc.tab].Hits += cc.hits
	counts[cc.tab].Bypasses += cc.skipped - cc.long
	counts[tabLongText].Bypasses += cc.long
	cc.hits, cc.skipped, cc.long = 0, 0, 0
}

// cell is a numeric or hstore column's entry for the current row: nil when
// the value is NULL, bypassed the cache or was not found in it. Go 1.27's
// direct routes scan from it; Rows.vals holds the same entry's driver value
// for Next. (A type table's entry is its driver value and nothing else, so
// those columns need only vals.)
type cell struct {
	num *numEntry
	hs  *hsEntry
}

// Next reads the next row into dest. A numeric or hstore value found in the
// cache is the entry's pre-boxed string: no copy and no allocation.
func (r *Rows) Next(dest []sqldriver.Value) error {
	raws, err := r.advance()
	if err != nil {
		return err
	}
	if r.inSkip {
		return r.nextBulk(dest, raws)
	}
	if len(r.cached) == 0 {
		// No column goes through the cache: stdlib's own loop. (It is the
		// loop below without the vals test, kept apart on purpose: that
		// test cost pgcache=off ~8 instructions per value under
		// cachegrind, and Go does not unswitch loops.)
		raws, conv := r.rows.RawValues(), r.conv
		for i, raw := range raws {
			if raw == nil {
				dest[i] = nil
				continue
			}
			v, err := conv[i](raw)
			if err != nil {
				return fmt.Errorf("convert field %d failed: %w", i, err)
			}
			dest[i] = v
		}
		return nil
	}
	vals, conv := r.vals, r.conv
	for i, raw := range raws {
		if raw == nil {
			dest[i] = nil
			continue
		}
		if v := vals[i]; v != nil {
			dest[i] = v // a cache entry's pre-boxed value
			continue
		}
		v, err := conv[i](raw)
		if err != nil {
			return fmt.Errorf("convert field %d failed: %w", i, err)
		}
		dest[i] = v
	}
	return nil
}

// nextBulk is Next for a row passed in bulk, every cached column in a
// back-off: stdlib's loop, which also takes back the NULLs of cached columns
// from the bypasses skipAll counted, then the text-kind texts that belong to
// the hashed table's counts. It is countBulk (NextRow's) done in the loop
// that converts the row, where a NULL costs a test already made.
func (r *Rows) nextBulk(dest []sqldriver.Value, raws [][]byte) error {
	for _, i := range r.bulkText {
		if raw := raws[i]; raw != nil && !packable(raw) {
			r.cached[r.cols[i].k].long++
		}
	}
	conv := r.conv
	for i, raw := range raws {
		if raw == nil {
			dest[i] = nil
			r.uncountNull(i)
			continue
		}
		v, err := conv[i](raw)
		if err != nil {
			// The NULLs the loop will not reach are still no bypasses.
			for j := i + 1; j < len(raws); j++ {
				if raws[j] == nil {
					r.uncountNull(j)
				}
			}
			return fmt.Errorf("convert field %d failed: %w", i, err)
		}
		dest[i] = v
	}
	return nil
}

// uncountNull takes a NULL in column i of a row passed in bulk back from the
// bypasses skipAll counted, if the column is cached.
func (r *Rows) uncountNull(i int) {
	if col := &r.cols[i]; col.kind != kindPlain {
		r.cached[col.k].skipped--
	}
}

// plainValueFunc returns the conversion pgx stdlib applies to a column of this
// type: a handful of types become their natural Go value, everything else the
// text the server sent. Each function keeps its scan target between rows, as
// stdlib's does, so values match stdlib's in every respect.
func plainValueFunc(m *pgtype.Map, fd *pgconn.FieldDescription) func([]byte) (sqldriver.Value, error) {
	// The commonest types skip scanAs's conversion function (a second
	// indirect call per value, which made pgcache=off measurably dearer than
	// stdlib on plain columns): scanDirect, and int4 by hand for its widening.
	switch fd.DataTypeOID {
	case pgtype.BoolOID:
		return scanDirect[bool](m, fd)
	case pgtype.ByteaOID, pgtype.JSONOID, pgtype.JSONBOID, pgtype.XMLOID:
		return scanAs(m, fd, func(v *[]byte) (sqldriver.Value, error) { return *v, nil })
	case pgtype.CIDOID, pgtype.OIDOID, pgtype.XIDOID:
		return scanAs(m, fd, (*pgtype.Uint32).Value)
	case pgtype.DateOID:
		return scanAs(m, fd, (*pgtype.Date).Value)
	case pgtype.TimestampOID:
		return scanAs(m, fd, (*pgtype.Timestamp).Value)
	case pgtype.TimestamptzOID:
		return scanAs(m, fd, (*pgtype.Timestamptz).Value)
	case pgtype.Float4OID:
		return scanAs(m, fd, func(v *float32) (sqldriver.Value, error) { return float64(*v), nil })
	case pgtype.Float8OID:
		return scanDirect[float64](m, fd)
	case pgtype.Int2OID:
		return scanAs(m, fd, func(v *int16) (sqldriver.Value, error) { return int64(*v), nil })
	case pgtype.Int4OID:
		var v int32
		plan := m.PlanScan(fd.DataTypeOID, fd.Format, &v)
		return func(src []byte) (sqldriver.Value, error) {
			if err := plan.Scan(src, &v); err != nil {
				return nil, err
			}
			return int64(v), nil
		}
	case pgtype.Int8OID:
		return scanDirect[int64](m, fd)
	default:
		return scanDirect[string](m, fd)
	}
}

// scanDirect is scanAs for a type that is its own driver value: the boxing
// is in the closure, with no conversion function to call.
func scanDirect[T bool | float64 | int64 | string](m *pgtype.Map, fd *pgconn.FieldDescription) func([]byte) (sqldriver.Value, error) {
	var v T
	plan := m.PlanScan(fd.DataTypeOID, fd.Format, &v)
	return func(src []byte) (sqldriver.Value, error) {
		if err := plan.Scan(src, &v); err != nil {
			return nil, err
		}
		return v, nil
	}
}

// scanAs plans a scan of the column into a T once and converts each scanned
// value with conv.
func scanAs[T any](m *pgtype.Map, fd *pgconn.FieldDescription, conv func(*T) (sqldriver.Value, error)) func([]byte) (sqldriver.Value, error) {
	var target T
	plan := m.PlanScan(fd.DataTypeOID, fd.Format, &target)
	return func(src []byte) (sqldriver.Value, error) {
		if err := plan.Scan(src, &target); err != nil {
			return nil, err
		}
		return conv(&target)
	}
}

// PostgreSQL packs a variable-length type's declared length into its type
// modifier after a 4-byte header; -1 means no modifier was declared.
const (
	typmodHeader = 4
	noTypmod     = -1
)

// ColumnTypeDatabaseTypeName returns the upper-case type name pgx knows for
// the column's OID, or the OID in decimal when pgx does not know it (hstore,
// for instance, unless registered) — the same as stdlib.
func (r *Rows) ColumnTypeDatabaseTypeName(index int) string {
	oid := r.rows.FieldDescriptions()[index].DataTypeOID
	if t, ok := r.conn.conn.TypeMap().TypeForOID(oid); ok {
		return strings.ToUpper(t.Name)
	}
	return strconv.FormatUint(uint64(oid), 10)
}

// ColumnTypeLength reports the declared length of text, bytea, varchar, bpchar
// and varbit columns (math.MaxInt64 when unbounded), as stdlib does.
func (r *Rows) ColumnTypeLength(index int) (int64, bool) {
	fd := r.rows.FieldDescriptions()[index]
	switch fd.DataTypeOID {
	case pgtype.TextOID, pgtype.ByteaOID:
		return math.MaxInt64, true
	case pgtype.VarcharOID, pgtype.BPCharOID, pgtype.VarbitOID:
		if fd.TypeModifier == noTypmod {
			return math.MaxInt64, true
		}
		if fd.DataTypeOID == pgtype.VarbitOID { // varbit's modifier is the bit count itself
			return int64(fd.TypeModifier), true
		}
		return int64(fd.TypeModifier - typmodHeader), true
	}
	return 0, false
}

// ColumnTypePrecisionScale reports a numeric column's declared precision and
// scale, and the fractional-seconds precision of time types as the scale, as
// stdlib does.
func (r *Rows) ColumnTypePrecisionScale(index int) (precision, scale int64, ok bool) {
	fd := r.rows.FieldDescriptions()[index]
	mod := fd.TypeModifier
	switch fd.DataTypeOID {
	case pgtype.NumericOID:
		if mod == noTypmod {
			return 0, 0, false
		}
		mod -= typmodHeader
		return int64(mod>>16) & 0xffff, int64(mod) & 0xffff, true
	case pgtype.TimestampOID, pgtype.TimestamptzOID, pgtype.TimeOID, pgtype.TimetzOID:
		if mod == noTypmod {
			return 0, 6, true
		}
		return 0, int64(mod), true
	case pgtype.IntervalOID:
		// The low 16 bits are the seconds precision, all ones when only a
		// field range (e.g. "day to second") was declared.
		if mod == noTypmod || mod&0xffff == 0xffff {
			return 0, 6, true
		}
		return 0, int64(mod & 0xffff), true
	}
	return 0, 0, false
}

// scanTypes is stdlib's answer to ColumnTypeScanType; other OIDs scan as string.
var scanTypes = map[uint32]reflect.Type{
	pgtype.Float8OID:      reflect.TypeFor[float64](),
	pgtype.Float4OID:      reflect.TypeFor[float32](),
	pgtype.Int8OID:        reflect.TypeFor[int64](),
	pgtype.Int4OID:        reflect.TypeFor[int32](),
	pgtype.Int2OID:        reflect.TypeFor[int16](),
	pgtype.BoolOID:        reflect.TypeFor[bool](),
	pgtype.NumericOID:     reflect.TypeFor[float64](),
	pgtype.DateOID:        reflect.TypeFor[time.Time](),
	pgtype.TimestampOID:   reflect.TypeFor[time.Time](),
	pgtype.TimestamptzOID: reflect.TypeFor[time.Time](),
	pgtype.ByteaOID:       reflect.TypeFor[[]byte](),
}

// ColumnTypeScanType returns the Go type stdlib reports for the column:
// float64 for numeric (not [Decimal], so generic code behaves as before).
func (r *Rows) ColumnTypeScanType(index int) reflect.Type {
	if t, ok := scanTypes[r.rows.FieldDescriptions()[index].DataTypeOID]; ok {
		return t
	}
	return reflect.TypeFor[string]()
}
