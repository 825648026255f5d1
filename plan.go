package pgcache

import (
	sqldriver "database/sql/driver"
	"slices"
	"unsafe"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/pgcache/pgcache/cache"
	"github.com/pgcache/pgcache/internal/backoff"
)

// A connection's plans. Applications run the same few queries again and
// again, and most result sets are short: planning a result set from scratch
// (each column's kind, its stdlib conversion, its wire route, its cached
// path and its place in the back-off's memory; newPlan below) and
// allocating its Rows cost more than reading a row or two of it. So each
// connection keeps the Rows of its last few closed result sets, planned, and
// a result set whose columns and types match one of them reuses it — its
// plan and its buffers — and only starts its per-result-set state afresh
// (Rows.start). A result set matches a kept Rows when:
//
//   - its field descriptions are equal, field for field (name, table OID
//     and attribute, type OID, size, modifier and format): pgx rewrites
//     them for every result set, into a buffer of its own, so they are
//     compared by value;
//   - the connection's type map still gives every OID of its columns the
//     same registered type and codec as when it was planned (a codec
//     registered since, through Conn(), sends it to a fresh plan, as pgx
//     stdlib plans each result set anew);
//   - when a cached column is an expression, whose identity in the
//     back-off's memory is the query's text (see backoff.ColumnKey), the
//     text is the same.
//
// Kept Rows are bounded: keptPlans per connection, each holding its
// columns' plan and buffers (the bound docs/guarantees.md gives:
// TestKeptPlanFootprint), replaced round-robin, and dropped with the
// connection.

// keptPlans is how many closed Rows a connection keeps for reuse.
const keptPlans = 4

// planKey is what a kept Rows was planned for.
type planKey struct {
	fields []pgconn.FieldDescription // a copy of the result set's
	types  []planType                // each distinct OID of the columns
	query  string                    // the query text, when exprQuery
	// exprQuery: a cached column is an expression, so its memory key is
	// the query's text.
	exprQuery bool
}

// planType is the type a connection's type map registered for an OID when
// a result set was planned, and its codec, compared by identity: the
// pointer to the type, and the codec interface's two words (a dynamic type
// and a pointer), which unlike == never panics on a codec of an
// incomparable type.
type planType struct {
	oid   uint32
	typ   *pgtype.Type
	codec [2]unsafe.Pointer
}

// typeOf returns oid's registered type in m, as planType records it.
func typeOf(m *pgtype.Map, oid uint32) planType {
	p := planType{oid: oid}
	if t, ok := m.TypeForOID(oid); ok {
		p.typ = t
		p.codec = [2]unsafe.Pointer{typeWord(t.Codec), dataWord(t.Codec)}
	}
	return p
}

// typeWord is the type word of v: its dynamic type, nil when v is nil.
func typeWord(v any) unsafe.Pointer { return (*[2]unsafe.Pointer)(unsafe.Pointer(&v))[0] }

// dataWord is the data word of v, which for a pointer type is the pointer.
func dataWord(v any) unsafe.Pointer { return (*[2]unsafe.Pointer)(unsafe.Pointer(&v))[1] }

// newPlanKey records what a result set with fields, read by query on a
// connection with type map m, is planned for.
func newPlanKey(fields []pgconn.FieldDescription, query string, m *pgtype.Map, exprQuery bool) planKey {
	k := planKey{fields: append([]pgconn.FieldDescription(nil), fields...), exprQuery: exprQuery}
	if exprQuery {
		k.query = query
	}
next:
	for i := range fields {
		oid := fields[i].DataTypeOID
		for _, t := range k.types {
			if t.oid == oid {
				continue next
			}
		}
		k.types = append(k.types, typeOf(m, oid))
	}
	return k
}

// matches reports whether a result set with fields, read by query on a
// connection with type map m, can reuse the plan k was recorded for.
func (k *planKey) matches(fields []pgconn.FieldDescription, query string, m *pgtype.Map) bool {
	if len(fields) != len(k.fields) {
		return false
	}
	for i := range fields {
		if fields[i] != k.fields[i] {
			return false
		}
	}
	if k.exprQuery && query != k.query {
		return false
	}
	for _, t := range k.types {
		if typeOf(m, t.oid) != t {
			return false
		}
	}
	return true
}

// reuseRows returns, and takes out of the connection's kept Rows, one
// planned for a result set like this one, or nil.
func (c *Conn) reuseRows(fields []pgconn.FieldDescription, query string, m *pgtype.Map) *Rows {
	for i, r := range c.kept {
		if r != nil && r.plan.key.matches(fields, query, m) {
			c.kept[i] = nil
			return r
		}
	}
	return nil
}

// keepRows keeps r, closed, for a later result set of its plan.
func (c *Conn) keepRows(r *Rows) {
	for i, k := range c.kept {
		if k == nil {
			c.kept[i] = r
			return
		}
	}
	c.kept[c.keepNext].flushMemory()
	c.kept[c.keepNext] = r
	c.keepNext = (c.keepNext + 1) % keptPlans
}

// dropKept writes the kept Rows' trackers to the back-off's memory and
// forgets them (Close).
func (c *Conn) dropKept() {
	for i, r := range c.kept {
		if r != nil {
			r.flushMemory()
			c.kept[i] = nil
		}
	}
}

// newRows returns the Rows of a result set whose first row has been read;
// more says whether there is one. It reuses a Rows the connection kept from
// an earlier result set of the same plan (keptPlans), or plans one.
func newRows(c *Conn, rows pgx.Rows, more bool, query string) *Rows {
	fields := rows.FieldDescriptions()
	m := c.conn.TypeMap()
	r := c.reuseRows(fields, query, m)
	fresh := r == nil
	if fresh {
		r = newCursor(c, newPlan(c, fields, query, m))
	}
	r.start(rows, more, fresh)
	return r
}

// plan is what a result set's shape decides, once, and no result set
// changes: for each column its kind, wire route and stdlib conversion, and
// for each cached column its table and its identity in the back-off's
// memory. pgtype's ScanPlan is the model: a plan value built once per
// shape, run for every row. A Rows is a cursor over one plan.
type plan struct {
	key  planKey      // what it is planned for
	cols []columnPlan // each column's decisions
	conv []convFunc   // each column's stdlib conversion

	// The cached columns, in the order of Rows.cached, and each one's key
	// in the back-off's memory (backoff.ColumnKey, by catalog).
	cached  []cachedPlan
	memKeys []uint64

	// Go 1.27: the text-kind cached columns' indices, nil when there are
	// none: in rows passed in bulk only they count exceptions other than
	// NULLs (long texts; Go 1.26's nextBulk tests each column's kind in the
	// loop that converts the row).
	bulkText []int32

	// Go 1.27: the other cached columns' indices, whose only exceptions in
	// rows passed in bulk are NULLs (see Rows.countBulkRow), and whether
	// they are dense enough among the columns (a quarter or more) that a
	// scan of the whole row for a NULL, four to a step, is cheaper than a
	// look at each of them.
	bulkOther []int32
	nullScan  bool

	// Go 1.27: the indices in cached of the fixed-size kinds' columns that
	// have a wire route, which start each result set lazy (Rows.planLazy).
	lazy []int32

	// tabs has a bit for each table the columns may count in, and tabCols
	// the number of cached columns of each (countBulk).
	tabs    uint16
	tabCols [numTables]uint16

	// Go 1.27: some column but an hstore one has a wire route, which
	// ScanColumn reads the row's wire values for (an hstore column's only
	// on a miss, rare enough to ask pgx for them), so NextRow keeps them.
	wireRaws bool

	// The pgcache_types packed text table, when a column is of a text kind.
	text *cache.Short[sqldriver.Value]
}

// columnPlan is what a plan decides for one result column.
type columnPlan struct {
	kind      columnKind
	wire      wireKind // Go 1.27: how its uncached values are decoded for a direct route
	tab       tableID  // a cached column's table, where its counts go
	cachedIdx int32    // a cached column's index in Rows.cached
}

// cachedPlan is what a plan decides for a column that goes through the
// cache.
type cachedPlan struct {
	col   int32 // index in Rows.cols and in the row's raw values
	kind  columnKind
	tab   tableID                       // where its counts go
	table *cache.Short[sqldriver.Value] // kindText and kindFixed: the packed-key type table
}

// newPlan plans a result set with fields, read by query on c, whose type
// map is m: a loop over planColumn.
func newPlan(c *Conn, fields []pgconn.FieldDescription, query string, m *pgtype.Map) *plan {
	p := &plan{cols: make([]columnPlan, len(fields)), conv: make([]convFunc, len(fields))}
	var queryHash uint64 // made for the first expression column (see backoff.ColumnKey)
	for i := range fields {
		p.planColumn(c, m, &fields[i], i, query, &queryHash)
	}
	p.orderCached()
	p.key = newPlanKey(fields, query, m, queryHash != 0)
	p.nullScan = 4*len(p.bulkOther) >= len(p.cols)
	return p
}

// planColumn plans column i, described by fd: the cached path or stdlib's
// conversion, decided from the column's type, format and name, the
// connection's options and its type map m (see typeColumn). queryHash is
// the query's hash for the memory keys of expression columns, made by the
// first one that needs it.
func (p *plan) planColumn(c *Conn, m *pgtype.Map, fd *pgconn.FieldDescription, i int, query string, queryHash *uint64) {
	col := &p.cols[i]
	col.wire = planWire(m, fd)
	var tab tableID
	var short *cache.Short[sqldriver.Value]
	switch {
	case fd.Format == pgx.TextFormatCode && fd.DataTypeOID == pgtype.NumericOID &&
		c.setup.Cached(fd.Name, fd.TableOID, fd.TableAttributeNumber):
		col.kind, tab = kindNumeric, tabNumeric
		p.conv[i] = textValue // numeric arrives as text, which stdlib returns as is
	case fd.Format == pgx.TextFormatCode && fd.DataTypeOID != 0 && fd.DataTypeOID == c.setup.HstoreOID &&
		c.setup.Cached(fd.Name, fd.TableOID, fd.TableAttributeNumber):
		col.kind, tab = kindHstore, tabHstore
		p.conv[i] = textValue // as numeric
	default:
		p.conv[i] = columnValueFunc(m, fd)
		// pgcache_types; Cached is false for every column when pgcache=off.
		types := c.setup.Options.Types
		if types == 0 || !c.setup.Cached(fd.Name, fd.TableOID, fd.TableAttributeNumber) {
			break
		}
		col.kind, tab = typeColumn(m, fd, types)
		switch col.kind {
		case kindFixed:
			short = typeTabs.fixedTable(tab)
		case kindText:
			p.text = typeTabs.textTable()
			short = p.text
			p.bulkText = append(p.bulkText, int32(i))
		}
	}
	p.wireRaws = p.wireRaws || col.wire != wireNone && col.kind != kindHstore
	if col.kind == kindPlain {
		return
	}
	col.cachedIdx, col.tab = int32(len(p.cached)), tab
	p.tabCols[tab]++
	if col.kind != kindText {
		p.bulkOther = append(p.bulkOther, int32(i))
	}
	if fd.TableOID == 0 && *queryHash == 0 {
		*queryHash = backoff.HashQuery(query)
	}
	// Keyed per catalog: an OID names a column of one server only.
	p.memKeys = append(p.memKeys, backoff.CatalogKey(backoff.ColumnKey(fd.TableOID, fd.TableAttributeNumber, i, *queryHash), c.setup.Catalog))
	p.cached = append(p.cached, cachedPlan{col: int32(i), kind: col.kind, tab: tab, table: short})
	p.tabs |= 1 << tab
	if col.kind == kindText {
		p.tabs |= 1 << tabLongText
	}
}

// orderCached puts the cached columns of the kinds advance's call-free
// loop serves (numeric and text kinds) before the others (fixed-size kinds,
// then hstore), each group in the columns' order: the loop hands a row to
// lookFrom at its first other lookup, so a fixed-size column first would
// send every row there. Only the columns of one table share slots, and they
// are of one kind, so each table sees a row's values in the same order as
// before. It then lists the lazy columns (Go 1.27's fixed-size kinds with a
// wire route) by their new places.
func (p *plan) orderCached() {
	rank := func(k columnKind) int {
		switch k {
		case kindNumeric, kindText:
			return 0
		case kindFixed:
			return 1
		}
		return 2
	}
	order := make([]int, len(p.cached))
	for k := range order {
		order[k] = k
	}
	slices.SortStableFunc(order, func(a, b int) int { return rank(p.cached[a].kind) - rank(p.cached[b].kind) })
	cached, keys := slices.Clone(p.cached), slices.Clone(p.memKeys)
	for k, from := range order {
		p.cached[k], p.memKeys[k] = cached[from], keys[from]
		col := &p.cols[p.cached[k].col]
		col.cachedIdx = int32(k)
		if col.kind == kindFixed && col.wire != wireNone {
			p.lazy = append(p.lazy, int32(k))
		}
	}
}

// newCursor returns a Rows over p for c, with the buffers its result sets
// reuse while c keeps it.
func newCursor(c *Conn, p *plan) *Rows {
	r := &Rows{conn: c, plan: p, cols: make([]column, len(p.cols))}
	for i := range r.cols {
		r.cols[i].columnPlan = p.cols[i]
	}
	if n := len(p.cached); n > 0 {
		r.vals = make([]sqldriver.Value, len(p.cols))
		r.cached = make([]cachedColumn, n)
		r.mem = r.memBuf[:0]
		for k, cp := range p.cached {
			r.cached[k] = cachedColumn{col: cp.col, kind: cp.kind, tab: cp.tab, table: cp.table}
			r.mem = append(r.mem, backoff.NewRef(p.memKeys[k]))
		}
	}
	return r
}

// start readies r, newly planned (fresh) or kept from an earlier result set
// of its plan, for the result set rows, whose first row has been read: no
// lazy column yet, and each cached column's reuse tracker as the back-off's
// memory has it — a kept Rows' own, with the bulk pass its last result set
// left open, when the memory has nothing newer (backoff.Ref.Start). (Its
// counts are zero since publish.)
func (r *Rows) start(rows pgx.Rows, more, fresh bool) {
	r.rows, r.pending, r.pendingMore, r.published = rows, true, more, false
	r.lazyCols, r.dirty, r.touched = false, false, false
	// (Cells may hold the entries of a kept Rows' last row: the first row's
	// advance overwrites them. Its counts went at publish, which also left
	// every column not lazy and the number of them in a skip in
	// keptBackedOff.)
	if w := backoff.Writes(); fresh || w != r.memWrites {
		// The memory may hold something newer than the kept trackers. (A
		// kept Rows whose memory saw no write since its last start goes on
		// with them all, as Start would, and with a bulk pass its last
		// result set left open.)
		r.endBulk()
		r.memWrites, r.backedOff, r.dirty, r.touched = w, 0, true, true
		for k := range r.cached {
			cc := &r.cached[k]
			if r.mem[k].Start(&cc.reuse, fresh) {
				// Not the kept tracker: the column's last missed key
				// is another result set's, on another connection
				// perhaps.
				cc.lastMiss = 0
			}
			if cc.reuse.Skipping() {
				r.backedOff++
			}
		}
	} else {
		r.backedOff = r.keptBackedOff
	}
	r.inBulk = r.bulkRows > 0
	r.planLazy()
}
