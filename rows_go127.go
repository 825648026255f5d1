//go:build go1.27

package pgcache

import (
	"database/sql"
	sqldriver "database/sql/driver"
	"errors"
	"reflect"
	"sync"
	"time"
	"unsafe"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

// As of Go 1.27 database/sql hands each Scan destination to the driver
// (driver.RowsColumnScanner) and no longer calls Next. pgcache keeps pgx
// stdlib's contract for that hook — database/sql's conversions for scalar
// and sql.Scanner destinations, pgx's type map for everything else (slices,
// pgtype.Array, ranges, …) — and adds direct routes (the route table,
// route_table_go127.go): the common destinations are filled from the cache entry,
// or from the wire bytes of a value the cache does not hold, with no
// convertAssign reflection, no second lookup and no parsing.
var _ sqldriver.RowsColumnScanner = (*Rows)(nil)

// NextRow advances to the next row, recording one sighting of each cached
// value as Next does on older Go; it returns io.EOF after the last row.
func (r *Rows) NextRow() error {
	if r.bulkRows > 0 {
		// The rest of a bulk pass: pgx's step and the count of its
		// exceptions.
		var raws [][]byte
		var err error
		if r.step() {
			r.bulkRows--
			r.bulkHere++
			raws = r.rows.RawValues()
			if !r.plan.bulkPlain(raws) {
				r.countBulkRow(raws)
			}
		} else {
			err = r.end()
		}
		if r.plan.wireRaws {
			r.raws = raws
		}
		return err
	}
	raws, err := r.advance()
	if err == nil && r.inBulk && !r.plan.bulkPlain(raws) {
		r.countBulkRow(raws)
	}
	if r.plan.wireRaws {
		r.raws = raws
	}
	return err
}

// countBulkRow takes a row passed in bulk's exceptions back from the
// bypasses countBulk counts (bulk.go): the NULLs of cached columns, and the
// text-kind texts that are the hashed table's. A text-kind value of 1 to 8
// bytes, the common case, costs one length test; the other cached columns
// are looked at only when the row has a NULL, where they are many
// (plan.nullScan), and one by one otherwise.
func (r *Rows) countBulkRow(raws [][]byte) {
	p := r.plan
	for _, i := range p.bulkText {
		if raw := raws[i]; !packable(raw) {
			if raw == nil {
				r.counts[tabText].Bypasses--
			} else {
				r.countLong()
			}
		}
	}
	if p.nullScan && !hasNull(raws) {
		return
	}
	for _, i := range p.bulkOther {
		if raws[i] == nil {
			r.counts[r.cols[i].tab].Bypasses--
		}
	}
}

// bulkPlain reports whether a row passed in bulk has no exception to count
// that is quickly known: no text-kind column to look at, the other cached
// columns many, and no NULL in the row (see Rows.countBulkRow). It inlines
// into NextRow.
func (p *plan) bulkPlain(raws [][]byte) bool {
	return p.bulkText == nil && p.nullScan && !hasNull(raws)
}

// hasNull reports whether any of a row's wire values is NULL (nil), four
// to a step, so that a row with none costs about a test and a branch a
// value.
func hasNull(raws [][]byte) bool {
	for ; len(raws) >= 4; raws = raws[4:] {
		if raws[0] == nil || raws[1] == nil || raws[2] == nil || raws[3] == nil {
			return true
		}
	}
	for _, raw := range raws {
		if raw == nil {
			return true
		}
	}
	return false
}

// rawValues returns the current row's wire values.
func (r *Rows) rawValues() [][]byte {
	if r.plan.wireRaws {
		return r.raws
	}
	return r.rows.RawValues()
}

// directRoutes says whether database/sql scans through ScanColumn, whose
// direct routes read numeric and hstore entries from the columns' cells
// (see cell): from Go 1.27 on.
const directRoutes = true

// entryValue returns the driver value of column i's cache entry for the
// current row, nil when it has none: a numeric or hstore entry's from the
// column's cell, where advance keeps it, a type table's from vals (r.vals,
// which Next takes once a row).
func (r *Rows) entryValue(i int, vals []sqldriver.Value) sqldriver.Value {
	col := &r.cols[i]
	switch col.kind {
	case kindNumeric:
		if e := col.cell.num; e != nil {
			return e.value
		}
		return nil
	case kindHstore:
		if e := col.cell.hs; e != nil {
			return e.value
		}
		return nil
	}
	return vals[i]
}

// column is one result column: its plan, and what the cursor keeps for it.
type column struct {
	columnPlan
	dest routeMemo // the last destination type and its routes
	cell cell      // numeric and hstore: the current row's entry
}

// Errors for destinations no driver can scan into, worded as pgx stdlib's.
var (
	errDestNotPointer = errors.New("destination not a pointer")
	errDestNilPointer = errors.New("destination pointer is nil")
)

// ScanColumn scans column index of the current row into dest. database/sql
// calls it once per column per Scan; it records nothing in the cache, so
// scanning a row twice, or not at all, leaves the cache as Next would.
//
// The column remembers the routes into the type of the destination it last
// saw (routeMemo); a cached value takes its kind's route from its entry, and
// a value the cache does not hold takes the column's wire route (scanWire)
// where it has one: decoded from the wire bytes straight into dest, with no
// driver value boxed and no reflection. A value with no route takes pgx
// stdlib's road.
//
// ScanColumn itself is the path of nearly every value — a destination of
// the type the column saw last, a numeric or hstore entry or a plain
// column's wire value — kept small, so that the compiler spills few of its
// registers before the route; everything else, and any route that has no
// answer, goes on in scanColumn.
func (r *Rows) ScanColumn(scanCtx sqldriver.ScanContext, index int, dest any) error {
	col := &r.cols[index]
	// dest's type and data words, read in place (typeWord and dataWord
	// would copy dest to the stack first).
	words := (*[2]unsafe.Pointer)(unsafe.Pointer(&dest))
	t, p := words[0], words[1]
	if t != col.dest.typ || t == nil {
		return r.scanColumn(scanCtx, index, dest, false)
	}
	rt := col.dest.routes
	var done bool
	var err error
	switch col.kind {
	case kindPlain:
	case kindNumeric:
		if e := col.cell.num; e != nil {
			if f := rt.num; f != nil {
				// The entry's own route, called here rather than through
				// scanRoute: a call less on the path of a cached value.
				done = f(e, p)
				goto routed
			}
			done, err = e.scanRoute(scanCtx, rt, p)
			goto routed
		}
	case kindHstore:
		e := col.cell.hs
		if e == nil {
			return r.scanColumn(scanCtx, index, dest, false)
		}
		if f := rt.hs; f != nil {
			done, err = f(e, p)
			goto routed
		}
		done, err = e.scanRoute(scanCtx, rt, p)
		goto routed
	case kindText, kindFixed:
		// A row passed in bulk (see advance) has no entry: not worth a look.
		if !r.inBulk {
			if v := r.vals[index]; v != nil {
				if s, ok := v.(string); ok && rt.text != nil {
					// A text kind's entry: its route, without assignValue's call.
					done, err = rt.text(scanCtx, s, v, p)
				} else {
					done, err = assignValue(scanCtx, rt, v, p)
				}
				goto routed
			}
		}
		if col.kind == kindFixed && t == anyPointer {
			// The destination that wakes a lazy column (wantEntries).
			return r.scanColumn(scanCtx, index, dest, false)
		}
	}
	if col.wire == wireNone || index >= len(r.raws) || r.raws[index] == nil {
		return r.scanColumn(scanCtx, index, dest, false)
	}
	if done, err = scanWire(scanCtx, col.wire, r.raws[index], rt, p); !done && col.kind == kindFixed {
		// A value with no wire route wakes a lazy column too.
		return r.scanColumn(scanCtx, index, dest, false)
	}
routed:
	if done {
		return err
	}
	return r.scanColumn(scanCtx, index, dest, true)
}

// anyPointer is the type word of *any.
var anyPointer = typeWordOf[*any]()

// scanColumn is ScanColumn's whole road. tried says that ScanColumn took
// the value's route already (the entry's or the wire's), which had no
// answer: the value goes on to stdlib's road.
func (r *Rows) scanColumn(scanCtx sqldriver.ScanContext, index int, dest any, tried bool) error {
	if dest == nil {
		return errDestNotPointer
	}
	var v sqldriver.Value // the cache entry's driver value, if the cell has one
	col := &r.cols[index]
	rt := col.dest.routesFor(dest)
	p := dataWord(dest)
	switch col.kind {
	case kindNumeric:
		if e := col.cell.num; e != nil {
			if !tried {
				if done, err := e.scanRoute(scanCtx, rt, p); done {
					return err
				}
			}
			v = e.value
		}
	case kindHstore:
		if e := col.cell.hs; e != nil {
			if !tried {
				if done, err := e.scanRoute(scanCtx, rt, p); done {
					return err
				}
			}
			v = e.value
		}
	case kindText, kindFixed:
		// A row passed in bulk (see advance) has no entry: not worth a look.
		if !r.inBulk {
			if v = r.vals[index]; v != nil && !tried {
				if done, err := assignValue(scanCtx, rt, v, p); done {
					return err
				}
			}
		}
	}
	if v == nil && !tried && col.wire != wireNone {
		if raws := r.rawValues(); index < len(raws) && raws[index] != nil {
			raw := raws[index]
			done, err := scanWire(scanCtx, col.wire, raw, rt, p)
			if done {
				if col.kind == kindFixed {
					if _, isAny := dest.(*any); isAny {
						r.wantEntries(col, raw)
					}
				}
				return err
			}
			if col.kind == kindFixed {
				v = r.wantEntries(col, raw)
			}
		}
	}
	return r.scanColumnStdlib(scanCtx, index, dest, v)
}

// planLazy starts the result set's fixed-size kinds (pgcache_types) that
// have a wire route in a skip that only wantEntries ends
// (backoff.Tracker.Suspend). On Go 1.27 their wire routes
// fill the integer, float and time destinations without allocating, faster
// than a lookup would, so their tables pay only for destinations that take
// the boxed driver value itself (*any, types database/sql converts by
// reflection): the first such destination ends the skip (wantEntries), and
// the column is looked up, and backs off, as any other from the next row
// on. Until then its values count as bypasses, and a result set whose
// cached columns are all lazy passes its rows in bulk.
func (r *Rows) planLazy() {
	for _, k := range r.plan.lazy {
		cc := &r.cached[k]
		cc.lazy = true
		if cc.reuse.Suspend(&r.mem[k]) {
			r.backedOff++
		}
		r.lazyCols, r.dirty, r.touched = true, true, true
	}
}

// wantEntries ends col's lazy skip, if it is in one: a destination of it is
// one that its table's entries serve. The current row's value raw (not
// NULL), counted as a bypass, is looked up instead, and its entry, if any,
// returned, so that the column's traffic is what it would have been had it
// never been lazy.
func (r *Rows) wantEntries(col *column, raw []byte) sqldriver.Value {
	cc := &r.cached[col.cachedIdx]
	if !cc.lazy {
		return nil
	}
	r.wakeLazy(cc)
	r.counts[cc.tab].Bypasses-- // counted in cc.bypassed or, in a row passed in bulk, by countBulk
	r.sight(cc, col, raw)
	return r.vals[cc.col]
}

// planWire chooses a column's wire route, once per result set: the text
// route for a text-format column whose stdlib conversion is string(raw)
// (every type but those plainValueFunc converts otherwise), a binary one
// for the fixed-size types plainValueFunc decodes, when the connection
// decodes them with pgx's default codec (see sameCodec). Every other column
// has none.
func planWire(m *pgtype.Map, fd *pgconn.FieldDescription) wireKind {
	oid := fd.DataTypeOID
	if fd.Format == pgx.TextFormatCode {
		switch oid {
		case pgtype.BoolOID, pgtype.ByteaOID, pgtype.CIDOID, pgtype.OIDOID, pgtype.XIDOID, pgtype.DateOID,
			pgtype.Float4OID, pgtype.Float8OID, pgtype.Int2OID, pgtype.Int4OID, pgtype.Int8OID,
			pgtype.JSONOID, pgtype.JSONBOID, pgtype.XMLOID, pgtype.TimestampOID, pgtype.TimestamptzOID:
			return wireNone
		}
		return wireText
	}
	return binaryWire(m, fd)
}

// scanColumnStdlib is what pgx stdlib's ScanColumn does with dest: rejects
// nil, converts the driver value with database/sql's rules for the
// destinations database/sql knows, and lets pgx's type map scan the wire
// bytes into anything else. cached is the cell's cache entry's driver
// value, nil when there is none: the driver value itself, which stdlib's
// conversion would only make again.
func (r *Rows) scanColumnStdlib(scanCtx sqldriver.ScanContext, index int, dest any, cached sqldriver.Value) error {
	if dest == nil {
		return errDestNotPointer
	}
	rv := reflect.ValueOf(dest)
	if rv.Kind() == reflect.Pointer && rv.IsNil() {
		return errDestNilPointer
	}
	raw := r.rows.RawValues()[index]
	if convertsLikeDatabaseSQL(rv.Type()) {
		v := cached
		if v == nil && raw != nil {
			var err error
			if v, err = r.plan.conv[index](raw); err != nil {
				return err
			}
		}
		return sql.ConvertAssign(scanCtx, dest, v)
	}
	fd := &r.rows.FieldDescriptions()[index]
	return r.conn.conn.TypeMap().Scan(fd.DataTypeOID, fd.Format, raw, dest)
}

// scanKinds caches convertsLikeDatabaseSQL by destination type.
var scanKinds sync.Map // reflect.Type -> bool

// convertsLikeDatabaseSQL reports whether pgx stdlib hands a destination of
// type t to database/sql's conversion (sql.ConvertAssign) rather than to the
// pgx type map. The choice is made before scanning so that a failed scan is
// never retried the other way (which could run a Scan method twice).
func convertsLikeDatabaseSQL(t reflect.Type) bool {
	if v, ok := scanKinds.Load(t); ok {
		return v.(bool)
	}
	v := classifyDest(t)
	scanKinds.Store(t, v)
	return v
}

var (
	scannerType      = reflect.TypeFor[sql.Scanner]()
	arraySetterType  = reflect.TypeFor[pgtype.ArraySetter]()
	bytesScannerType = reflect.TypeFor[pgtype.BytesScanner]()
	timeType         = reflect.TypeFor[time.Time]()
)

// classifyDest is convertsLikeDatabaseSQL without the cache. Through any
// number of pointers: an sql.Scanner goes to database/sql; pgx's own byte and
// array scanners (pgtype.FlatArray[byte], pgtype.PreallocBytes) to pgx; then
// the scalar kinds database/sql converts (named types too), byte slices,
// interfaces and time.Time-like structs go to database/sql, and the rest
// (slices, maps, other structs) to pgx.
func classifyDest(t reflect.Type) bool {
	var seen map[reflect.Type]struct{} // named pointer types can loop
	for {
		if t.Implements(scannerType) {
			return true
		}
		if t.Implements(arraySetterType) || t.Implements(bytesScannerType) {
			return false
		}
		if t.Kind() != reflect.Pointer {
			break
		}
		if t.Name() != "" {
			if _, loop := seen[t]; loop {
				return false
			}
			if seen == nil {
				seen = make(map[reflect.Type]struct{})
			}
			seen[t] = struct{}{}
		}
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Bool, reflect.String, reflect.Interface,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return true
	case reflect.Slice:
		return t.Elem().Kind() == reflect.Uint8
	case reflect.Struct:
		return t.ConvertibleTo(timeType)
	}
	return false
}
