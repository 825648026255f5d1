package pgcache

import (
	sqldriver "database/sql/driver"
	"fmt"
	"io"

	"github.com/jackc/pgx/v5"

	"github.com/pgcache/pgcache/cache"
	"github.com/pgcache/pgcache/internal/backoff"
)

// Rows reads a result set. numeric and hstore columns that the cache applies
// to, and with pgcache_types the kinds it lists, are turned into driver values
// through the process-wide tables; every other column is converted exactly as
// pgx stdlib converts it. database/sql calls its methods; programs do not.
//
// A Rows is a cursor over its result set's plan, which a connection keeps
// for later result sets of the same shape.
//
// The words used below: a column *backs off* when its reuse tracker finds
// too little reuse, and then *skips* the table for a number of rows; when
// every cached column skips, whole rows are *passed in bulk* until the first
// skip ends. A value that goes past a table is a *bypass*.
type Rows struct {
	conn *Conn
	plan *plan // its shape's decisions, the same for every result set (plan.go)
	rows pgx.Rows
	cols []column

	// Go 1.27: the current row's wire values, which NextRow keeps only
	// when the plan's wireRaws says ScanColumn reads them.
	raws [][]byte

	// vals holds, for each cached column, the current row's cache entry's
	// pre-boxed driver value, nil when there is none: what Next returns.
	vals  []sqldriver.Value
	names []string

	// cached holds the state of the columns that go through the cache, in
	// a dense array of its own for advance's per-row loop; each such column
	// keeps the current row's cache entry in its cell.
	cached []cachedColumn

	// backedOff counts the cached columns in a skip (reuse.Skipping());
	// advance adds one when a lookup's observe starts a skip. When that is
	// all of them, advance passes the rows until the first skip ends in
	// bulk (bulk.go): bulkRows of them are still to come, in this result set
	// or a later one, bulkHere this result set passed, and inBulk says the
	// current row is one (it has no cached values).
	backedOff int
	bulkRows  int32
	bulkHere  int32
	inBulk    bool

	// entries says that some cached column has an entry for the current
	// row (its hasEntry is set by this row's lookup): Next tests each
	// column for one only then, and converts a row of misses with stdlib's
	// own loop.
	entries bool

	// dirty says that the result set did more than pass rows in bulk since
	// a start that kept the trackers (it looked a value up, has a lazy
	// column, or start read the memory): publish then settles each column
	// — its counts, its tracker's place in the memory, the pass — where
	// otherwise the trackers are as the next result set starts them.
	dirty bool
	// touched says that something other than advance's Quiet lookups (a
	// hit or first sighting that closes no window) changed a tracker, or
	// may have, since start: lookFrom ran, start read the memory, a column
	// is lazy or woke, or a bulk pass started or ended. Without it, publish
	// has no window's end to remember, no skip to count and no column to
	// wake, and only adds the counts.
	touched bool

	// The cached columns' slots in the back-off's memory (backoff.Ref),
	// index for index with cached, kept apart from it so that a
	// cachedColumn fills one cache line; the buffer holds them when there
	// are few.
	mem []backoff.Ref
	// memWrites is backoff.Writes() when start last checked mem: while
	// it is unchanged, the memory holds nothing newer than the trackers,
	// and keptBackedOff, which publish counts, is the next result set's
	// backedOff.
	memWrites     uint64
	keptBackedOff int
	memBuf        [8]backoff.Ref

	// The first row is read by QueryContext (so the columns are known);
	// the first Next returns it.
	pending     bool
	pendingMore bool

	// Cache traffic of this result set, published in bulk by Close so the
	// hit path writes no shared memory.
	counts    [numTables]cache.Counts
	published bool

	// lazyCols: some cached column is lazy (see planLazy, Go 1.27).
	lazyCols bool

	// The pgcache_types hashed text table, once a text-kind column reads a
	// text for it.
	longText *cache.Long[sqldriver.Value]
}

// columnKind says how a column's values become driver values.
type columnKind uint8

const (
	kindPlain   columnKind = iota // as pgx stdlib does it
	kindNumeric                   // text numeric through the numeric table
	kindHstore                    // text hstore through the hstore table
	kindText                      // a pgcache_types text kind through the text tables
	kindFixed                     // a pgcache_types fixed-size binary kind through its type table
)

// cachedColumn is what advance keeps for a column that goes through the
// cache, in a dense array apart from column so that its loops stay short:
// its cachedPlan's fields, copied beside its state so that one cache line
// holds all advance reads of it.
type cachedColumn struct {
	col      int32 // index in Rows.cols and in the row's raw values
	kind     columnKind
	tab      tableID // where its counts go
	hasEntry bool    // the column's cell or vals may hold the previous row's entry
	lazy     bool    // Go 1.27: a fixed-size kind skipping its table until a destination wants entries (planLazy)
	reuse    backoff.Tracker
	table    *cache.Short[sqldriver.Value] // kindText and kindFixed: the packed-key type table

	// Values (not NULL) that its skip passed by in rows not passed in bulk,
	// counted as bypasses when the result set is closed (see countBypass),
	// and the hits lookFrom serves itself, in the column's own table
	// (advance's own loop counts its hits in Rows.counts directly).
	bypassed, hits uint64

	// The packed key of the column's last missed lookup, kept with a kept
	// Rows so that a value on two one-row result sets in a row is linked
	// (see admit). Kept here, not beside cached, so that the lookup loop
	// holds no pointer of its own for it, and a cachedColumn still fills
	// one cache line.
	lastMiss uint64
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

// Close discards any unread rows and publishes this result set's cache
// counts. The connection keeps r for a later result set of its plan:
// database/sql calls nothing of a driver's Rows after Close.
func (r *Rows) Close() error {
	if r.rows == nil {
		return nil // closed already
	}
	r.rows.Close()
	r.publish()
	err := r.rows.Err()
	r.rows, r.raws, r.names = nil, nil, nil
	r.conn.keepRows(r)
	return err
}

// flushMemory writes the trackers of a closed Rows that the connection no
// longer keeps to the back-off's memory, where the memory has nothing newer:
// the progress of windows not yet judged.
func (r *Rows) flushMemory() {
	r.endBulk() // a pass its last result set left open
	for k := range r.cached {
		r.mem[k].Flush(&r.cached[k].reuse)
	}
}

// quietPublish lets publish close a result set of Quiet lookups only
// without settling each column. Tests turn it off to compare.
var quietPublish = true

// publish adds this result set's counts to the tables' counters, once.
func (r *Rows) publish() {
	if r.published {
		return
	}
	r.published = true
	if len(r.cached) == 0 {
		return
	}
	if r.dirty && !r.touched && r.bulkHere == 0 && quietPublish {
		// Rows looked up, and only by advance's Quiet lookups, which count
		// in r.counts: no window ended, no skip started or ended, every
		// column was looked up on the last row (so none skips) and none is
		// lazy. Close would write nothing to the memory.
		r.keptBackedOff = 0
		if r.plan.tabs == 1<<tabNumeric {
			// publishCounts' numeric case, here with no call: these
			// counts are not zero, the lookups made them.
			numericTable.Record(r.counts[tabNumeric])
			r.counts[tabNumeric] = cache.Counts{}
			return
		}
		publishCounts(&r.counts, r.plan.tabs)
		return
	}
	if r.bulkHere != 0 {
		r.countBulk()
	}
	if !r.dirty && keepPasses {
		// Every row passed in bulk, after a start that kept the trackers:
		// no tracker changed but by the pass, which the next result set
		// goes on with (bulk.go), and the columns' own counts are zero.
		r.keptBackedOff = r.backedOff
		publishCounts(&r.counts, r.plan.tabs)
		return
	}
	// A bulk pass the result set ended in shortened skips by rows it did
	// not have.
	r.endBulk()
	n, cached := 0, r.cached
	mem := r.mem[:len(cached)]
	for k := range cached {
		cc := &cached[k]
		cc.flush(&r.counts)
		mem[k].Close(&cc.reuse, cc.lazy)
		cc.lazy = false
		if cc.reuse.Skipping() {
			n++
		}
	}
	r.keptBackedOff = n
	publishCounts(&r.counts, r.plan.tabs)
}

// advance moves to the next row and records one sighting of each cached
// value in it, whether or not the row is then scanned, and however often:
// Next (Go 1.26) and NextRow (Go 1.27's driver.RowsColumnScanner) both come
// here, so admission and the reuse back-off see the same stream of values
// under either. It keeps each cached column's entry for the row in its
// cell.
//
// It returns the row's wire values. A row passed in bulk (inBulk) looks
// nothing up: its caller counts the exceptions to the bypasses countBulk
// counts, in nextBulk or NextRow. The rest of a bulk pass, which may have
// started in an earlier result set, never comes here: Next and NextRow
// pass those rows themselves, before they call advance.
func (r *Rows) advance() (raws [][]byte, err error) {
	if !r.step() {
		return nil, r.end()
	}
	// Capped at its length, raws keeps no capacity in a register through
	// the loops below, which pass it to lookFrom: its readers never append
	// to it.
	raws = r.rows.RawValues()
	raws = raws[:len(raws):len(raws)]
	if len(r.cached) == 0 {
		return raws, nil
	}
	if r.backedOff == len(r.cached) {
		r.startBulk()
	}
	if r.inBulk = r.bulkRows > 0; r.inBulk {
		// The first row of a bulk pass.
		r.bulkRows--
		r.bulkHere++
		return raws, nil
	}
	r.dirty, r.entries = true, false
	// The common lookups end in this loop, which calls nothing, so that
	// its state stays in registers: in a Quiet column (its lookup closes no
	// window), a numeric or text-kind text of 4 to 8 bytes that packs, and
	// hits or is seen for the first time in its slot — all the lookups of
	// a row of repeating or of distinct such values. At its first other
	// lookup (a NULL, a skip, a fixed-size kind, another length, a second
	// sighting, a window's end) it hands the rest of the row to lookFrom,
	// which makes every lookup from its start. (A second sighting leaves
	// its key recorded, so lookFrom sees it again and admits it.) Each exit
	// calls lookFrom itself: one exit after the loop (a labeled break, or
	// the column kept in a variable) counts 2 instructions a value more on
	// a row of first sightings and 3 on one of hits (PARTS of
	// bench/cachegrind.sh short/table-distinct/1 and table-repeating/20).
	//
	// cols and vals are taken at the row's length: a column's index checked
	// against raws is then in range of both, and no length but raws' is
	// kept in a register. The length test is one unsigned compare, and
	// the compiler then knows PackMid's loads to be in range. An inlined
	// call whose line has no instruction of its own costs a NOP a value
	// (the compiler's inline mark): the calls below sit on the line of a
	// test, and empty's call inside a test of hasEntry (which empty makes
	// again, on the rare path).
	cached, cols, vals := r.cached, r.cols[:len(raws)], r.vals[:len(raws)]
	num := &numericTable
	var key uint64
	var packed bool
	if r.plan.tabs == 1<<tabNumeric {
		// Every cached column is a numeric one: the loop below, its
		// numeric case alone, with no test of a column's kind. (The copy
		// is on purpose: the kind test, and the registers the text case
		// holds, cost a row of 8 first sightings 53 instructions, PARTS of
		// bench/cachegrind.sh short/table-distinct/1.)
		for k := range cached {
			cc := &cached[k]
			raw := raws[cc.col]
			if !cc.reuse.Quiet() || len(raw) < 4 || len(raw) > 8 {
				r.lookFrom(k, raws)
				break
			}
			if key, packed = cache.PackMid(raw); !packed {
				r.lookFrom(k, raws)
				break
			}
			if e, found := num.Get(key); found {
				r.counts[tabNumeric].Hits++
				if directRoutes {
					cols[cc.col].cell.num = e
				} else {
					vals[cc.col] = e.value
				}
				cc.hasEntry, r.entries = true, true
				cc.reuse.QuietHit()
				continue
			}
			if num.Sight(key) {
				r.lookFrom(k, raws)
				break
			}
			r.counts[tabNumeric].Misses++
			if cc.hasEntry {
				r.empty(cc)
			}
			cc.lastMiss = key
			cc.reuse.QuietMiss()
		}
		return raws, nil
	}
	for k := range cached {
		cc := &cached[k]
		raw := raws[cc.col]
		if !cc.reuse.Quiet() || len(raw) < 4 || len(raw) > 8 {
			r.lookFrom(k, raws)
			break
		}
		if key, packed = cache.PackMid(raw); !packed {
			r.lookFrom(k, raws)
			break
		}
		if cc.kind == kindNumeric {
			if e, found := num.Get(key); found {
				r.counts[tabNumeric].Hits++
				if directRoutes {
					cols[cc.col].cell.num = e
				} else {
					vals[cc.col] = e.value
				}
				cc.hasEntry, r.entries = true, true
				cc.reuse.QuietHit()
				continue
			}
			if num.Sight(key) {
				r.lookFrom(k, raws)
				break
			}
			r.counts[tabNumeric].Misses++
		} else if cc.kind == kindText {
			if v, found := cc.table.Get(key); found {
				r.counts[cc.tab].Hits++
				vals[cc.col] = v
				cc.hasEntry, r.entries = true, true
				cc.reuse.QuietHit()
				continue
			}
			if cc.table.Sight(key) {
				r.lookFrom(k, raws)
				break
			}
			r.counts[cc.tab].Misses++
		} else {
			r.lookFrom(k, raws)
			break
		}
		// A first sighting, which Sight recorded: the whole cost of a value
		// of a column whose values do not repeat. The key is the column's
		// last miss (see admit).
		if cc.hasEntry {
			r.empty(cc)
		}
		cc.lastMiss = key
		cc.reuse.QuietMiss()
	}
	return raws, nil
}

// lookFrom records one sighting of each cached column's value in raws from
// column k on, whatever the case: advance's own loop hands it the rest of
// the row at its first lookup that is not one of its common ones (see
// there). A row of mixed kinds, NULLs or skips so costs one call more than
// this loop alone.
func (r *Rows) lookFrom(k int, raws [][]byte) {
	r.touched = true
	cols, cached, vals := r.cols, r.cached, r.vals
	for ; k < len(cached); k++ {
		cc := &cached[k]
		raw := raws[cc.col]
		if cc.reuse.Skipping() || raw == nil {
			// NULLs and columns in a skip.
			r.empty(cc)
			if cc.reuse.Skipping() {
				if cc.reuse.SkipRow() {
					r.backedOff--
				}
				r.countBypass(cc, raw)
			}
			continue
		}
		// A packed-key table's lookup is made here: a hit, the common case
		// of a repeating column, and a first sighting, that of a column of
		// distinct values, end here; a second sighting goes on to admit
		// with its key, and everything else (texts that do not pack, the
		// hashed tables) through sight.
		var key uint64
		var packed bool
		switch cc.kind {
		case kindNumeric:
			// Pack's common case, 4 to 8 bytes, is inlined: a call here
			// spills the loop's registers. (Inlining its 1-3 byte case
			// too costs more than it saves: the compiler then spills
			// more, bench/cachegrind.sh counts.)
			if uint(len(raw))-4 <= 4 {
				key, packed = cache.PackMid(raw)
			} else {
				key, packed = cache.Pack(raw)
			}
			if packed {
				if e, found := numericTable.Get(key); found {
					cc.hits++
					if directRoutes {
						cols[cc.col].cell.num = e
					} else {
						vals[cc.col] = e.value
					}
					cc.hasEntry, r.entries = true, true
					if cc.reuse.ObserveHit() {
						r.backedOff++
					}
					continue
				}
				if numericTable.Sight(key) {
					r.admit(cc, k, key, raw)
					continue
				}
			}
		case kindText, kindFixed:
			if cc.kind != kindText {
				key, packed = cache.PackFixed(raw)
			} else if uint(len(raw))-4 <= 4 {
				key, packed = cache.PackMid(raw)
			} else {
				key, packed = cache.Pack(raw)
			}
			if packed {
				if v, found := cc.table.Get(key); found {
					cc.hits++
					vals[cc.col] = v
					cc.hasEntry, r.entries = true, true
					if cc.reuse.ObserveHit() {
						r.backedOff++
					}
					continue
				}
				if cc.table.Sight(key) {
					r.admit(cc, k, key, raw)
					continue
				}
			}
		}
		if !packed {
			r.sight(cc, &cols[cc.col], raw)
			continue
		}
		// A first sighting of key in its slot, which Sight recorded: the
		// whole cost of a value of a column whose values do not repeat,
		// kept inline. The key is the column's last miss (see admit).
		r.empty(cc)
		r.counts[cc.tab].Misses++
		cc.lastMiss = key
		if cc.reuse.ObserveMiss() {
			r.backedOff++
		}
	}
}

// step moves to the next row: the one QueryContext read first, then pgx's.
func (r *Rows) step() bool {
	if r.pending {
		r.pending = false
		return r.pendingMore
	}
	return r.rows.Next()
}

// end is advance's error after the last row: the result set's, or io.EOF.
func (r *Rows) end() error {
	if err := r.rows.Err(); err != nil {
		return err
	}
	return io.EOF
}

// endLazy ends the lazy skip of every cached column: they are looked up
// from the next row on.
func (r *Rows) endLazy() {
	r.lazyCols = false
	for k := range r.cached {
		if cc := &r.cached[k]; cc.lazy {
			r.wakeLazy(cc)
		}
	}
}

// wakeLazy ends cc's lazy skip: it is looked up from the next row on. A bulk
// pass, which a lazy column's skip may make last to the end of the result
// set, ends after the current row.
func (r *Rows) wakeLazy(cc *cachedColumn) {
	r.touched = true
	r.endBulk()
	cc.lazy = false
	if cc.reuse.Resume() {
		r.backedOff--
	}
}

// cell is a numeric or hstore column's entry for the current row: nil when
// the value is NULL, bypassed the cache or was not found in it. Go 1.27's
// direct routes scan from it, and its Next takes the entry's driver value
// from it (entryValue); on Go 1.26, whose database/sql converts driver
// values itself, Rows.vals holds the entry's driver value instead and the
// cells are not kept (directRoutes), so a hit stores one pointer, not two. (A
// type table's entry is its driver value and nothing else, so those columns
// keep only vals, under either.)
type cell struct {
	num *numEntry
	hs  *hsEntry
}

// Next reads the next row into dest. A numeric or hstore value found in the
// cache is the entry's pre-boxed string: no copy and no allocation.
func (r *Rows) Next(dest []sqldriver.Value) error {
	var raws [][]byte
	if len(r.cached) == 0 {
		// No column goes through the cache: stdlib's own loop, below.
		if !r.step() {
			return r.end()
		}
		raws = r.rows.RawValues()
	} else {
		if r.lazyCols {
			// Next hands over driver values, which the tables' entries
			// are: every lazy column wants them (see planLazy).
			r.endLazy()
		}
		if r.bulkRows > 0 {
			// The rest of a bulk pass: stdlib's loop and the count of
			// its exceptions.
			if !r.step() {
				return r.end()
			}
			r.bulkRows--
			r.bulkHere++
			return r.nextBulk(dest, r.rows.RawValues())
		}
		var err error
		if raws, err = r.advance(); err != nil {
			return err
		}
		if r.inBulk {
			return r.nextBulk(dest, raws)
		}
		if r.entries {
			// stdlib's loop and the entries. (Two loops, not one with
			// a test of r.entries: Go does not unswitch loops.) One
			// bounds check each, not one a column: all have a
			// column's length.
			conv, vals, dest := r.plan.conv[:len(raws)], r.vals[:len(raws)], dest[:len(raws)]
			for i, raw := range raws {
				if raw == nil {
					dest[i] = nil
					continue
				}
				if v := r.entryValue(i, vals); v != nil {
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
	}
	// stdlib's own loop: pgcache=off's rows, and a row whose lookups all
	// missed. One bounds check each, not one a column: all have a
	// column's length.
	conv, dest := r.plan.conv[:len(raws)], dest[:len(raws)]
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
