package pgcache

import (
	sqldriver "database/sql/driver"
	"unsafe"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/pgcache/pgcache/cache"
)

// A connection's plans. Applications run the same few queries again and
// again, and most result sets are short: planning a result set from scratch
// (each column's kind, its stdlib conversion, its wire route, its cached
// path and its place in the back-off's memory; planRows below) and
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
//     back-off's memory is the query's text (see columnKey), the text is
//     the same.
//
// Kept Rows are bounded: keptPlans per connection, each holding its
// columns' plan and buffers (about 1.5 KiB and 200 bytes a column: 2.8 KiB
// for 8 columns, 4.4 KiB for 17; TestKeptPlanFootprint), replaced
// round-robin, and dropped with the connection.

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
		if r != nil && r.plan.matches(fields, query, m) {
			c.kept[i] = nil
			return r
		}
	}
	return nil
}

// keep keeps r, closed, for a later result set of its plan.
func (c *Conn) keep(r *Rows) {
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
		r = planRows(c, fields, query, m)
	}
	r.start(rows, more, fresh)
	return r
}

// planRows plans a result set: for each column, the cached path or stdlib's
// conversion, decided once from the column's type, format and name, the
// connection's options and its type map m (see typeColumn).
func planRows(c *Conn, fields []pgconn.FieldDescription, query string, m *pgtype.Map) *Rows {
	r := &Rows{conn: c}
	r.cols = make([]column, len(fields))
	r.conv = make([]convFunc, len(fields))
	var queryHash uint64 // made for the first expression column (see columnKey)
	for i := range fields {
		fd := &fields[i]
		col := &r.cols[i]
		col.wire = planWire(m, fd)
		var tab tableID
		var short *cache.Short[sqldriver.Value]
		switch {
		case fd.Format == pgx.TextFormatCode && fd.DataTypeOID == pgtype.NumericOID &&
			c.setup.Cached(fd.Name, fd.TableOID, fd.TableAttributeNumber):
			col.kind, tab = kindNumeric, tabNumeric
		case fd.Format == pgx.TextFormatCode && fd.DataTypeOID != 0 && fd.DataTypeOID == c.setup.HstoreOID &&
			c.setup.Cached(fd.Name, fd.TableOID, fd.TableAttributeNumber):
			col.kind, tab = kindHstore, tabHstore
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
		col.cachedIdx = int32(len(r.cached))
		if fd.TableOID == 0 && queryHash == 0 {
			queryHash = hashQuery(query)
		}
		if r.mem == nil {
			r.mem, r.lastMiss = r.memBuf[:0], r.missBuf[:0]
		}
		// Keyed per catalog: an OID names a column of one server only.
		r.mem = append(r.mem, memRef{key: catalogKey(columnKey(fd.TableOID, fd.TableAttributeNumber, i, queryHash), c.setup.Catalog)})
		r.lastMiss = append(r.lastMiss, 0)
		if r.cached == nil {
			r.cached = make([]cachedColumn, 0, len(fields)-i)
		}
		r.cached = append(r.cached, cachedColumn{col: int32(i), kind: col.kind, tab: tab, table: short})
		r.tabs |= 1 << tab
		if col.kind == kindText {
			r.tabs |= 1 << tabLongText
		}
	}
	for i := range r.cols {
		r.wireRaws = r.wireRaws || r.cols[i].wire != wireNone && r.cols[i].kind != kindHstore
	}
	if len(r.cached) > 0 {
		r.vals = make([]sqldriver.Value, len(fields))
		for _, cc := range r.cached {
			if cc.kind == kindText {
				if r.bulkText == nil {
					r.bulkText = r.bulkBuf[:0]
				}
				r.bulkText = append(r.bulkText, cc.col)
			}
		}
	}
	r.plan = newPlanKey(fields, query, m, queryHash != 0)
	return r
}

// start readies r, newly planned (fresh) or kept from an earlier result set
// of its plan, for the result set rows, whose first row has been read: no
// bulk pass, no lazy column yet, and each cached column's reuse tracker as
// the back-off's memory (memory.go) has it — a kept Rows' own, when the
// memory has nothing newer. (Its counts are zero since publish.)
func (r *Rows) start(rows pgx.Rows, more, fresh bool) {
	r.rows, r.pending, r.pendingMore, r.published = rows, true, more, false
	r.backedOff, r.bulkRows, r.inBulk, r.lazyCols = 0, 0, false, false
	for k := range r.cached {
		// (Cells may hold the entries of a kept Rows' last row: the first
		// row's advance overwrites them. Its counts went at publish.)
		cc, ref := &r.cached[k], &r.mem[k]
		cc.lazy = false
		if fresh || !current(ref.key, ref.gen) {
			r.lastMiss[k] = 0
			var ok bool
			if cc.reuse, ref.gen, ok = recall(ref.key); !ok {
				// A column the memory does not know: its first Close
				// writes it there (ends differs). Behind the tracker's
				// count, not ahead: a result set that ends one window
				// would bring it level and go unremembered.
				cc.reuse = newReuseTracker()
				ref.ends = cc.reuse.ends - 1
			} else {
				ref.ends = cc.reuse.ends
			}
		}
		if cc.reuse.skip > 0 {
			r.backedOff++
		}
	}
	r.planLazy()
}
